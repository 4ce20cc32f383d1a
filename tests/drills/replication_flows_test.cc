// Network fidelity in scenarios: replication as flows through SimGrid,
// compared with the closed-form transport, and a bulk copy that competes
// with a replication stream for the north-east line
// (scenarios/replication_under_bulk_copy.yaml). Expected figures come from
// the write rate, the write size and the link rate; nothing is fitted.
// Figures are printed with a [figures] prefix.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>

#include "io/run.h"
#include "io/scenario_loader.h"
#include "sim/simgrid/simgrid_flow_network.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::mean;
using test_support::kpi;
using test_support::range;
using test_support::series;

const Labels kDb{{"database", "payments-db"}};
const Labels kEastStream{{"database", "payments-db"}, {"member", "1"}, {"zone", "east-a"}};

// The database of both scenarios: 2,000 writes/s of 4 KiB, replica in east
// 14.5 ms one way (half of 28 ms, and a quarter of the default 1 ms
// inter-zone RTT at each end), 1 ms apply time.
constexpr double kWriteRate = 2000;
constexpr double kWriteBits = 4096 * 8;
constexpr double kDemandBps = kWriteRate * kWriteBits;  // 65.5 Mbit/s
constexpr double kOneWay = 0.0145;
constexpr double kApply = 0.001;
// SimGrid puts 5% of a flow's rate on its reverse route (the ACKs); drsim's
// links carry both directions, so n equal flows get B / (1.05 n) each.
constexpr double kCrossTraffic = 1.05;

// A stop-and-wait stream (flow_replication_transport.h) using a fraction rho
// of what it gets sends a batch every cycle = latency / (1 - rho); the
// replica is between one and two cycles (plus the apply time) behind.
struct LagBounds {
  double low, high;  // writes
};
LagBounds batch_lag(double stream_bps) {
  const double cycle = kOneWay / (1 - kDemandBps / stream_bps);
  return {kWriteRate * cycle - 2, kWriteRate * (2 * cycle + kApply) + 2};
}

TEST(NetworkFidelity, AClosedFormScenarioNeverStartsSimGrid) {
  const std::uint64_t before = SimGridFlowNetwork::engines_created();
  const RunResult run = run_scenario(load_scenario_file("scenarios/three_region_database_failover.yaml"));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  EXPECT_EQ(SimGridFlowNetwork::engines_created(), before);
  EXPECT_EQ(run.recorder().find_kpi("database.rpo_writes", kDb)->value, 56919);  // the run did run
  EXPECT_EQ(run.recorder().find_kpi("flow.bytes_total", kEastStream), nullptr);  // and had no flows
}

// (a) Without competition: the closed-form drill's own comparison run (the
// north-east line at 10 Gbit/s from 3 min), in both modes. Closed form: one
// one-way delay + apply of writes, 31. Flows: the batch cycle is one
// latency (bytes are negligible at 10 Gbit/s), so one to two latencies.
TEST(NetworkFidelity, WithoutCompetitionTheFlowRpoIsCloseToTheClosedForm) {
  const std::vector<std::string> fast{"spec.timeline[north-east-degraded].bandwidth=10Gbps"};
  std::vector<std::string> fast_flows = fast;
  fast_flows.push_back("spec.network.fidelity=flows");
  const std::uint64_t engines = SimGridFlowNetwork::engines_created();
  const RunResult closed = run_scenario(load_scenario_file("scenarios/three_region_database_failover.yaml", fast));
  const RunResult flows = run_scenario(load_scenario_file("scenarios/three_region_database_failover.yaml", fast_flows));
  EXPECT_EQ(SimGridFlowNetwork::engines_created(), engines + 1);
  const double rpo_closed = kpi(closed.recorder(), "database.rpo_writes", kDb);
  const double rpo_flows = kpi(flows.recorder(), "database.rpo_writes", kDb);
  const LagBounds bounds = batch_lag(10e9 / kCrossTraffic);
  std::printf("[figures] RPO without competition: closed form %.0f writes, flows %.0f writes (bounds %.0f..%.0f)\n",
              rpo_closed, rpo_flows, bounds.low, bounds.high);
  EXPECT_NEAR(rpo_closed, kWriteRate * (kOneWay + kApply), 2);
  EXPECT_GE(rpo_flows, bounds.low);
  EXPECT_LE(rpo_flows, bounds.high);
  EXPECT_LT(rpo_flows, 2 * rpo_closed);  // a few tens of writes either way
  EXPECT_DOUBLE_EQ(kpi(flows.recorder(), "database.rto_seconds", kDb), 25);
}

