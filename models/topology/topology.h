#pragma once
// The Topology facade: regions, zones and links, and the questions a failure
// raises about them (who can still reach whom, over what round-trip time).
// The graph itself is a Boost.Graph kept inside topology.cc, so that no
// public header exposes Boost types.
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/topology/topology_config.h"
#include "sim/time.h"

namespace drsim {

using ZoneIndex = std::size_t;
using RegionIndex = std::size_t;
using LinkIndex = std::size_t;

// What is up right now. Indices follow the Topology's zone / link order.
struct TopologyState {
  std::vector<bool> zone_up;
  std::vector<bool> link_up;
  std::vector<Duration> link_rtt;  // effective round-trip time (degradation included)
};

class Topology {
 public:
  explicit Topology(TopologyConfig config);
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;

  const TopologyConfig& config() const { return config_; }
  std::size_t zone_count() const { return zone_names_.size(); }
  std::size_t region_count() const { return config_.regions.size(); }
  std::size_t link_count() const { return config_.links.size(); }

  const std::string& zone_name(ZoneIndex z) const { return zone_names_[z]; }
  const std::string& region_name(RegionIndex r) const { return config_.regions[r].name; }
  const std::string& link_name(LinkIndex l) const { return config_.links[l].name; }
  RegionIndex region_of(ZoneIndex z) const { return zone_region_[z]; }
  const std::vector<ZoneIndex>& zones_of(RegionIndex r) const { return region_zones_[r]; }
  // The two regions a link joins.
  std::pair<RegionIndex, RegionIndex> link_ends(LinkIndex l) const { return link_ends_[l]; }

  std::optional<ZoneIndex> find_zone(std::string_view name) const;
  std::optional<RegionIndex> find_region(std::string_view name) const;
  std::optional<LinkIndex> find_link(std::string_view name) const;

  // Everything up, every link at its configured round-trip time.
  TopologyState nominal_state() const;

  // Connected component of each zone over the up zones and links; nullopt
  // for a zone that is down. Zones with equal ids can reach each other.
  std::vector<std::optional<std::size_t>> partitions(const TopologyState& state) const;
  // Number of distinct partitions among the up zones (0 when all are down).
  std::size_t partition_count(const TopologyState& state) const;
  // Shortest round-trip time from zone a to zone b over what is up; nullopt
  // when b is unreachable from a (or either is down).
  std::optional<Duration> rtt(ZoneIndex a, ZoneIndex b, const TopologyState& state) const;

  // The shortest route and the links it crosses, in order from a to b.
  struct Route {
    Duration rtt{};
    std::vector<LinkIndex> links;
  };
  std::optional<Route> route(ZoneIndex a, ZoneIndex b, const TopologyState& state) const;

  struct Graph;  // Boost.Graph, defined in topology.cc; opaque everywhere else

 private:
  TopologyConfig config_;
  std::vector<std::string> zone_names_;
  std::vector<RegionIndex> zone_region_;
  std::vector<std::vector<ZoneIndex>> region_zones_;
  std::vector<std::pair<RegionIndex, RegionIndex>> link_ends_;
  // Name -> index, the first of a name (as a scan would find): drsim check
  // looks zones up in every failure case, one case per zone.
  std::map<std::string, ZoneIndex, std::less<>> zone_by_name_;
  std::map<std::string, RegionIndex, std::less<>> region_by_name_;
  std::unique_ptr<Graph> graph_;
};

}  // namespace drsim
