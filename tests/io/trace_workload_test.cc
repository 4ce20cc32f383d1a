// Operations, call graphs, self times and request rates read from spans whose workload is known by
// construction: each test writes the requests it expects to be read back.
#include "io/trace_workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tests/io/test_support.h"
#include "tests/io/traced_operations.h"

namespace drsim {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// Spans of traces written by hand: times in ms from the trace's start, which is `at_ms` into the run.
class Traces {
 public:
  // Returns the span's id.
  std::string span(const std::string& trace, const std::string& parent, const std::string& service,
                   const std::string& operation, SpanKind kind, double from_ms, double to_ms) {
    TraceSpan s;
    s.trace_id = trace;
    s.span_id = trace + "-" + std::to_string(set_.spans.size());
    s.parent_id = parent;
    s.service = service;
    s.operation = operation;
    s.kind = kind;
    s.start_ns = base_ns_ + std::llround(from_ms * kMs);
    s.end_ns = base_ns_ + std::llround(to_ms * kMs);
    s.file = "traces.json";
    s.line = static_cast<int>(set_.spans.size()) + 1;
    s.column = 1;
    set_.spans.push_back(s);
    return s.span_id;
  }
  // A call from `caller` (a serving span of `from`): a CLIENT span and the callee's SERVER span 0.25 ms inside it.
  std::string call(const std::string& trace, const std::string& caller, const std::string& from,
                   const std::string& to, const std::string& operation, double from_ms, double to_ms) {
    const std::string client = span(trace, caller, from, operation, SpanKind::kClient, from_ms, to_ms);
    return span(trace, client, to, operation, SpanKind::kServer, from_ms + 0.25, to_ms - 0.25);
  }
  void start_at(double at_ms) { base_ns_ = 1'700'000'000'000'000'000 + static_cast<std::int64_t>(at_ms * kMs); }
  TraceSet& set() {
    set_.format = "otlp";
    return set_;
  }

