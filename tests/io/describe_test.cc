#include <gtest/gtest.h>

#include "tests/io/test_support.h"

namespace drsim {
namespace {

TEST(Describe, SummarizesTheResolvedScenario) {
  const Scenario s = load_scenario_file("tests/data/scenarios/good/startafter_chain.yaml", {"spec.seed=3"});
  EXPECT_EQ(describe(s), R"(Scenario cascade
  A zone fails, the link degrades after it, then is cut; the region recovers last.
  from tests/data/scenarios/good/startafter_chain.yaml
  --set spec.seed=3
  runs 3h of simulated time, seed 3
  guards: maxEvents 0, maxWallTime 0s, maxEventsPerInstant 10000000, maxMemory 0B, maxEventRate 10000000

Topology (inline): 2 regions, 3 zones, 1 link
  region eu-west-1: eu-west-1a, eu-west-1b (inter-zone rtt 1ms)
  region us-east-1: us-east-1a (inter-zone rtt 1ms)
  link eu-us: eu-west-1 <-> us-east-1, rtt 80ms, jitter 0s, bandwidth 10Gbps, loss 0%

Timeline (6 actions, by start time):
  00:10:00  00:30:00  fail-a: zone:fail zone eu-west-1a for 20m
  00:31:00  02:01:00  degrade: link:degrade link eu-us (latency 50ms, loss 1%, bandwidth 1Gbps) for 1h30m, after fail-a + 1m
  01:00:00            region-down: region:fail region us-east-1
  02:01:00  02:06:00  cut: link:cut link eu-us for 5m, after degrade
  02:06:00            restore: link:restore link eu-us, after cut
  02:06:30            recover: region:recover region us-east-1, after region-down and cut + 30s
)");
}

TEST(Describe, NamesTheTopologyFile) {
  const Scenario s = load_scenario_file("tests/data/scenarios/good/topology_file.yaml");
  const std::string text = describe(s);
  EXPECT_NE(text.find("Topology (tests/data/topologies/two_regions.yaml): 2 regions, 6 zones, 1 link\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  region us-east-1: us-east-1a, us-east-1b, us-east-1c (inter-zone rtt 800us)\n"),
            std::string::npos)
      << text;
}

// Network fidelity shows in the header; closed-form runs (above) say nothing.
TEST(Describe, SaysWhenTheRunIsNetworkFidelity) {
  const Scenario s = load_scenario_file("scenarios/replication_under_bulk_copy.yaml");
  const std::string text = describe(s);
  EXPECT_NE(text.find("  network: fidelity flows, flowModel CM02, zoneLinkBandwidth 0.1Tbps, tcpWindow 4MiB\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("backup-copy: flow:transfer zone north-a (to east-a, size 50GiB)"), std::string::npos) << text;
}

// For each zone loss, the path by which each affected service's callers find out, with the bounds its settings
// imply (models/kube/node_lifecycle_bounds.h, models/service/load_balancer_bounds.h).
TEST(Describe, GivesEachZoneLossItsDetectionChain) {
  const std::string kube = describe(load_scenario_file("scenarios/az_failure_hpa_trap.yaml"));
  EXPECT_NE(kube.find("      detection: api (kubernetes): its callers keep sending to the lost pods for more than 40s "
                      "and at most 1m1s: NotReady at a look (every 5s) more than 50s after the last Lease renewal "
                      "seen (every 10s), then kube-proxy (minSyncPeriod 1s)\n"),
            std::string::npos)
      << kube;
  // Outside Kubernetes a service sits behind a cloud load balancer unless it says otherwise.
  const std::string lb = describe(load_scenario_file("scenarios/default.yaml"));
  EXPECT_NE(lb.find("      detection: payments (loadBalancer): its cross-zone balancer sends to the lost pods for "
                    "more than 35s and at most 1m5s (2 failed checks, every 30s, timeout 5s); its DNS drops the lost "
                    "zone's node after more than 24s and at most 34s (3 failed node checks, every 10s), and callers "
                    "hold the address up to 1m more (TTL)\n"),
            std::string::npos)
      << lb;
  const std::string oracle = describe(
      load_scenario_file("scenarios/default.yaml", {"spec.topology.services[payments].discovery=oracle"}));
  EXPECT_NE(oracle.find("(oracle): its callers drop the lost pods at once; no detection is modelled\n"),
            std::string::npos)
      << oracle;
  // Through sidecars: each part with its settings (Istio's for checkout, Envoy's for payments).
  const std::string mesh = describe(load_scenario_file("scenarios/az_failure_mesh.yaml"));
  EXPECT_NE(mesh.find("      detection: checkout (mesh): its callers' sidecars each find out on their own. Locality "
                      "failover: a caller whose own zone still has enough healthy pods (healthy x 1.4 >= all) never "
                      "sends to the lost ones. Outlier detection ejects a lost pod after 5 failures in a row of one "
                      "sidecar's requests; a failure shows no sooner than the route timeout (none) on a kept "
                      "connection or the connect timeout (10s) on a new one"),
            std::string::npos)
      << mesh;
  EXPECT_NE(mesh.find("Kubernetes unlists it after more than 40s and at most 1m0.1s (NotReady, then istiod's push "
                      "after 100ms)\n"),
            std::string::npos)
      << mesh;
  // Over gRPC channels without keepalive: the kernel's give-up bounds a connection to a lost pod.
  const std::string grpc = describe(load_scenario_file("scenarios/az_failure_mesh.yaml",
                                                       {"spec.topology.services[frontend].discovery=grpc"}));
  EXPECT_NE(grpc.find("      detection: frontend (grpc): its callers' channels keep their connections to the lost "
                      "pods until one breaks: after 15m24.6s of unacknowledged calls (tcp_retries2); every call sent "
                      "on such a connection fails at its own deadline."),
            std::string::npos)
      << grpc;
}

}  // namespace
}  // namespace drsim

namespace drsim {
namespace {

TEST(DescribeWorkload, ListsServerModelsOperationsAndTheMix) {
  const Scenario s = load_scenario_file("scenarios/online_boutique_zone_loss.yaml");
  const std::string text = describe(s);
  EXPECT_NE(text.find("  service frontend: 3 pods in 3 zones, event loop of 2 threads, maxInFlight 100000, queueLimit "
                      "unbounded"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    operations: home, product, setCurrency, addToCart, viewCart, placeOrder\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  service email: 3 pods in 3 zones, concurrency 10, queueLimit unbounded"), std::string::npos)
      << text;
  // Weights 1, 2, 13, 3, 3, 1 of 23.
  EXPECT_NE(text.find("    mix: home 4.3%, setCurrency 8.7%, product 56.5%, addToCart 13.0%, viewCart 13.0%, "
                      "placeOrder 4.3%\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace drsim