// link:degrade reaches SimGrid: the closed-form drill as it stands (the
// north-east line down to 50 Mbit/s from 3 min to the loss at 5 min) in
// network-fidelity mode. The stream alone on the line gets 50 / 1.05 = 47.6
// Mbit/s of the 65.5 it needs: the same bounds as the bulk copy's below.
// Closed form: 56,919 writes (the stream drained at 50 Mbit/s).
TEST(NetworkFidelity, ALinkDegradationReachesTheFlows) {
  const RunResult run = run_scenario(
      load_scenario_file("scenarios/three_region_database_failover.yaml", {"spec.network.fidelity=flows"}));
  const double r = 50e6 / kCrossTraffic;
  const double fluid = (1 - r / kDemandBps) * kWriteRate * 120;
  const double batched = (1 - (r / kDemandBps) * (r / kDemandBps)) * kWriteRate * 120;
  const double rpo = kpi(run.recorder(), "database.rpo_writes", kDb);
  std::printf("[figures] degraded to 50 Mbit/s, flows: RPO %.0f writes (fluid %.0f, with the batch in flight %.0f)\n",
              rpo, fluid, batched);
  EXPECT_GE(rpo, fluid);
  EXPECT_LE(rpo, batched + batch_lag(100e6 / kCrossTraffic).high);
  const auto stream = series(run.recorder(), "flow.bytes", kEastStream);
  EXPECT_NEAR(mean(stream, 200s, 300s) * 8, r, 0.01 * r);
}

