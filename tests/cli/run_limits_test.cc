// What used to crash, hang or grow without bound (issue 15's measurements),
// run through the real `drsim` binary: each is refused before the run with
// exit 2 and the setting to change, or stopped by a guard with exit 4 and
// its results so far. Never exit 1, never std::bad_alloc.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/cli/cli_test_support.h"
#include "tests/cli/drsim_process.h"

namespace drsim {
namespace {

using testing::Completed;
using testing::run_drsim;
using testing::TempDir;

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---- refused before the run: exit 2, the place to change, the estimate

TEST(RunLimits, TinyMetricsWindowIsRefusedWithTheEstimate) {
  // A point per series every microsecond for 2 hours.
  const Completed c = run_drsim("run scenarios/default.yaml --quiet --set spec.metricsWindow=1us --out /tmp/unused");
  EXPECT_EQ(c.exit_code, 2) << c.err;
  // Blamed on the value that made it so: here the override.
  EXPECT_TRUE(Contains(c.err, "--set spec.metricsWindow=1us:1:1: spec.metricsWindow: the run would need about"))
      << c.err;
  EXPECT_TRUE(Contains(c.err, "lengthen spec.metricsWindow (1us)")) << c.err;
  EXPECT_TRUE(Contains(c.err, "raise spec.guards.maxMemory")) << c.err;
}

TEST(RunLimits, AOneNanosecondWindowIsRefusedBeforeTheWallClockMatters) {
  // Used to run past maxWallTime 5s and end in std::bad_alloc at 10 s.
  const Completed c = run_drsim(
      "run scenarios/default.yaml --quiet --set spec.metricsWindow=1ns --set spec.guards.maxWallTime=5s "
      "--out /tmp/unused");
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_TRUE(Contains(c.err, "spec.metricsWindow: the run would need about")) << c.err;
}

TEST(RunLimits, TenYearsWithoutLoadIsRefused) {
  const Completed c = run_drsim("run scenarios/readme_example.yaml --quiet --until 3650d --out /tmp/unused");
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_TRUE(Contains(c.err, "windows")) << c.err;
  EXPECT_TRUE(Contains(c.err, "shorten the run")) << c.err;
}

TEST(RunLimits, BillionsOfReplicasAreRefusedNotAllocated) {
  const Completed c = run_drsim(
      "run scenarios/default.yaml --quiet --set spec.topology.services[0].replicas[0].replicas=2147483648 "
      "--out /tmp/unused");
  EXPECT_EQ(c.exit_code, 2) << c.err;
  // The service lives in the scenario's topology file: the message points there.
  EXPECT_TRUE(Contains(c.err, "topologies/three_region_unit.yaml:")) << c.err;
  EXPECT_TRUE(Contains(c.err, "spec.services[0].concurrency: service \"payments\" would run")) << c.err;
  EXPECT_TRUE(Contains(c.err, "(2147483672 pods x 8)")) << c.err;
}

TEST(RunLimits, HugeConcurrencyIsRefusedNotAllocated) {
  const Completed c = run_drsim(
      "run scenarios/default.yaml --quiet --set spec.topology.services[0].concurrency=2147483648 --out /tmp/unused");
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_TRUE(Contains(c.err, "spec.topology.services[0].concurrency")) << c.err;
  EXPECT_TRUE(Contains(c.err, "lower its replicas or concurrency")) << c.err;
}

TEST(RunLimits, TenMillionPodsWithPodMetricsAreRefused) {
  const Completed c = run_drsim(
      "run scenarios/default.yaml --quiet --set spec.podMetrics=true "
      "--set spec.topology.services[0].replicas[0].replicas=10000000 --out /tmp/unused");
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_TRUE(Contains(c.err, "turn off spec.podMetrics")) << c.err;
}

TEST(RunLimits, AnExplicitMemoryLimitIsNamedInTheRefusal) {
  const Completed c =
      run_drsim("run scenarios/default.yaml --quiet --set spec.guards.maxMemory=1KiB --out /tmp/unused");
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_TRUE(Contains(c.err, "above spec.guards.maxMemory (1.0 KiB)")) << c.err;
}

TEST(RunLimits, TimelineTimesBeyondTheClockAreRefusedAtLoad) {
  const Completed c = run_drsim("validate scenarios/readme_example.yaml --set spec.timeline[lose-a].at=100000d");
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_TRUE(Contains(c.err, "expected a duration of at most 20000d")) << c.err;
}

TEST(RunLimits, AHorizonBeyondTheClockIsRefused) {
  // With windows long enough for the estimate to pass, the clock itself is the limit.
  const Completed c = run_drsim(
      "run scenarios/readme_example.yaml --quiet --until 100000d --set spec.metricsWindow=20000d --out /tmp/unused");
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_TRUE(Contains(c.err, "--until: expected a duration of at most 20000d, got \"100000d\"")) << c.err;
}

// ---- stopped by a guard: exit 4, results written

TEST(RunLimits, AnArrivalStormIsStoppedByTheEventRate) {
  TempDir dir("limits-storm");
  // 10^19 requests a second: time advances a nanosecond or less per event,
  // so maxEventsPerInstant never fires.
  const Completed c =
      run_drsim("run scenarios/default.yaml --quiet --set spec.load[0].load.rate=10000000000000000000rps --out " +
                dir.path().string());
  EXPECT_EQ(c.exit_code, 4) << c.err;
  EXPECT_TRUE(Contains(c.err, "maxEventRate")) << c.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "timeseries.csv"));
}

TEST(RunLimits, ABackupRecordRefreshedEveryTenNanosecondsIsAStorm) {
  TempDir dir("limits-ttl");
  const Completed c =
      run_drsim("run scenarios/website_dns_cdn.yaml --quiet --set spec.load[0].cdn.backup.recordTtl=10ns --out " +
                dir.path().string());
  EXPECT_EQ(c.exit_code, 4) << c.err;
  EXPECT_TRUE(Contains(c.err, "maxEventRate")) << c.err;
}

TEST(RunLimits, PoolHousekeepingEveryThirtyNanosecondsIsAStorm) {
  TempDir dir("limits-housekeeping");
  const Completed c = run_drsim(
      "run scenarios/three_region_pool_pileup.yaml --quiet "
      "--set spec.topology.services[0].calls[0].pool.housekeepingPeriod=30ns --out " +
      dir.path().string());
  EXPECT_EQ(c.exit_code, 4) << c.err;
  EXPECT_TRUE(Contains(c.err, "maxEventRate")) << c.err;
}

TEST(RunLimits, AnUnboundedQueueIsStoppedByMaxMemory) {
  TempDir dir("limits-queue");
  const Completed c =
      run_drsim("run tests/data/scenarios/limits/unbounded_queue.yaml --quiet --out " + dir.path().string());
  EXPECT_EQ(c.exit_code, 4) << c.err;
  EXPECT_TRUE(Contains(c.err, "guard maxMemory (150.0 MiB) stopped the run")) << c.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "timeseries.csv"));
}

}  // namespace
}  // namespace drsim
