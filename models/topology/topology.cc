#include "models/topology/topology.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <limits>
#include <map>

#include "sim/errors.h"

namespace drsim {

// Vertices: one per zone, then one "hub" per region standing for the region's
// backbone. A zone joins its hub with half the region's inter-zone RTT, so two
// zones of one region are exactly inter_zone_rtt apart; links join hubs. A
// region whose zones are all down still forwards between its links: the
// backbone is not a failure domain of its own in this model.
struct Topology::Graph {
  enum class EdgeKind { kZoneToHub, kLink };
  struct EdgeProps {
    EdgeKind kind;
    std::size_t index;       // zone index (kZoneToHub) or link index (kLink)
    std::int64_t weight_ns;  // nominal one-way weight for kZoneToHub, unused for kLink
  };
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property, EdgeProps>;
  G g;
  std::size_t zones = 0;
};

namespace {

// Filters the graph down to what is up in a TopologyState.
struct UpEdges {
  const Topology::Graph* graph = nullptr;
  const TopologyState* state = nullptr;
  template <class Edge>
  bool operator()(const Edge& e) const {
    const auto& props = graph->g[e];
    if (props.kind == Topology::Graph::EdgeKind::kLink) return state->link_up[props.index];
    return state->zone_up[props.index];
  }
};
struct UpVertices {
  const Topology::Graph* graph = nullptr;
  const TopologyState* state = nullptr;
  template <class Vertex>
  bool operator()(const Vertex& v) const {
    return v >= graph->zones || state->zone_up[v];
  }
};

}  // namespace

Topology::Topology(TopologyConfig config) : config_(std::move(config)), graph_(std::make_unique<Graph>()) {
  for (RegionIndex r = 0; r < config_.regions.size(); ++r) {
    region_by_name_.emplace(config_.regions[r].name, r);
    region_zones_.emplace_back();
    for (const ZoneConfig& z : config_.regions[r].zones) {
      region_zones_[r].push_back(zone_names_.size());
      zone_by_name_.emplace(z.name, zone_names_.size());
      zone_names_.push_back(z.name);
      zone_region_.push_back(r);
    }
  }
  for (const LinkConfig& link : config_.links) {
    if (link.between.size() != 2) throw SimulationError("link \"" + link.name + "\" must join two regions");
    const auto a = find_region(link.between[0]);
    const auto b = find_region(link.between[1]);
    if (!a || !b) throw SimulationError("link \"" + link.name + "\" joins an unknown region");
    link_ends_.emplace_back(*a, *b);
  }

  Graph& graph = *graph_;
  graph.zones = zone_names_.size();
  graph.g = Graph::G(zone_names_.size() + config_.regions.size());
  const auto hub = [&](RegionIndex r) { return zone_names_.size() + r; };
  for (ZoneIndex z = 0; z < zone_names_.size(); ++z) {
    const Duration half = config_.regions[zone_region_[z]].inter_zone_rtt / 2;
    boost::add_edge(z, hub(zone_region_[z]), Graph::EdgeProps{Graph::EdgeKind::kZoneToHub, z, half.count()}, graph.g);
  }
  for (LinkIndex l = 0; l < link_ends_.size(); ++l) {
    boost::add_edge(hub(link_ends_[l].first), hub(link_ends_[l].second),
                    Graph::EdgeProps{Graph::EdgeKind::kLink, l, 0}, graph.g);
  }
}

Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;

std::optional<ZoneIndex> Topology::find_zone(std::string_view name) const {
  const auto it = zone_by_name_.find(name);
  if (it == zone_by_name_.end()) return std::nullopt;
  return it->second;
}

std::optional<RegionIndex> Topology::find_region(std::string_view name) const {
  const auto it = region_by_name_.find(name);
  if (it == region_by_name_.end()) return std::nullopt;
  return it->second;
}

std::optional<LinkIndex> Topology::find_link(std::string_view name) const {
  for (LinkIndex l = 0; l < config_.links.size(); ++l) {
    if (config_.links[l].name == name) return l;
  }
  return std::nullopt;
}

TopologyState Topology::nominal_state() const {
  TopologyState state;
  state.zone_up.assign(zone_count(), true);
  state.link_up.assign(link_count(), true);
  for (const LinkConfig& link : config_.links) state.link_rtt.push_back(link.rtt);
  return state;
}

std::vector<std::optional<std::size_t>> Topology::partitions(const TopologyState& state) const {
  const Graph& graph = *graph_;
  boost::filtered_graph<Graph::G, UpEdges, UpVertices> up(graph.g, UpEdges{&graph, &state},
                                                          UpVertices{&graph, &state});
  std::vector<std::size_t> component(boost::num_vertices(graph.g));
  boost::connected_components(up, component.data());
  // Renumber by first appearance among the zones, so ids are 0..k-1 and
  // independent of where the hubs happen to sit.
  std::map<std::size_t, std::size_t> renumber;
  std::vector<std::optional<std::size_t>> out(zone_count());
  for (ZoneIndex z = 0; z < zone_count(); ++z) {
    if (!state.zone_up[z]) continue;
    auto [it, inserted] = renumber.emplace(component[z], renumber.size());
    out[z] = it->second;
  }
  return out;
}

std::size_t Topology::partition_count(const TopologyState& state) const {
  std::size_t count = 0;
  for (const auto& p : partitions(state)) {
    if (p) count = std::max(count, *p + 1);
  }
  return count;
}

std::optional<Duration> Topology::rtt(ZoneIndex a, ZoneIndex b, const TopologyState& state) const {
  const auto r = route(a, b, state);
  if (!r) return std::nullopt;
  return r->rtt;
}

std::optional<Topology::Route> Topology::route(ZoneIndex a, ZoneIndex b, const TopologyState& state) const {
  if (!state.zone_up[a] || !state.zone_up[b]) return std::nullopt;
  if (a == b) return Route{};
  const Graph& graph = *graph_;
  using FG = boost::filtered_graph<Graph::G, UpEdges, UpVertices>;
  using Edge = boost::graph_traits<FG>::edge_descriptor;
  FG up(graph.g, UpEdges{&graph, &state}, UpVertices{&graph, &state});
  // Edge weights are round-trip contributions: half the region's inter-zone
  // RTT to the hub, and the link's effective RTT between hubs.
  auto weight = boost::make_function_property_map<Edge>([&](const Edge& e) -> std::int64_t {
    const auto& props = graph.g[e];
    return props.kind == Graph::EdgeKind::kLink ? state.link_rtt[props.index].count() : props.weight_ns;
  });
  constexpr std::int64_t kUnreached = std::numeric_limits<std::int64_t>::max();
  const std::size_t n = boost::num_vertices(graph.g);
  std::vector<std::int64_t> distance(n, kUnreached);
  std::vector<std::size_t> predecessor(n);
  const auto index = boost::get(boost::vertex_index, graph.g);
  boost::dijkstra_shortest_paths(
      up, a,
      boost::weight_map(weight)
          .distance_map(boost::make_iterator_property_map(distance.begin(), index))
          .predecessor_map(boost::make_iterator_property_map(predecessor.begin(), index))
          .distance_inf(kUnreached));
  if (distance[b] == kUnreached) return std::nullopt;
  Route out;
  out.rtt = Duration{distance[b]};
  // Walk back from b; a hub-to-hub step is a link (the cheapest up one if
  // two links join the same pair of regions, as Dijkstra relaxed it).
  for (std::size_t v = b; v != a; v = predecessor[v]) {
    const std::size_t u = predecessor[v];
    if (u < graph.zones || v < graph.zones) continue;  // a zone-to-hub step
    std::optional<LinkIndex> best;
    for (auto [e, end] = boost::out_edges(u, up); e != end; ++e) {
      const auto& props = graph.g[*e];
      if (props.kind != Graph::EdgeKind::kLink || boost::target(*e, up) != v) continue;
      if (!best || state.link_rtt[props.index] < state.link_rtt[*best]) best = props.index;
    }
    out.links.insert(out.links.begin(), *best);
  }
  return out;
}

}  // namespace drsim