 private:
  TraceSet set_;
  std::int64_t base_ns_ = 1'700'000'000'000'000'000;
};

using testing::find_op;

// 100 requests of frontend "home", 100 ms apart, each 10 ms: cart get (1-4 ms), two overlapping catalog lists
// (4.5-7.5 ms), and in 40 of them recommendations (8-9 ms).
TraceSet shop_traces() {
  Traces t;
  for (int r = 0; r < 100; ++r) {
    const std::string trace = "t" + std::to_string(r);
    t.start_at(100.0 * r);
    const std::string home = t.span(trace, "", "frontend", "home", SpanKind::kServer, 0, 10);
    t.call(trace, home, "frontend", "cart", "get", 1, 4);
    t.call(trace, home, "frontend", "catalog", "list", 4.5, 7.5);
    t.call(trace, home, "frontend", "catalog", "list", 4.6, 7.4);
    if (r % 5 < 2) t.call(trace, home, "frontend", "recommendations", "rec", 8, 9);
  }
  return t.set();
}

TEST(TraceWorkload, CallGraphsCountsAndProbabilitiesFromTheSpans) {
  const TraceWorkload w = derive_workload(shop_traces(), {});
  EXPECT_EQ(w.traces, 100u);
  ASSERT_EQ(w.operations.size(), 4u);
  const TracedOperation& home = find_op(w, "frontend", "home");
  EXPECT_EQ(home.requests, 100u);
  ASSERT_EQ(home.calls.size(), 3u);
  // In the order of their start in the request.
  EXPECT_EQ(home.calls[0].service, "cart");
  EXPECT_EQ(home.calls[0].operation, "get");
  EXPECT_EQ(home.calls[0].count, 1u);
  EXPECT_DOUBLE_EQ(home.calls[0].probability, 1.0);
  EXPECT_FALSE(home.calls[0].parallel);
  // Two at once in every request: count 2, in parallel.
  EXPECT_EQ(home.calls[1].service, "catalog");
  EXPECT_EQ(home.calls[1].count, 2u);
  EXPECT_DOUBLE_EQ(home.calls[1].probability, 1.0);
  EXPECT_TRUE(home.calls[1].parallel);
  EXPECT_EQ(home.calls[1].calls, 200u);
  // In 40 of 100 requests.
  EXPECT_EQ(home.calls[2].service, "recommendations");
  EXPECT_DOUBLE_EQ(home.calls[2].probability, 0.4);
  EXPECT_FALSE(home.calls[2].parallel);
  // Self time: 10 ms less cart's 3 ms, the two lists' 3 ms (their union), recommendations' 1 ms when made.
  EXPECT_EQ(home.self_times.size(), 100u);
  EXPECT_EQ(home.self_times.front(), Duration(3 * kMs));
  EXPECT_EQ(home.self_times.back(), Duration(4 * kMs));
  EXPECT_EQ(std::count(home.self_times.begin(), home.self_times.end(), Duration(3 * kMs)), 40);
  EXPECT_EQ(home.self_time_mean, Duration(3'600'000));
  // A leaf's self time is its whole span: 3 ms less the 0.25 ms either side.
  const TracedOperation& cart = find_op(w, "cart", "get");
  EXPECT_EQ(cart.requests, 100u);
  EXPECT_TRUE(cart.calls.empty());
  EXPECT_EQ(cart.self_times.front(), Duration(2'500'000));
}

TEST(TraceWorkload, RequestRatesPerWindowUndoTheSampling) {
  // 100 requests over 9.9 s: one window of 1 min, 100 / 9.9 s.
  const TraceWorkload one = derive_workload(shop_traces(), {});
  ASSERT_EQ(one.entries.size(), 1u);  // only home starts requests
  EXPECT_EQ(one.entries[0].service, "frontend");
  EXPECT_EQ(one.entries[0].requests, 100u);
  ASSERT_EQ(one.entries[0].rates.size(), 1u);
  EXPECT_NEAR(one.entries[0].rates[0], 100 / 9.9, 1e-9);
  EXPECT_EQ(one.observed, Duration(9'900 * kMs));
  // Traced at 10%: ten times the requests. Windows of 3.3 s (the 9.9 s in three equal parts, nearest to 3 s).
  TraceWorkloadOptions options;
  options.sampling = 0.1;
  options.window = std::chrono::seconds(3);
  const TraceWorkload three = derive_workload(shop_traces(), options);
  ASSERT_EQ(three.entries[0].rates.size(), 3u);
  EXPECT_EQ(three.window, Duration(3'300 * kMs));
  // Requests at 0, 0.1, ... 9.9 s: 33 in [0, 3.3), 33 in [3.3, 6.6), 34 in [6.6, 9.9] (the last one closes it).
  EXPECT_NEAR(three.entries[0].rates[0], 33 / 3.3 * 10, 1e-9);
  EXPECT_NEAR(three.entries[0].rates[2], 34 / 3.3 * 10, 1e-9);
}

TEST(TraceWorkload, ManySelfTimesBecomeEvenlySpacedQuantiles) {
  Traces t;
  for (int r = 0; r < 1000; ++r) {
    t.start_at(r);
    t.span("t" + std::to_string(r), "", "api", "get", SpanKind::kServer, 0, (r + 1) / 1000.0);  // (r+1) us
  }
  TraceWorkloadOptions options;
  options.max_samples = 10;
  const TraceWorkload w = derive_workload(t.set(), options);
  const TracedOperation& op = find_op(w, "api", "get");
  ASSERT_EQ(op.self_times.size(), 10u);
  // The quantiles at 5%, 15%, ... 95% of 1..1000 us.
  EXPECT_EQ(op.self_times[0], Duration(51'000));
  EXPECT_EQ(op.self_times[9], Duration(951'000));
  EXPECT_EQ(op.self_time_mean, Duration(500'500));
}

TEST(TraceWorkload, SequentialCallsToOneCalleeAndParallelGroupsOfSeveral) {
  Traces t;
  for (int r = 0; r < 10; ++r) {
    const std::string trace = "t" + std::to_string(r);
    t.start_at(1000.0 * r);
    const std::string checkout = t.span(trace, "", "checkout", "place", SpanKind::kServer, 0, 20);
    // Three sequential cart calls, then currency and shipping at once.
    t.call(trace, checkout, "checkout", "cart", "get", 1, 2);
    t.call(trace, checkout, "checkout", "cart", "get", 2.5, 3.5);
    t.call(trace, checkout, "checkout", "cart", "get", 4, 5);
    t.call(trace, checkout, "checkout", "shipping", "quote", 6, 9);
    t.call(trace, checkout, "checkout", "currency", "convert", 6.1, 8);
  }
  const TraceWorkload w = derive_workload(t.set(), {});
  const TracedOperation& place = find_op(w, "checkout", "place");
  ASSERT_EQ(place.calls.size(), 3u);
  EXPECT_EQ(place.calls[0].service, "cart");
  EXPECT_EQ(place.calls[0].count, 3u);
  EXPECT_FALSE(place.calls[0].parallel);
  EXPECT_EQ(place.calls[1].service, "shipping");
  EXPECT_TRUE(place.calls[1].parallel);
  EXPECT_EQ(place.calls[2].service, "currency");
  EXPECT_TRUE(place.calls[2].parallel);
  // 20 ms less 3 x 1 ms of cart and the 3 ms the two parallel calls cover.
  EXPECT_EQ(place.self_times.front(), Duration(14 * kMs));
}

TEST(TraceWorkload, SpansWithoutAKindServeWhenTheirParentIsAnotherService) {
  Traces t;
  for (int r = 0; r < 4; ++r) {
    const std::string trace = "t" + std::to_string(r);
    t.start_at(500.0 * r);
    const std::string root = t.span(trace, "", "web", "GET /", SpanKind::kUnspecified, 0, 10);
    // Work inside web (not a call), and a call to db-api traced without kinds.
    t.span(trace, root, "web", "render", SpanKind::kInternal, 1, 2);
    t.span(trace, root, "db-api", "query", SpanKind::kUnspecified, 3, 7);
  }
  const TraceWorkload w = derive_workload(t.set(), {});
  ASSERT_EQ(w.operations.size(), 2u);
  const TracedOperation& get = find_op(w, "web", "GET /");
  ASSERT_EQ(get.calls.size(), 1u);
  EXPECT_EQ(get.calls[0].service, "db-api");
  EXPECT_EQ(get.self_times.front(), Duration(6 * kMs));  // render's 1 ms is web's own work
}

TEST(TraceWorkload, UntracedCalleesAndAsynchronousWorkAreNotes) {
  Traces t;
  for (int r = 0; r < 5; ++r) {
    const std::string trace = "t" + std::to_string(r);
    t.start_at(100.0 * r);
    const std::string order = t.span(trace, "", "orders", "create", SpanKind::kServer, 0, 10);
    t.span(trace, order, "orders", "INSERT orders", SpanKind::kClient, 1, 5);  // a database nobody traced
    const std::string sent = t.span(trace, order, "orders", "order-created send", SpanKind::kProducer, 6, 6.5);
    const std::string consumed = t.span(trace, sent, "mailer", "order-created process", SpanKind::kConsumer, 20, 30);
    t.call(trace, consumed, "mailer", "smtp-gw", "send", 21, 29);
  }
  const TraceWorkload w = derive_workload(t.set(), {});
  // The consumer's work is left out; the database's time stays in create's self time.
  ASSERT_EQ(w.operations.size(), 1u);
  EXPECT_EQ(find_op(w, "orders", "create").self_times.front(), Duration(10 * kMs));
  std::string notes;
  for (const ImportNote& n : w.notes) notes += n.to_string() + "\n";
  EXPECT_NE(notes.find("traces.json:2:1: orders \"create\": its CLIENT span \"INSERT orders\" (1 a request) reaches "
                       "nothing traced"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("orders \"create\": 5 asynchronous messages it sent were consumed"), std::string::npos)
      << notes;
  EXPECT_NE(notes.find("smtp-gw \"send\": 5 of its spans serve work a message started"), std::string::npos) << notes;
}

TEST(TraceWorkload, AVaryingCountIsANoteWithTheMeanKept) {
  Traces t;
  for (int r = 0; r < 4; ++r) {
    const std::string trace = "t" + std::to_string(r);
    t.start_at(100.0 * r);
    const std::string list = t.span(trace, "", "catalog", "list", SpanKind::kServer, 0, 20);
    for (int c = 0; c <= r; ++c) t.call(trace, list, "catalog", "images", "get", 1 + 2 * c, 2 + 2 * c);
  }
  const TraceWorkload w = derive_workload(t.set(), {});
  const TracedOperation& list = find_op(w, "catalog", "list");
  ASSERT_EQ(list.calls.size(), 1u);
  EXPECT_EQ(list.calls[0].count, 4u);
  EXPECT_DOUBLE_EQ(list.calls[0].probability, 10.0 / 16.0);  // 2.5 a request of at most 4
  ASSERT_FALSE(w.notes.empty());
  EXPECT_EQ(w.notes[0].message,
            "calls to images \"get\" made 1 to 4 times in the requests that make it (2.5 a request): drsim makes "
            "each of 4 calls with probability 0.625, the same mean");
}

TEST(TraceWorkload, TracesThatGiveNoWorkloadSaySo) {
  {
    Traces t;
    t.span("t", "", "loadgen", "GET /", SpanKind::kClient, 0, 1);
    EXPECT_EQ(testing::error_of([&] { derive_workload(t.set(), {}); }),
              "traces.json: the traces hold no request: no span serves one (a SERVER span, or a span without a "
              "parent)");
  }
  {
    Traces t;
    t.span("a", "", "web", "GET /", SpanKind::kServer, 0, 1);
    t.span("b", "", "web", "GET /", SpanKind::kServer, 0, 2);
    EXPECT_EQ(testing::error_of([&] { derive_workload(t.set(), {}); }),
              "traces.json:1:1: the traces' 2 requests all start at one instant: a request rate needs requests "
              "spread over time");
  }
  {
    Traces t;
    t.span("t", "t-1", "web", "a", SpanKind::kServer, 0, 1);
    t.span("t", "t-0", "web", "b", SpanKind::kInternal, 0, 1);
    EXPECT_EQ(testing::error_of([&] { derive_workload(t.set(), {}); }),
              "traces.json:1:1: span t-0 of trace t is its own ancestor: its parents form a cycle");
  }
  TraceWorkloadOptions bad;
  bad.sampling = 0;
  EXPECT_EQ(testing::error_of([&] { derive_workload(shop_traces(), bad); }).rfind("the sampling ratio must be", 0),
            0u);
}

}  // namespace
}  // namespace drsim
