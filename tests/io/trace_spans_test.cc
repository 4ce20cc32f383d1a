// The three trace formats read to the same spans, and bad traces (an orphan span, a span without its service,
// a document of none of the formats) give the message a user sees.
#include "io/trace_spans.h"

#include <gtest/gtest.h>

#include "tests/io/test_support.h"

namespace drsim {
namespace {

// One request: frontend's server span (10 ms) and its client call to cart, whose server span takes 2 ms.
constexpr const char* kOtlp = R"({"resourceSpans": [
 {"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "frontend"}}]},
  "scopeSpans": [{"scope": {"name": "otel"}, "spans": [
   {"traceId": "t1", "spanId": "a", "name": "GET /cart", "kind": 2,
    "startTimeUnixNano": "1000000000", "endTimeUnixNano": "1010000000"},
   {"traceId": "t1", "spanId": "b", "parentSpanId": "a", "name": "CartService/GetCart", "kind": "SPAN_KIND_CLIENT",
    "startTimeUnixNano": "1001000000", "endTimeUnixNano": "1004000000"}]}]},
 {"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "cart"}}]},
  "scopeSpans": [{"spans": [
   {"traceId": "t1", "spanId": "c", "parentSpanId": "b", "name": "CartService/GetCart", "kind": 2,
    "startTimeUnixNano": "1001500000", "endTimeUnixNano": "1003500000"}]}]}]})";

constexpr const char* kJaeger = R"({"data": [{"traceID": "t1",
  "spans": [
   {"traceID": "t1", "spanID": "a", "operationName": "GET /cart", "references": [], "startTime": 1000000,
    "duration": 10000, "processID": "p1", "tags": [{"key": "span.kind", "type": "string", "value": "server"}]},
   {"traceID": "t1", "spanID": "b", "operationName": "CartService/GetCart",
    "references": [{"refType": "CHILD_OF", "traceID": "t1", "spanID": "a"}], "startTime": 1001000, "duration": 3000,
    "processID": "p1", "tags": [{"key": "span.kind", "value": "client"}]},
   {"traceID": "t1", "spanID": "c", "operationName": "CartService/GetCart",
    "references": [{"refType": "CHILD_OF", "traceID": "t1", "spanID": "b"}], "startTime": 1001500, "duration": 2000,
    "processID": "p2", "tags": [{"key": "span.kind", "value": "server"}]}],
  "processes": {"p1": {"serviceName": "frontend"}, "p2": {"serviceName": "cart"}}}]})";

constexpr const char* kZipkin = R"([
 {"traceId": "t1", "id": "a", "name": "get /cart", "kind": "SERVER", "timestamp": 1000000, "duration": 10000,
  "localEndpoint": {"serviceName": "frontend"}},
 {"traceId": "t1", "id": "b", "parentId": "a", "name": "cartservice/getcart", "kind": "CLIENT", "timestamp": 1001000,
  "duration": 3000, "localEndpoint": {"serviceName": "frontend"}},
 {"traceId": "t1", "id": "c", "parentId": "b", "name": "cartservice/getcart", "kind": "SERVER", "timestamp": 1001500,
  "duration": 2000, "localEndpoint": {"serviceName": "cart"}}])";

void expect_the_request(const TraceSet& set, const std::string& format) {
  EXPECT_EQ(set.format, format);
  ASSERT_EQ(set.spans.size(), 3u) << format;
  const TraceSpan& root = set.spans[0];
  EXPECT_EQ(root.service, "frontend");
  EXPECT_TRUE(root.parent_id.empty());
  EXPECT_EQ(root.kind, SpanKind::kServer);
  EXPECT_EQ(root.end_ns - root.start_ns, 10'000'000);
  const TraceSpan& call = set.spans[1];
  EXPECT_EQ(call.parent_id, "a");
  EXPECT_EQ(call.kind, SpanKind::kClient);
  EXPECT_EQ(call.start_ns - root.start_ns, 1'000'000);
  const TraceSpan& served = set.spans[2];
  EXPECT_EQ(served.service, "cart");
  EXPECT_EQ(served.parent_id, "b");
  EXPECT_EQ(served.end_ns - served.start_ns, 2'000'000);
}

TEST(TraceSpans, TheThreeFormatsGiveTheSameSpans) {
  expect_the_request(read_trace_texts({{"otlp.json", kOtlp}}), "otlp");
  expect_the_request(read_trace_texts({{"jaeger.json", kJaeger}}), "jaeger");
  expect_the_request(read_trace_texts({{"zipkin.json", kZipkin}}), "zipkin");
  // Zipkin's API answers with a list of traces.
  expect_the_request(read_trace_texts({{"zipkin.json", std::string("[") + kZipkin + "]"}}), "zipkin");
}

TEST(TraceSpans, BadTracesSayWhatIsWrongAndWhere) {
  EXPECT_EQ(testing::error_of([] {
              read_trace_texts({{"orphan.json", R"([{"traceId": "t", "id": "b", "parentId": "gone", "name": "x",
  "timestamp": 1, "duration": 1, "localEndpoint": {"serviceName": "cart"}}])"}});
            }),
            "orphan.json:1:2: span b (cart x) has parent gone, which is not in trace t (an orphan: export whole "
            "traces)");
  EXPECT_EQ(testing::error_of([] {
              read_trace_texts({{"nameless.json", R"([{"traceId": "t", "id": "a", "name": "x", "timestamp": 1,
  "duration": 1}])"}});
            }),
            "nameless.json:1:2: [0]: expected localEndpoint.serviceName, got nothing");
  EXPECT_EQ(testing::error_of([] {
              read_trace_texts({{"other.json", R"({"traces": []})"}});
            }),
            "other.json:1:1: expected OTLP JSON (resourceSpans), Jaeger JSON (data) or Zipkin v2 JSON (a list of "
            "spans), got a mapping");
  EXPECT_EQ(testing::error_of([] {
              read_trace_texts({{"broken.json", "[{\"traceId\": }]"}});
            }).rfind("broken.json:1:", 0),
            0u);
}

}  // namespace
}  // namespace drsim
