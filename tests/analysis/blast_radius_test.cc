// What a zone, region or link failure takes with it, from the topology alone.
#include "analysis/blast_radius.h"

#include <gtest/gtest.h>

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Two regions joined by one link. api runs in both; ledger only in west;
// api calls ledger.
struct World {
  Topology topology;
  std::vector<ServiceConfig> services;
  std::vector<ClientPopulationConfig> load;
};

World world() {
  TopologyConfig t;
  t.regions = {RegionConfig{"west", {ZoneConfig{"w1"}, ZoneConfig{"w2"}}, 1ms},
               RegionConfig{"east", {ZoneConfig{"e1"}}, 1ms}};
  LinkConfig link;
  link.name = "west-east";
  link.between = {"west", "east"};
  link.rtt = 30ms;
  t.links = {link};
  ServiceConfig api;
  api.name = "api";
  api.replicas = {{"w1", 2}, {"w2", 2}, {"e1", 3}};
  api.calls = {CallConfig{"ledger", 2, false}};
  ServiceConfig ledger;
  ledger.name = "ledger";
  ledger.replicas = {{"w1", 1}};
  ClientPopulationConfig east_users;
  east_users.name = "east-users";
  east_users.service = "api";
  east_users.zone = "e1";
  ClientPopulationConfig west_only;
  west_only.name = "west-routed";
  west_only.service = "api";
  west_only.zone = "e1";
  west_only.routing = GeoRoutingConfig{"weighted", {{"west", 1}}};
  return {Topology(t), {api, ledger}, {east_users, west_only}};
}

TEST(BlastRadius, NothingDownNothingLost) {
  const World w = world();
  EXPECT_TRUE(blast_radius(w.topology, w.topology.nominal_state(), w.services, w.load).empty());
}

TEST(BlastRadius, ZoneLossTakesItsPodsAndTheOnlyLedger) {
  const World w = world();
  TopologyState state = w.topology.nominal_state();
  state.zone_up[*w.topology.find_zone("w1")] = false;
  const BlastRadius r = blast_radius(w.topology, state, w.services, w.load);
  EXPECT_EQ(r.zones_down, (std::vector<std::string>{"w1"}));
  EXPECT_EQ(r.pods_lost, (std::vector<LostPods>{{"api", "w1", 2}, {"ledger", "w1", 1}}));
  EXPECT_EQ(r.services_down, (std::vector<std::string>{"ledger"}));
  EXPECT_EQ(r.lost_dependencies,
            (std::vector<LostDependency>{{"api", "w2", "ledger"}, {"api", "e1", "ledger"}}));
  EXPECT_TRUE(r.populations_cut_off.empty());  // api itself is still up in w2 and e1
}

TEST(BlastRadius, ALinkCutPartitionsWithoutLosingPods) {
  const World w = world();
  TopologyState state = w.topology.nominal_state();
  state.link_up[0] = false;
  const BlastRadius r = blast_radius(w.topology, state, w.services, w.load);
  EXPECT_TRUE(r.pods_lost.empty());
  EXPECT_EQ(r.lost_dependencies, (std::vector<LostDependency>{{"api", "e1", "ledger"}}));
  // Clients in e1 still reach api in e1, unless their routing sends them west.
  EXPECT_EQ(r.populations_cut_off, (std::vector<std::string>{"west-routed"}));
  const auto lines = describe(r);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "api in e1 can no longer reach ledger");
  EXPECT_EQ(lines[1], "population west-routed can no longer reach its entry service");
}

TEST(BlastRadius, TheClientsOwnZoneDown) {
  const World w = world();
  TopologyState state = w.topology.nominal_state();
  state.zone_up[*w.topology.find_zone("e1")] = false;
  const BlastRadius r = blast_radius(w.topology, state, w.services, w.load);
  EXPECT_EQ(r.populations_cut_off, (std::vector<std::string>{"east-users", "west-routed"}));
}

}  // namespace
}  // namespace drsim
