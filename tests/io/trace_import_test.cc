// drsim import traces: a scenario's services get the traces' operations, calls and self times, and its load the
// requests they count; what the traces do not show (timeouts, retries, where the clients sit) is kept.
#include "io/trace_import.h"

#include <gtest/gtest.h>

#include <string>

#include "io/scenario_loader.h"
#include "io/yaml_document.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

constexpr const char* kShop = R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: shop
spec:
  duration: 10m
  topology:
    regions:
      - name: r
        zones: [{name: a}, {name: b}]
    services:
      - name: frontend
        replicas: [{zone: a, replicas: 2}, {zone: b, replicas: 2}]
        serviceTime: {kind: exponential, mean: 10ms}
        calls:
          - {service: cart, timeout: 300ms, retry: {attempts: 2}}
      - name: cart
        replicas: [{zone: a, replicas: 1}, {zone: b, replicas: 1}]
        serviceTime: {kind: exponential, mean: 10ms}
  load:
    - name: shoppers
      service: frontend
      zone: a
      timeout: 2s
      load: {kind: constant, rate: 5rps}
)";

// Zipkin spans: frontend "GET /cart" calls cart "GetCart" (client 1-4 ms, server 1.5-3.5 ms), a request every
// 500 ms for 20 s; in every other request a second, later call.
std::string zipkin_traces(const std::string& frontend = "frontend") {
  std::string out = "[";
  for (int r = 0; r < 41; ++r) {
    const long long t = 1'700'000'000'000'000LL + r * 500'000LL;  // us
    const std::string id = std::to_string(r);
    auto span = [&](const std::string& sid, const std::string& parent, const std::string& service,
                    const std::string& name, const std::string& kind, long long from_us, long long dur_us) {
      out += std::string(out.size() > 1 ? ",\n" : "") + R"({"traceId": "t)" + id + R"(", "id": ")" + sid + id +
             "\"" + (parent.empty() ? "" : R"(, "parentId": ")" + parent + id + "\"") + R"(, "name": ")" + name +
             R"(", "kind": ")" + kind + R"(", "timestamp": )" + std::to_string(t + from_us) +
             R"(, "duration": )" + std::to_string(dur_us) + R"(, "localEndpoint": {"serviceName": ")" + service +
             "\"}}";
    };
    span("a", "", frontend, "GET /cart", "SERVER", 0, 10'000);
    span("b", "a", frontend, "GetCart", "CLIENT", 1'000, 3'000);
    span("c", "b", "cart", "GetCart", "SERVER", 1'500, 2'000);
    if (r % 2 == 0) {
      span("d", "a", frontend, "GetCart", "CLIENT", 6'000, 3'000);
      span("e", "d", "cart", "GetCart", "SERVER", 6'500, 2'000);
    }
  }
  return out + "]";
}

const OperationConfig& op_of(const Scenario& s, const std::string& service, const std::string& name) {
  for (const ServiceConfig& svc : s.spec.topology.config.services) {
    if (svc.name != service) continue;
    for (const OperationConfig& op : svc.operations) {
      if (op.name == name) return op;
    }
  }
  throw std::runtime_error("no operation " + service + " " + name);
}

TEST(TraceImport, OperationsCallsAndLoadGoIntoTheScenario) {
  TraceImportOptions options;
  options.workload.sampling = 0.5;
  const TraceImport imported =
      import_traces_texts(kShop, "shop.yaml", {{"traces.json", zipkin_traces()}}, options);
  const Scenario s = load_scenario_text(imported.scenario_yaml);
  const OperationConfig& get = op_of(s, "frontend", "GET /cart");
  ASSERT_TRUE(get.service_time);
  EXPECT_EQ(get.service_time->kind, "empirical");
  // 10 ms less one 3 ms call, or two.
  EXPECT_EQ(get.service_time->samples.front(), std::chrono::milliseconds(4));
  EXPECT_EQ(get.service_time->samples.back(), std::chrono::milliseconds(7));
  ASSERT_TRUE(get.calls);
  ASSERT_EQ(get.calls->size(), 1u);
  const CallConfig& call = get.calls->front();
  EXPECT_EQ(call.service, "cart");
  EXPECT_EQ(call.operation, "GetCart");
  EXPECT_EQ(call.count, 2u);
  EXPECT_DOUBLE_EQ(call.probability.value, 62.0 / 82.0);  // 41 + 21 calls in 41 requests of at most 2
  EXPECT_FALSE(call.parallel);
  // How long the caller waits is the scenario's, not the traces'.
  EXPECT_EQ(call.timeout, std::chrono::milliseconds(300));
  EXPECT_EQ(call.retry.attempts, 2u);
  EXPECT_EQ(op_of(s, "cart", "GetCart").service_time->samples.front(), std::chrono::milliseconds(2));

  // The population entering frontend is replaced: 41 requests over 20 s, traced at 50%.
  ASSERT_EQ(s.spec.load.size(), 1u);
  const ClientPopulationConfig& p = s.spec.load[0];
  EXPECT_EQ(p.name, "frontend.GET-cart");
  EXPECT_EQ(p.load.kind, "constant");
  EXPECT_DOUBLE_EQ(p.load.rate->per_second, 41.0 / 20.0 / 0.5);
  ASSERT_EQ(p.operations.size(), 1u);
  EXPECT_EQ(p.operations[0].name, "GET /cart");
  EXPECT_EQ(p.zone, "a");  // where the clients sit and how long they wait: kept
  EXPECT_EQ(p.timeout, std::chrono::seconds(2));
  std::string notes;
  for (const ImportNote& n : imported.notes) notes += n.to_string() + "\n";
  EXPECT_NE(notes.find("shop.yaml: population shoppers: replaced by the traces' requests entering frontend"),
            std::string::npos)
      << notes;
  EXPECT_NE(imported.scenario_yaml.find("# 41 traces, 165 spans (zipkin) over 20s, sampling 0.5"), std::string::npos)
      << imported.scenario_yaml.substr(0, 600);
}

