#pragma once
// The workload that traces show (issue 19 item 2): what each operation of each service does per request, how
// long its own work takes, and how often requests enter, read from spans (io/trace_spans.h).
//
//   operation     a service's span name on the side that serves: a SERVER span, or a span whose parent is in
//                 another service (or that has none) when the tracer did not say its kind
//   its calls     the operations its requests reach next, through a CLIENT span of its own or directly: per
//                 callee, count = the most calls of one request, probability = the mean over count (drsim's
//                 count x probability); in the order of their first start in the request (every call of a
//                 request to one callee operation is one entry, at the place of its first: drsim makes them one
//                 after another there, so the request takes as long); callees whose calls run at the same time in
//                 most requests that make both are parallel
//   self time     the operation's span less the time covered by its calls' spans: drsim's serviceTime, as an
//                 empirical distribution (every sample, or that many quantiles of them)
//   entries       the operations requests start at (no serving span above them), counted per window over the
//                 traces' time and divided by the sampling ratio: requests per second over time
// What drsim does not model is a note: asynchronous work (PRODUCER/CONSUMER spans and what they start), calls
// to what was not traced (a CLIENT span without a serving span below it: its time stays in the caller's self
// time), a call made with a varying count.
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/kubernetes_import.h"
#include "io/trace_spans.h"
#include "sim/time.h"

namespace drsim {

struct TraceWorkloadOptions {
  // The share of requests the traces hold (head sampling): the request rates are the traced ones divided by it.
  double sampling = 1.0;
  // The load profile's step: requests are counted per window.
  Duration window{std::chrono::minutes(1)};
  // At most this many self-time samples per operation: more are reduced to that many evenly spaced quantiles.
  std::size_t max_samples = 200;
};

struct TracedCall {
  std::string service;
  std::string operation;
  std::uint32_t count = 1;
  double probability = 1.0;
  bool parallel = false;
  std::uint64_t calls = 0;  // spans seen
};

struct TracedOperation {
  std::string service;
  std::string operation;
  std::uint64_t requests = 0;  // serving spans seen
  std::vector<TracedCall> calls;
  std::vector<Duration> self_times;  // ascending: every sample, or max_samples quantiles of them
  Duration self_time_mean{};         // over every sample
  // Where it was first seen, for messages.
  std::string file;
  int line = 0;
  int column = 0;
};

struct TracedEntry {
  std::string service;
  std::string operation;
  std::uint64_t requests = 0;  // traced requests that started at it
  // Requests per second (sampling undone) in each window from the traces' first request; the last window ends
  // at the last request, so it may be shorter.
  std::vector<double> rates;
};

struct TraceWorkload {
  std::string format;
  std::size_t traces = 0;
  std::size_t spans = 0;
  Duration window{};    // the rates' window
  Duration observed{};  // from the first request's start to the last's
  std::vector<TracedOperation> operations;  // by (service, operation)
  std::vector<TracedEntry> entries;         // by (service, operation)
  std::vector<ImportNote> notes;
};

// Throws ScenarioError for options out of range, or traces without a request to count (no serving span).
TraceWorkload derive_workload(const TraceSet& traces, const TraceWorkloadOptions& options);

}  // namespace drsim
