#include "io/trace_json.h"

#include <cstdio>
#include <vector>

#include "sim/json_scalars.h"

namespace drsim {

namespace {

std::string hex(std::uint64_t v, int digits) {
  char buf[40];
  if (digits == 32) {
    std::snprintf(buf, sizeof buf, "%016llx%016llx", 0ull, static_cast<unsigned long long>(v));
  } else {
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  }
  return buf;
}

}  // namespace

std::string otlp_json(const SpanRecorder& recorder) {
  const std::vector<SpanRecorder::Span>& spans = recorder.spans();
  // The spans of each service, in the order they started (their ids).
  std::vector<std::vector<std::size_t>> by_service(recorder.names().size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (recorder.open_in_trace(spans[i].trace) == 0) by_service[spans[i].service].push_back(i);
  }
  std::string out = "{\"resourceSpans\": [";
  bool first_service = true;
  for (std::size_t service = 0; service < by_service.size(); ++service) {
    if (by_service[service].empty()) continue;
    out += first_service ? "\n" : ",\n";
    first_service = false;
    out += " {\"resource\": {\"attributes\": [{\"key\": \"service.name\", \"value\": {\"stringValue\": " +
           json_string(recorder.names()[service]) + "}}]},\n  \"scopeSpans\": [{\"scope\": {\"name\": \"drsim\"}, "
           "\"spans\": [";
    bool first_span = true;
    for (std::size_t i : by_service[service]) {
      const SpanRecorder::Span& s = spans[i];
      out += first_span ? "\n" : ",\n";
      first_span = false;
      out += "   {\"traceId\": \"" + hex(s.trace, 32) + "\", \"spanId\": \"" + hex(i + 1, 16) + "\"";
      if (s.parent != 0) out += ", \"parentSpanId\": \"" + hex(s.parent, 16) + "\"";
      out += ", \"name\": " + json_string(recorder.names()[s.name]);
      out += s.kind == SpanRecorder::Kind::kServer ? ", \"kind\": 2" : ", \"kind\": 3";
      out += ", \"startTimeUnixNano\": \"" + std::to_string(s.start.time_since_epoch().count()) + "\"";
      out += ", \"endTimeUnixNano\": \"" + std::to_string(s.end.time_since_epoch().count()) + "\"";
      if (s.failed) out += ", \"status\": {\"code\": 2}";
      out += "}";
    }
    out += "]}]}";
  }
  out += "\n]}\n";
  return out;
}

}  // namespace drsim