// (b) The drill: a 50 GiB copy from north to east from 3 min, north lost at
// 5 min. The copy and east's stream each get B / 2.1 of the 100 Mbit/s line
// (47.6 Mbit/s) while the stream needs 65.5: its backlog grows at the
// difference. The replica applies whole batches, so at any instant it is
// behind by between the fluid backlog (what has not crossed the line yet)
// and that plus the batch in flight: with q = demand / share, between
// (1 - 1/q) and (1 - 1/q^2) of the writes of the 120 s (see the header of
// flow_replication_transport.h).
TEST(NetworkFidelity, ABulkCopyOnTheLineRaisesTheRpoByItsShareOfTheBandwidth) {
  const RunResult with_copy = run_scenario(load_scenario_file("scenarios/replication_under_bulk_copy.yaml"));
  const RunResult without = run_scenario(
      load_scenario_file("scenarios/replication_under_bulk_copy.yaml", {"spec.timeline[backup-copy].at=6m"}));
  ASSERT_EQ(with_copy.outcome.reason, StopReason::kHorizon);
  ASSERT_EQ(without.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = with_copy.recorder();

  const double line_bps = 100e6;
  const double share_bps = line_bps / (2 * kCrossTraffic);
  const double q = kDemandBps / share_bps;
  const double competing_s = 120;
  const double fluid = (1 - 1 / q) * kWriteRate * competing_s;
  const double batched = (1 - 1 / (q * q)) * kWriteRate * competing_s;
  const double rpo = kpi(rec, "database.rpo_writes", kDb);
  const double rpo_alone = kpi(without.recorder(), "database.rpo_writes", kDb);
  const LagBounds alone = batch_lag(line_bps / kCrossTraffic);
  std::printf(
      "[figures] RPO with the copy %.0f writes (%.3f s; fluid %.0f, with the batch in flight %.0f), "
      "without %.0f writes (bounds %.0f..%.0f)\n",
      rpo, kpi(rec, "database.rpo_seconds", kDb), fluid, batched, rpo_alone, alone.low, alone.high);
  EXPECT_GE(rpo_alone, alone.low);
  EXPECT_LE(rpo_alone, alone.high);
  EXPECT_GE(rpo, fluid);
  EXPECT_LE(rpo, batched + alone.high);
  EXPECT_DOUBLE_EQ(kpi(rec, "database.rto_seconds", kDb), 25);

  // Half the line each while the copy runs; the stream alone before it.
  const auto stream = series(rec, "flow.bytes", kEastStream);
  const auto copy = series(rec, "flow.bytes", {{"transfer", "backup-copy"}});
  const double stream_before = mean(stream, 60s, 180s) * 8;
  const double stream_during = mean(stream, 200s, 300s) * 8;
  const double copy_during = mean(copy, 200s, 300s) * 8;
  std::printf("[figures] east's stream %.3f Mbit/s before the copy, %.3f during; the copy %.3f Mbit/s\n",
              stream_before / 1e6, stream_during / 1e6, copy_during / 1e6);
  EXPECT_NEAR(stream_before, kDemandBps, 0.01 * kDemandBps);
  EXPECT_NEAR(stream_during, share_bps, 0.01 * share_bps);
  EXPECT_NEAR(copy_during, share_bps, 0.01 * share_bps);
  const auto flows_on_line = series(rec, "link.flows", {{"link", "north-east"}});
  EXPECT_GT(range(flows_on_line, 200s, 300s).min, 1.9);
  EXPECT_LE(range(flows_on_line, 60s, 180s).max, 1.0);

  // The lag grows from the copy on.
  const auto lag = series(rec, "database.replication_lag_s", kEastStream);
  const auto lag_alone = series(without.recorder(), "database.replication_lag_s", kEastStream);
  EXPECT_LT(range(lag, 60s, 180s).max, 0.2);
  EXPECT_LT(range(lag_alone, 60s, 300s).max, 0.2);
  EXPECT_GT(range(lag, 290s, 300s).min, (1 - 1 / q) * 110);

  // The copy is cut by the loss of north, with what it had sent.
  EXPECT_EQ(kpi(rec, "transfer.completed", {{"transfer", "backup-copy"}}), 0);
  const double sent = kpi(rec, "transfer.bytes_sent", {{"transfer", "backup-copy"}});
  EXPECT_NEAR(sent * 8, share_bps * competing_s, 0.01 * share_bps * competing_s);
  const auto& events = rec.events();
  std::vector<std::pair<std::int64_t, std::string>> transfer_events;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events.kind[i].starts_with("transfer.")) transfer_events.emplace_back(events.t_ns[i], events.kind[i]);
  }
  ASSERT_EQ(transfer_events.size(), 2u);
  EXPECT_EQ(transfer_events[0], std::make_pair(to_ns(180s), std::string("transfer.started")));
  EXPECT_EQ(transfer_events[1], std::make_pair(to_ns(300s), std::string("transfer.failed")));
}

