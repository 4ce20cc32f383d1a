#pragma once
// Spans read from the JSON that tracing systems export, in one form whatever the format, for the trace
// importer (issue 19 item 2: operations, call graphs, self times and rates from traces):
//   OpenTelemetry OTLP JSON  {"resourceSpans": [{"resource": {...service.name...}, "scopeSpans": [{"spans": [...]}]}]}
//   Jaeger JSON              {"data": [{"traceID", "spans": [...], "processes": {...}}]} (the UI's and the API's)
//   Zipkin v2 JSON           [span, ...] or [[span, ...], ...] (a list of traces)
// The format is told from the document's shape. Every span's parent must be in its trace: an orphan (a trace
// exported in part) is an error naming the span, as are missing ids, times or services.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace drsim {

enum class SpanKind { kUnspecified, kInternal, kServer, kClient, kProducer, kConsumer };

struct TraceSpan {
  std::string trace_id;
  std::string span_id;
  std::string parent_id;  // empty: a root
  std::string service;
  std::string operation;
  SpanKind kind = SpanKind::kUnspecified;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  // Where it was read, for messages.
  std::string file;
  int line = 0;
  int column = 0;
};

struct TraceSet {
  std::string format;  // "otlp", "jaeger" or "zipkin"
  std::vector<TraceSpan> spans;
};

// Reads (display name, text) pairs; throws ScenarioError (file, line, column, what was expected) for what is
// not one of the formats, a span without its ids, times or service, or an orphan span.
TraceSet read_trace_texts(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace drsim
