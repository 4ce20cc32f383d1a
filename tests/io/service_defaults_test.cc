// spec.topology.serviceDefaults: written once, taken by every service that
// does not set the key itself, checked at the default's own line.
#include <gtest/gtest.h>

#include "io/scenario_loader.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using testing::load_error;
using testing::scenario_with;

// Line 15 is "serviceDefaults:", line 16 the service time every test's
// services share, line 17 the first of `defaults`.
std::string with_defaults(std::string_view defaults, std::string_view services) {
  return scenario_with("    serviceDefaults:\n      serviceTime: {kind: exponential, mean: 10ms}\n" +
                       std::string(defaults) + "    services:\n" + std::string(services));
}

constexpr const char* kTwoServices =
    "      - name: front\n"
    "        replicas: [{zone: eu-west-1a, replicas: 2}]\n"
    "      - name: cart\n"
    "        concurrency: 2\n"
    "        replicas: [{zone: eu-west-1b, replicas: 1}]\n";

const ServiceConfig& service(const Scenario& s, std::string_view name) {
  for (const ServiceConfig& c : s.spec.topology.config.services) {
    if (c.name == name) return c;
  }
  throw std::logic_error("no service " + std::string(name));
}

TEST(ServiceDefaults, EveryServiceTakesWhatItDoesNotSet) {
  const Scenario s = load_scenario_text(with_defaults("      concurrency: 8\n      queueLimit: 16\n", kTwoServices));
  EXPECT_EQ(service(s, "front").concurrency, 8u);
  EXPECT_EQ(service(s, "front").queue_limit, 16u);
  EXPECT_EQ(service(s, "cart").concurrency, 2u);  // its own
  EXPECT_EQ(service(s, "cart").queue_limit, 16u);
}

TEST(ServiceDefaults, MinimalDefaultsAreAccepted) {
  // The keys a service must have (name, replicas) need not be in the defaults.
  const Scenario s = load_scenario_text(with_defaults("      zoneFailure: refuse\n", kTwoServices));
  EXPECT_EQ(service(s, "front").replicas.size(), 1u);
}

TEST(ServiceDefaults, ReplicasCanBeADefault) {
  const Scenario s = load_scenario_text(
      with_defaults("      replicas: [{zone: eu-west-1a, replicas: 3}, {zone: eu-west-1b, replicas: 3}]\n",
                    "      - name: front\n      - name: cart\n        replicas: [{zone: us-east-1a, replicas: 1}]\n"));
  ASSERT_EQ(service(s, "front").replicas.size(), 2u);
  EXPECT_EQ(service(s, "front").replicas[1].zone, "eu-west-1b");
  EXPECT_EQ(service(s, "front").replicas[1].replicas, 3u);
  // A list the service sets replaces the default's whole.
  ASSERT_EQ(service(s, "cart").replicas.size(), 1u);
  EXPECT_EQ(service(s, "cart").replicas[0].zone, "us-east-1a");
}

TEST(ServiceDefaults, MappingsMergeKeyByKey) {
  const Scenario s = load_scenario_text(with_defaults("      cpu: {request: 100m, limit: 200m}\n",
                                                      "      - name: front\n"
                                                      "        cpu: {limit: 500m}\n"
                                                      "        replicas: [{zone: eu-west-1a, replicas: 1}]\n"));
  ASSERT_TRUE(service(s, "front").cpu.limit.has_value());
  EXPECT_EQ(service(s, "front").cpu.limit->millicores, 500);
  ASSERT_TRUE(service(s, "front").cpu.request.has_value());
  EXPECT_EQ(service(s, "front").cpu.request->millicores, 100);
}

TEST(ServiceDefaults, AMappingOfAnotherKindReplacesTheDefault) {
  const Scenario s = load_scenario_text(
      scenario_with("    serviceDefaults:\n      serviceTime: {kind: lognormal, p50: 10ms, p99: 80ms}\n    services:\n"
                    "      - name: front\n"
                    "        serviceTime: {kind: constant, value: 5ms}\n"
                    "        replicas: [{zone: eu-west-1a, replicas: 1}]\n"
                    "      - name: cart\n"
                    "        serviceTime: {kind: lognormal, p50: 20ms}\n"
                    "        replicas: [{zone: eu-west-1a, replicas: 1}]\n"));
  EXPECT_EQ(service(s, "front").service_time.kind, "constant");
  EXPECT_EQ(service(s, "front").service_time.value, 5ms);
  EXPECT_FALSE(service(s, "front").service_time.p99.has_value());
  // The same kind: merged, the service's p50 with the default's p99.
  EXPECT_EQ(service(s, "cart").service_time.p50, 20ms);
  EXPECT_EQ(service(s, "cart").service_time.p99, 80ms);
}

