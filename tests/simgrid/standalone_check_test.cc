// Check (a): a flow run through drsim's network-fidelity loop takes exactly
// as long as the same transfer in a plain SimGrid program on the same
// platform, and both match the closed form of SimGrid 3.32's default model.
//
// SimGrid 3.32's defaults (network/model LV08, src/kernel/resource/models/
// network_cm02.cpp; the Debian library's option text says "slow-start
// modeled by multiplying latency by 13.01, bandwidth by .97; bottleneck
// sharing uses a payload of S=20537"):
//   network/latency-factor   13.01   the route latency is paid 13.01 times
//                                     (TCP slow start, fitted by Velho et al.)
//   network/bandwidth-factor 0.97    payload share of the bandwidth (headers)
//   network/weight-S         20537   bytes; adds S / bandwidth per link to a
//                                     flow's sharing penalty (RTT-unfairness),
//                                     irrelevant for equal flows
//   network/TCP-gamma        4194304 bytes, the largest TCP window: a flow's
//                                     rate is capped at gamma / (2 x latency)
//   network/crosstraffic     true    a flow also uses 5% of its rate on its
//                                     reverse route (ACKs); drsim's links are
//                                     SHARED (both directions share capacity),
//                                     so a saturated link gives B / 1.05
// so one flow alone takes 13.01 L + S / (0.97 min(B / 1.05, gamma / 2L)),
// L the one-way route latency, B the bottleneck in bytes/s, S the size.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <simgrid/s4u.hpp>

#include "sim/simgrid/engine_lease.h"
#include "sim/simgrid/platform_builder.h"
#include "tests/simgrid/flow_fixture.h"

namespace drsim {
namespace {

namespace sg4 = simgrid::s4u;
using namespace std::chrono_literals;

// A plain SimGrid program: one actor sends `bytes` from host 0 to host 1.
double standalone_seconds(const FlowPlatform& platform, std::uint64_t bytes) {
  simgrid_backend::EngineLease lease;
  const simgrid_backend::BuiltPlatform built = simgrid_backend::build_platform(platform);
  double start = 0;
  double end = 0;
  sg4::Actor::create("sender", built.hosts[0], [&] {
    start = sg4::Engine::get_clock();
    sg4::Comm::sendto(built.hosts[0], built.hosts[1], bytes);
    end = sg4::Engine::get_clock();
  });
  lease.engine().run();
  return end - start;
}

void check_against_standalone(const char* what, Bandwidth link, std::int64_t bytes, double bottleneck) {
  const FlowPlatform platform = testing::two_region_platform(link);
  const double standalone = standalone_seconds(platform, static_cast<std::uint64_t>(bytes));
  const FlowOutcome flow = testing::run_one_flow(platform, bytes, at(250ms));
  ASSERT_TRUE(flow.completed);
  const std::int64_t drsim_ns = to_ns(flow.finished - flow.started);
  const double closed = testing::lv08_seconds(0.0145, bottleneck, static_cast<double>(bytes));
  std::printf("[figures] %s: drsim %lld ns, SimGrid standalone %.9f s, closed form %.9f s\n", what,
              static_cast<long long>(drsim_ns), standalone, closed);
  EXPECT_LE(std::llabs(drsim_ns - std::llround(standalone * 1e9)), 1) << what;
  EXPECT_NEAR(standalone, closed, 1e-9) << what;
  EXPECT_EQ(flow.bytes_remaining, 0);
}

TEST(SimGridStandaloneCheck, BandwidthBoundFlowMatchesStandaloneAndClosedForm) {
  // 1 Gbps link: 125 MB/s bottleneck, below the window bound.
  check_against_standalone("100 MB over 1 Gbps, 28 ms RTT", Bandwidth{1e9}, 100'000'000, 125e6);
}

TEST(SimGridStandaloneCheck, WindowBoundFlowMatchesStandaloneAndClosedForm) {
  // 10 Gbps link: the TCP window caps the flow at 4 MiB / 29 ms = 144.6 MB/s.
  check_against_standalone("1 GB over 10 Gbps, 28 ms RTT", Bandwidth{10e9}, 1'000'000'000, 1.25e9);
}

TEST(SimGridStandaloneCheck, RepeatedRunsInOneProcessAgree) {
  // SimGrid's clock does not restart at zero with a new engine: the anchor
  // must absorb it, so a second and third run give the same nanoseconds.
  const FlowPlatform platform = testing::two_region_platform();
  const FlowOutcome first = testing::run_one_flow(platform, 10'000'000);
  const FlowOutcome second = testing::run_one_flow(platform, 10'000'000);
  const FlowOutcome third = testing::run_one_flow(platform, 10'000'000, at(3h));
  EXPECT_EQ(first.finished - first.started, second.finished - second.started);
  EXPECT_LE(std::llabs(to_ns(third.finished - third.started) - to_ns(first.finished - first.started)), 1);
}

}  // namespace
}  // namespace drsim
