#pragma once
// Spans of a sampled share of the run's requests, as a tracer would export them (io/trace_json.h writes them as
// OpenTelemetry OTLP JSON): the client's request, each service's handling of it (SERVER, from the worker taking it
// to the answer) and each call it makes (CLIENT, from the call to its answer or its end). What drsim imports back
// with `drsim import traces` (docs/import.md): the round trip checks that the importer reads a known model.
//
// Sampling is head sampling, decided where a request starts by a hash of the seed, the population and the
// request's number, so that turning traces on changes no draw of the run. A span is a handle (0: not traced); a
// request that is not traced costs a test of its handle at each hop.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/time.h"

namespace drsim {

class SpanRecorder {
 public:
  using SpanId = std::uint32_t;  // 0: none
  enum class Kind : std::uint8_t { kServer, kClient };

  struct Span {
    std::uint32_t trace = 0;  // 1-based, in the order traces start
    SpanId parent = 0;
    std::uint32_t service = 0;  // names(): the service (or population) whose span it is
    std::uint32_t name = 0;     // names(): the operation
    SimTime start{};
    SimTime end{};
    Kind kind = Kind::kServer;
    bool open = true;
    bool failed = false;
  };

  // Off (the default) until enabled: every request's handle is then 0.
  void enable(double sampling, std::uint64_t seed, std::size_t max_spans);
  bool enabled() const { return sampling_ > 0; }

  // A name's index for spans (service, population and operation names are interned once, at build time).
  std::uint32_t intern(std::string_view name);
  const std::vector<std::string>& names() const { return names_; }

  // Whether the request numbered `request` of the population numbered `source` is traced; if so the root span
  // of a new trace (a CLIENT span of the population), else 0. Past max_spans no trace starts.
  // Inline, so that a run without traces pays a test per request, not a call.
  SpanId start_trace(std::uint64_t source, std::uint64_t request, std::uint32_t service, std::uint32_t name,
                     SimTime at) {
    return sampling_ <= 0 ? 0 : start_trace_sampled(source, request, service, name, at);
  }
  // A span of the parent's trace (parent != 0).
  SpanId start_span(SpanId parent, Kind kind, std::uint32_t service, std::uint32_t name, SimTime at);
  // Ends it (0: nothing, inline); a span ends once, later ends are ignored.
  void end_span(SpanId span, SimTime at, bool failed) {
    if (span != 0) end_open_span(span, at, failed);
  }

  const std::vector<Span>& spans() const { return spans_; }  // spans()[id - 1]
  // Spans of the trace still open (a request in flight).
  std::uint32_t open_in_trace(std::uint32_t trace) const { return open_per_trace_[trace - 1]; }
  std::uint32_t traces() const { return static_cast<std::uint32_t>(open_per_trace_.size()); }

 private:
  SpanId start_trace_sampled(std::uint64_t source, std::uint64_t request, std::uint32_t service,
                             std::uint32_t name, SimTime at);
  void end_open_span(SpanId span, SimTime at, bool failed);

  double sampling_ = 0;
  std::uint64_t seed_ = 0;
  std::size_t max_spans_ = 0;
  std::vector<Span> spans_;
  std::vector<std::uint32_t> open_per_trace_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> name_ids_;
};

}  // namespace drsim