TEST(ServiceDefaults, ABadDefaultIsReportedOnceAtItsLine) {
  EXPECT_EQ(load_error(with_defaults("      concurrency: many\n", kTwoServices)),
            "<text>:17:20: spec.topology.serviceDefaults.concurrency: expected an unsigned integer, got \"many\"");
  EXPECT_EQ(
      load_error(with_defaults("      concurrancy: 4\n", kTwoServices)),
      "<text>:17:7: spec.topology.serviceDefaults.concurrancy: unknown key \"concurrancy\", did you mean "
      "\"concurrency\"? (valid keys: name, replicas, server, concurrency, maxInFlight, queueLimit, "
      "serviceTime, balancing, zoneAffinity, regionAffinity, zoneFailure, discovery, deadlines, loadBalancer, mesh, "
      "grpc, calls, operations, cpu, cpuTime)");
}

TEST(ServiceDefaults, ADefaultNameAndAScalarAreRefused) {
  EXPECT_EQ(load_error(with_defaults("      name: x\n", kTwoServices)),
            "<text>:17:13: spec.topology.serviceDefaults.name: a default name would give every service the same one");
  EXPECT_EQ(load_error(scenario_with("    serviceDefaults: 4\n    services:\n" + std::string(kTwoServices))),
            "<text>:15:22: spec.topology.serviceDefaults: expected a mapping of Service keys that every service "
            "takes unless it sets them, got \"4\"\n"
            // Without usable defaults the services lack what they would have taken.
            "<text>:17:9: spec.topology.services[0]: missing required key \"serviceTime\"\n"
            "<text>:19:9: spec.topology.services[1]: missing required key \"serviceTime\"");
}

TEST(ServiceDefaults, AProblemOfTheMergedServicePointsAtTheDefault) {
  // The default's limit is below cart's own request: the check of the
  // merged service reports it, at the line the limit came from.
  const std::string error = load_error(with_defaults("      cpu: {limit: 100m}\n",
                                                     "      - name: cart\n"
                                                     "        cpu: {request: 200m}\n"
                                                     "        replicas: [{zone: eu-west-1a, replicas: 1}]\n"));
  EXPECT_NE(error.find("spec.topology.services[0].cpu"), std::string::npos) << error;
  EXPECT_TRUE(error.starts_with("<text>:17:") || error.starts_with("<text>:20:")) << error;
}

TEST(ServiceDefaults, OverridesReachTheDefaults) {
  const Scenario s = load_scenario_text(with_defaults("      concurrency: 8\n", kTwoServices),
                                        {"spec.topology.serviceDefaults.concurrency=12"});
  EXPECT_EQ(service(s, "front").concurrency, 12u);
  EXPECT_EQ(service(s, "cart").concurrency, 2u);
  // An override of one service's key still wins over its default.
  const Scenario t = load_scenario_text(with_defaults("      concurrency: 8\n", kTwoServices),
                                        {"spec.topology.services[front].concurrency=3"});
  EXPECT_EQ(service(t, "front").concurrency, 3u);
}

TEST(ServiceDefaults, InATopologyFile) {
  const Scenario s = load_scenario_file("tests/data/scenarios/good/service_defaults_file.yaml");
  EXPECT_EQ(service(s, "front").concurrency, 6u);
  EXPECT_EQ(service(s, "cart").concurrency, 6u);
  EXPECT_EQ(service(s, "cart").zone_failure, "refuse");
  const std::string error = testing::error_of([] {
    load_scenario_file("tests/data/scenarios/good/service_defaults_file.yaml",
                       {"spec.topology.serviceDefaults.concurrency=0"});
  });
  EXPECT_EQ(error,
            "--set spec.topology.serviceDefaults.concurrency=0:1:1: spec.serviceDefaults.concurrency: expected a "
            "positive unsigned integer, got \"0\"");
}

TEST(ServiceDefaults, TheResolvedScenarioSpellsEachServiceOut) {
  const Scenario s = load_scenario_text(with_defaults("      concurrency: 8\n", kTwoServices));
  const std::string yaml = to_yaml(s);
  EXPECT_EQ(yaml.find("serviceDefaults"), std::string::npos);
  const Scenario again = load_scenario_text(yaml);
  EXPECT_EQ(service(again, "front").concurrency, 8u);
  EXPECT_EQ(service(again, "cart").concurrency, 2u);
}

}  // namespace
}  // namespace drsim