// A copy small enough to finish: it takes between size / (B / 1.05) (the
// line to itself) and size / (B / 2.1) + latency (half of it throughout).
TEST(NetworkFidelity, ACompletedTransferRecordsItsDuration) {
  const RunResult run = run_scenario(
      load_scenario_file("scenarios/replication_under_bulk_copy.yaml", {"spec.timeline[backup-copy].size=200MiB"}));
  const Recorder& rec = run.recorder();
  const Labels copy{{"transfer", "backup-copy"}};
  const double bits = 200.0 * 1024 * 1024 * 8;
  const double seconds = kpi(rec, "transfer.seconds", copy);
  std::printf("[figures] 200 MiB copy next to the stream: %.3f s (bounds %.3f..%.3f)\n", seconds,
              bits / (100e6 / kCrossTraffic), bits / (100e6 / (2 * kCrossTraffic)) + kOneWay);
  EXPECT_EQ(kpi(rec, "transfer.completed", copy), 1);
  EXPECT_GE(seconds, bits / (100e6 / kCrossTraffic));
  EXPECT_LE(seconds, bits / (100e6 / (2 * kCrossTraffic)) + kOneWay);
  EXPECT_EQ(kpi(rec, "transfer.bytes_sent", copy), 200.0 * 1024 * 1024);
  bool completed = false;
  for (const std::string& k : rec.events().kind) completed |= k == "transfer.completed";
  EXPECT_TRUE(completed);
}

// Guards stop a network-fidelity run inside SimGrid's actor; the run still
// reports what it has (components flush and write their KPIs).
TEST(NetworkFidelity, AGuardStopsAFlowRunAndItStillReports) {
  const RunResult run =
      run_scenario(load_scenario_file("scenarios/replication_under_bulk_copy.yaml", {"spec.guards.maxEvents=1500000"}));
  EXPECT_EQ(run.outcome.reason, StopReason::kMaxEvents);
  EXPECT_EQ(run.outcome.events, 1'500'000u);
  EXPECT_LT(run.outcome.end_time, at(8min));
  const Recorder& rec = run.recorder();
  EXPECT_GT(kpi(rec, "database.commits", kDb), 0);
  EXPECT_GT(kpi(rec, "flow.bytes_total", kEastStream), 0);
  EXPECT_GT(kpi(rec, "transfer.bytes_sent", {{"transfer", "backup-copy"}}), 0);
  std::printf("[figures] maxEvents 1,500,000 stopped the run at t = %.3f s\n", to_seconds(run.outcome.end_time));
}

// Bit for bit (NaN, an unset KPI, included).
bool same_bits(double x, double y) { return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y); }

// Same seed, same figures: a second network-fidelity run in the same process
// (SimGrid's clock does not restart with a new engine) gives every KPI and
// series point again, bit for bit.
TEST(NetworkFidelity, SameSeedSameFiguresInOneProcess) {
  RunOptions options;
  options.until = 200s;  // the copy runs from 180 s
  const Scenario scenario = load_scenario_file("scenarios/replication_under_bulk_copy.yaml");
  const RunResult a = run_scenario(scenario, options);
  const RunResult b = run_scenario(scenario, options);
  ASSERT_EQ(a.recorder().kpis().size(), b.recorder().kpis().size());
  for (std::size_t i = 0; i < a.recorder().kpis().size(); ++i) {
    EXPECT_EQ(a.recorder().kpis()[i].name, b.recorder().kpis()[i].name);
    EXPECT_TRUE(same_bits(a.recorder().kpis()[i].value, b.recorder().kpis()[i].value)) << a.recorder().kpis()[i].name;
  }
  ASSERT_EQ(a.recorder().series_list().size(), b.recorder().series_list().size());
  for (std::size_t i = 0; i < a.recorder().series_list().size(); ++i) {
    EXPECT_EQ(a.recorder().series_list()[i].t_ns, b.recorder().series_list()[i].t_ns);
    const auto& va = a.recorder().series_list()[i].value;
    const auto& vb = b.recorder().series_list()[i].value;
    ASSERT_EQ(va.size(), vb.size());
    for (std::size_t j = 0; j < va.size(); ++j) {
      EXPECT_TRUE(same_bits(va[j], vb[j])) << a.recorder().series_list()[i].metric << " point " << j;
    }
  }
  EXPECT_GT(kpi(a.recorder(), "transfer.bytes_sent", {{"transfer", "backup-copy"}}), 0);
}

}  // namespace
}  // namespace drsim