TEST(TraceImport, AWindowedLoadIsATraceOfRates) {
  TraceImportOptions options;
  options.workload.window = std::chrono::seconds(5);
  const TraceImport imported = import_traces_texts(kShop, "shop.yaml", {{"traces.json", zipkin_traces()}}, options);
  const Scenario s = load_scenario_text(imported.scenario_yaml);
  const RateProfileConfig& load = s.spec.load[0].load;
  EXPECT_EQ(load.kind, "trace");
  // Four windows of 5 s, each rate at its middle, and the first from the start.
  ASSERT_EQ(load.points.size(), 5u);
  EXPECT_EQ(load.points[1].at, std::chrono::milliseconds(2500));
  EXPECT_DOUBLE_EQ(load.points[1].rate.per_second, 2.0);   // 10 requests in [0, 5 s)
  EXPECT_DOUBLE_EQ(load.points[4].rate.per_second, 2.2);   // 11 in [15, 20 s], the last one included
}

TEST(TraceImport, TheTracesServicesMustBeTheScenariosOrBeMapped) {
  EXPECT_EQ(testing::error_of([] {
              import_traces_texts(kShop, "shop.yaml", {{"traces.json", zipkin_traces("frontnd")}}, {});
            }),
            "traces.json:1:2: unknown service \"frontnd\", did you mean \"frontend\"? (the scenario's services: "
            "frontend, cart); map the traces' name to one with --service-map frontnd=NAME");
  TraceImportOptions mapped;
  mapped.service_names["web"] = "frontend";
  const TraceImport imported = import_traces_texts(kShop, "shop.yaml", {{"traces.json", zipkin_traces("web")}}, mapped);
  EXPECT_NO_THROW(op_of(load_scenario_text(imported.scenario_yaml), "frontend", "GET /cart"));
}

TEST(TraceImport, BadTraceFilesOfTheCorpusSayWhereAndWhat) {
  const std::pair<const char*, const char*> cases[] = {
      {"tests/data/traces/bad/orphan.json",
       "tests/data/traces/bad/orphan.json:7:3: span c1 (cart GetCart) has parent gone, which is not in trace t1 "
       "(an orphan: export whole traces)"},
      {"tests/data/traces/bad/cycle.json",
       "tests/data/traces/bad/cycle.json:6:3: span a1 of trace t1 is its own ancestor: its parents form a cycle"},
      {"tests/data/traces/bad/no_request.json",
       "tests/data/traces/bad/no_request.json: the traces hold no request: no span serves one (a SERVER span, or a "
       "span without a parent)"},
      {"tests/data/traces/bad/one_instant.json",
       "tests/data/traces/bad/one_instant.json:2:3: the traces' 2 requests all start at one instant: a request "
       "rate needs requests spread over time"},
      {"tests/data/traces/bad/malformed_time.json",
       "tests/data/traces/bad/malformed_time.json:9:35: resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano: "
       "expected a non-negative integer, got \"soon\""},
      {"tests/data/traces/bad/not_traces.json",
       "tests/data/traces/bad/not_traces.json:1:1: expected OTLP JSON (resourceSpans), Jaeger JSON (data) or "
       "Zipkin v2 JSON (a list of spans), got a mapping"},
      {"tests/data/traces/bad/unknown_process.json",
       "tests/data/traces/bad/unknown_process.json:5:33: data[0].spans[0].processID: expected a process of the "
       "trace, got \"p9\""},
  };
  for (const auto& [file, message] : cases) {
    EXPECT_EQ(testing::error_of([&] {
                import_traces_texts(kShop, "shop.yaml", read_text_files({file}, "trace"), {});
              }),
              message)
        << file;
  }
}

}  // namespace
}  // namespace drsim
