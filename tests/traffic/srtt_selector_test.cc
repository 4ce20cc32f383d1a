// BIND's smoothed-RTT server selection as documented (NS1, "SRTT and
// Recursive DNS Resolvers", after Yu et al. 2012; BIND 8's ALPHA 0.7 and
// GAMMA 0.98 quoted on bind-users): the update rules exactly, and the closed
// form for when a penalised server is tried again.
#include "models/traffic/srtt_selector.h"

#include <gtest/gtest.h>

#include <cmath>

namespace drsim {
namespace {

using namespace std::chrono_literals;

TEST(SrttSelector, StartsEveryServerAtASmallRandomSrtt) {
  RngStream rng(5, "srtt");
  SrttSelector s(4, SrttParameters{}, rng);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_GE(s.srtt_s(i), 0.001);
    EXPECT_LE(s.srtt_s(i), 0.032);
  }
}

TEST(SrttSelector, AnAnswerKeepsSeventyPercentOfTheOldSrttAndTheOthersDecay) {
  RngStream rng(5, "srtt");
  SrttSelector s(2, SrttParameters{}, rng);
  const double a = s.srtt_s(0), b = s.srtt_s(1);
  s.answered(0, 100ms);
  EXPECT_NEAR(s.srtt_s(0), 0.7 * a + 0.3 * 0.100, 1e-12);
  EXPECT_NEAR(s.srtt_s(1), 0.98 * b, 1e-12);
}

TEST(SrttSelector, ATimeoutAddsThePenaltyUpToTheCap) {
  RngStream rng(5, "srtt");
  SrttSelector s(2, SrttParameters{}, rng);
  const double a = s.srtt_s(0);
  s.timed_out(0);
  EXPECT_NEAR(s.srtt_s(0), a + 0.200, 1e-12);
  for (int i = 0; i < 10; ++i) s.timed_out(0);
  EXPECT_NEAR(s.srtt_s(0), 1.0, 1e-12) << "capped at 1 s";
  EXPECT_EQ(s.order().front(), 1u) << "the other server is preferred";
}

TEST(SrttSelector, APenalisedServerIsTriedAgainAfterTheDecayHasBroughtItBelowTheOther) {
  // Server 0 times out once; server 1 answers every query in 30 ms. Server
  // 1's SRTT converges to 30 ms (geometrically, x0.7 per answer); server 0's
  // decays x0.98 per query, so it is first again after about
  // ln(0.030 / srtt0) / ln(0.98) queries.
  RngStream rng(9, "srtt");
  SrttSelector s(2, SrttParameters{}, rng);
  s.timed_out(0);
  const double penalised = s.srtt_s(0);
  int queries = 0;
  while (s.order().front() == 1) {
    s.answered(1, 30ms);
    ++queries;
    ASSERT_LT(queries, 10000);
  }
  const double closed_form = std::log(0.030 / penalised) / std::log(0.98);
  EXPECT_NEAR(queries, closed_form, 3) << "penalised SRTT " << penalised;
  std::printf("penalised SRTT %.3f s: retried after %d queries (closed form %.1f)\n", penalised, queries,
              closed_form);
}

}  // namespace
}  // namespace drsim
