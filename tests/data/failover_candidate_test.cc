// The promotion rule that Database and drsim check share (models/data/failover_candidate.h).
#include "models/data/failover_candidate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <vector>

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Two regions: r1 with a1, a2; r2 with b1, b2.
Topology two_regions() {
  TopologyConfig t;
  t.regions = {RegionConfig{"r1", {ZoneConfig{"a1"}, ZoneConfig{"a2"}}, 1ms},
               RegionConfig{"r2", {ZoneConfig{"b1"}, ZoneConfig{"b2"}}, 1ms}};
  LinkConfig l;
  l.name = "r1-r2";
  l.between = {"r1", "r2"};
  l.rtt = 20ms;
  t.links = {l};
  return Topology(t);
}

struct Case {
  Topology topology = two_regions();
  std::vector<ZoneIndex> zones;  // member m's zone
  std::vector<bool> seen;
  std::vector<int> position;  // applied log position: higher is more up to date
  DatabaseConfig config;

  explicit Case(std::vector<const char*> member_zones) {
    for (const char* z : member_zones) zones.push_back(*topology.find_zone(z));
    seen.assign(zones.size(), true);
    position.assign(zones.size(), 0);
  }
  std::optional<std::size_t> pick(std::size_t lost = 0) const {
    return pick_failover_candidate(
        config, topology, zones, lost, [this](std::size_t m) { return static_cast<bool>(seen[m]); },
        [this](std::size_t a, std::size_t b) { return position[a] > position[b]; });
  }
};

TEST(FailoverCandidate, TheMostUpToDateSeenReplicaWinsTiesToTheFirstListed) {
  Case c({"a1", "a2", "b1", "b2"});
  EXPECT_EQ(c.pick(), 1u);  // all equal: the first replica
  c.position = {9, 3, 5, 5};
  EXPECT_EQ(c.pick(), 2u);  // 5 beats 3; b1 and b2 tie, b1 is listed first
  c.seen[2] = false;
  EXPECT_EQ(c.pick(), 3u);
  c.position[0] = 100;  // the lost primary is never a candidate, however current
  EXPECT_EQ(c.pick(), 3u);
  c.seen = {true, false, false, false};
  EXPECT_FALSE(c.pick().has_value());
}

TEST(FailoverCandidate, PreferencesNarrowOnlyWhenTheyLeaveSomeone) {
  Case c({"a1", "a2", "b1", "b2"});
  c.position = {0, 9, 1, 2};
  c.config.preferred_region = "r2";
  EXPECT_EQ(c.pick(), 3u);  // a2 is fresher but outside r2
  c.config.preferred_zone = "b1";
  EXPECT_EQ(c.pick(), 2u);  // the zone first, then the region
  c.seen[2] = false;
  EXPECT_EQ(c.pick(), 3u);  // b1 unseen: the zone preference leaves no one and is dropped
  c.seen[3] = false;
  EXPECT_EQ(c.pick(), 1u);  // nobody left in r2 either: the freshest of the rest
}

TEST(FailoverCandidate, ThePrimaryLostNeedNotBeTheFirstMember) {
  Case c({"a1", "a2", "b1"});
  c.position = {5, 1, 1};
  EXPECT_EQ(c.pick(2), 0u);  // after an earlier failover the configured primary is a replica again
}

}  // namespace
}  // namespace drsim
