// models/topology/topology.h: the questions a failure raises about the
// topology, asked of a scenario's topology view (_core.Topology, the
// DeploymentConfig bound by bind_config.cc): the round-trip time and route
// between two zones, whether they reach each other, and the partitions the
// up zones fall into, with some zones, regions and links down. A region
// that is down takes its zones down; its backbone still carries traffic
// between its links, as in the simulation (models/topology/failure_domains.h).
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "io/scenario.h"
#include "io/suggest.h"
#include "models/topology/topology.h"
#include "python/src/bindings.h"
#include "python/src/config_leaves.h"
#include "python/src/config_views.h"
#include "sim/quote.h"
#include "sim/units.h"

namespace drsim::python {
namespace {

// What is down, as the keyword arguments give it.
struct Outage {
  py::object down_zones, down_regions, down_links, link_rtt;
};

std::vector<std::string_view> names_of(std::size_t count, const auto& name_at) {
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < count; ++i) names.push_back(name_at(i));
  return names;
}

// A name given as a str; ValueError for one that UTF-8 cannot encode.
std::string name_text(const py::handle& name, std::string_view argument) {
  try {
    return utf8_of(name);
  } catch (const ValueMismatch& e) {
    throw std::invalid_argument(std::string(argument) + ": " + e.message);
  }
}

std::size_t zone_index(const Topology& t, const py::handle& name, std::string_view argument) {
  if (!py::isinstance<py::str>(name)) {
    throw py::type_error(std::string(argument) + " is a zone name (str), not " + type_name(name));
  }
  const std::string text = name_text(name, argument);
  if (const auto z = t.find_zone(text)) return *z;
  const auto zone_name = [&](std::size_t i) -> std::string_view { return t.zone_name(i); };
  throw std::invalid_argument(std::string(argument) + ": " +
                              unknown_name_message("zone", text, names_of(t.zone_count(), zone_name), "zones"));
}

// Each name of `names` (a collection of str, not a str) as an index.
template <class Find, class NameAt>
std::vector<std::size_t> indices(const py::object& names, std::string_view argument, std::string_view what,
                                 std::size_t count, const Find& find, const NameAt& name_at) {
  std::vector<std::size_t> out;
  if (names.is_none()) return out;
  if (py::isinstance<py::str>(names) || !py::isinstance<py::iterable>(names)) {
    throw py::type_error(std::string(argument) + " is a list of " + std::string(what) + " names, not " +
                         type_name(names));
  }
  for (const py::handle name : names) {
    if (!py::isinstance<py::str>(name)) {
      throw py::type_error(std::string(argument) + " holds " + std::string(what) + " names (str), not " +
                           type_name(name));
    }
    const std::string text = name_text(name, argument);
    const auto index = find(text);
    if (!index) {
      throw std::invalid_argument(std::string(argument) + ": " +
                                  unknown_name_message(what, text, names_of(count, name_at), std::string(what) + "s"));
    }
    out.push_back(*index);
  }
  return out;
}

TopologyState state_of(const Topology& t, const Outage& outage) {
  TopologyState state = t.nominal_state();
  const auto zone_name = [&](std::size_t i) -> std::string_view { return t.zone_name(i); };
  const auto region_name = [&](std::size_t i) -> std::string_view { return t.region_name(i); };
  const auto link_name = [&](std::size_t i) -> std::string_view { return t.link_name(i); };
  for (std::size_t z : indices(
           outage.down_zones, "down_zones", "zone", t.zone_count(),
           [&](const std::string& n) { return t.find_zone(n); }, zone_name)) {
    state.zone_up[z] = false;
  }
  for (std::size_t r : indices(
           outage.down_regions, "down_regions", "region", t.region_count(),
           [&](const std::string& n) { return t.find_region(n); }, region_name)) {
    for (std::size_t z : t.zones_of(r)) state.zone_up[z] = false;
  }
  for (std::size_t l : indices(
           outage.down_links, "down_links", "link", t.link_count(),
           [&](const std::string& n) { return t.find_link(n); }, link_name)) {
    state.link_up[l] = false;
  }
  if (!outage.link_rtt.is_none()) {
    if (!py::isinstance(outage.link_rtt, py::module_::import("collections.abc").attr("Mapping"))) {
      throw py::type_error("link_rtt is a mapping {link name: round-trip time}, not " + type_name(outage.link_rtt));
    }
    for (const auto& item : outage.link_rtt.attr("items")()) {
      const py::tuple pair = py::reinterpret_borrow<py::tuple>(item);
      const std::vector<std::size_t> link = indices(
          py::make_tuple(pair[0]), "link_rtt", "link", t.link_count(),
          [&](const std::string& n) { return t.find_link(n); }, link_name);
      const std::string where = "link_rtt[" + quote(t.link_name(link[0])) + "]: ";
      Duration rtt{};
      if (py::isinstance<py::str>(pair[1])) {
        try {
          rtt = parse_duration(name_text(pair[1], where.substr(0, where.size() - 2)));
        } catch (const UnitError& e) {
          throw std::invalid_argument(where + e.what());
        }
      } else {
        try {
          rtt = Duration{duration_ns(pair[1], "a round-trip time in seconds, a timedelta or text such as \"28ms\"")};
        } catch (const ValueMismatch& e) {
          throw py::type_error(where + e.message);
        }
      }
      if (rtt < Duration::zero()) {
        throw std::invalid_argument(where + "expected a non-negative round-trip time");
      }
      state.link_rtt[link[0]] = rtt;
    }
  }
  return state;
}

Topology topology_of(const DeploymentConfig& config) { return Topology(static_cast<const TopologyConfig&>(config)); }

// Adds a method to the class, refusing to hide a config field of that name.
template <class Class, class F, class... Extra>
void add_query(Class& cls, const char* name, F&& f, const Extra&... extra) {
  if (py::hasattr(cls, name)) {
    throw std::logic_error(std::string("drsim._core.Topology already has an attribute \"") + name +
                           "\" (a config field?); python/src/bind_topology.cc must name its query differently");
  }
  cls.def(name, std::forward<F>(f), extra...);
}

template <class Class, class F>
void add_query_property(Class& cls, const char* name, F&& f, const char* doc) {
  if (py::hasattr(cls, name)) {
    throw std::logic_error(std::string("drsim._core.Topology already has an attribute \"") + name +
                           "\" (a config field?); python/src/bind_topology.cc must name its query differently");
  }
  cls.def_property_readonly(name, std::forward<F>(f), doc);
}

constexpr const char* kDownDoc =
    "down_zones, down_regions, down_links: names of what is down (a region down takes its zones down; its backbone "
    "still joins its links).";
constexpr const char* kLinkRttDoc =
    " link_rtt: {link name: round-trip time} replacing the configured RTT of a link (seconds, a timedelta or text "
    "such as \"120ms\"), as a degradation would.";

}  // namespace

void bind_topology(py::module_& m) {
  auto cls =
      py::reinterpret_borrow<py::class_<DeploymentConfig>>(m.attr(std::string(DeploymentConfig::kTypeName).c_str()));
  cls.attr("__doc__") = py::cast<std::string>(cls.attr("__doc__")) +
                        std::string(
                            " Its methods answer what a failure does to the network: rtt, route, reachable, partitions "
                            "(see drsim.topology).");
  add_query_property(
      cls, "zones",
      [](py::object self) {
        const auto& config = self.cast<const DeploymentConfig&>();
        std::vector<py::object> zones;
        for (const RegionConfig& region : config.regions) {
          for (const ZoneConfig& zone : region.zones) zones.push_back(to_view(zone, self));
        }
        py::tuple items(zones.size());
        for (std::size_t i = 0; i < zones.size(); ++i) items[i] = zones[i];
        return make_config_list(std::move(items));
      },
      "Every zone of the topology, region by region (ConfigList[Zone]; look one up by name).");
  add_query(
      cls, "region_of",
      [](const DeploymentConfig& config, const py::object& zone) {
        const Topology t = topology_of(config);
        return t.region_name(t.region_of(zone_index(t, zone, "zone")));
      },
      py::arg("zone"), "The name of the region the zone belongs to. Raises ValueError for an unknown zone.");

  const std::string rtt_doc =
      std::string(
          "Shortest round-trip time from zone a to zone b in seconds over what is up; None when b cannot be "
          "reached from a (or either is down); 0.0 from a zone to itself.\n\n") +
      kDownDoc + kLinkRttDoc;
  add_query(
      cls, "rtt",
      [](const DeploymentConfig& config, const py::object& a, const py::object& b, py::object down_zones,
         py::object down_regions, py::object down_links, py::object link_rtt) -> std::optional<double> {
        const Topology t = topology_of(config);
        const ZoneIndex za = zone_index(t, a, "a"), zb = zone_index(t, b, "b");
        const auto rtt = t.rtt(za, zb, state_of(t, {down_zones, down_regions, down_links, link_rtt}));
        if (!rtt) return std::nullopt;
        return to_seconds(*rtt);
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("down_zones") = py::none(),
      py::arg("down_regions") = py::none(), py::arg("down_links") = py::none(), py::arg("link_rtt") = py::none(),
      rtt_doc.c_str());

  const std::string route_doc =
      std::string(
          "The shortest route from zone a to zone b over what is up, as drsim.topology.Route(rtt, links, "
          "regions): its round-trip time in seconds, the links it crosses and the regions it passes, in "
          "order from a; None when b cannot be reached.\n\n") +
      kDownDoc + kLinkRttDoc;
  add_query(
      cls, "route",
      [](const DeploymentConfig& config, const py::object& a, const py::object& b, py::object down_zones,
         py::object down_regions, py::object down_links, py::object link_rtt) -> py::object {
        const Topology t = topology_of(config);
        const ZoneIndex za = zone_index(t, a, "a"), zb = zone_index(t, b, "b");
        const auto route = t.route(za, zb, state_of(t, {down_zones, down_regions, down_links, link_rtt}));
        if (!route) return py::none();
        py::list links, regions;
        RegionIndex here = t.region_of(za);
        regions.append(t.region_name(here));
        for (LinkIndex l : route->links) {
          links.append(t.link_name(l));
          const auto [x, y] = t.link_ends(l);
          here = x == here ? y : x;
          regions.append(t.region_name(here));
        }
        return py::module_::import("drsim.topology")
            .attr("Route")(py::arg("rtt") = to_seconds(route->rtt), py::arg("links") = py::tuple(links),
                           py::arg("regions") = py::tuple(regions));
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("down_zones") = py::none(),
      py::arg("down_regions") = py::none(), py::arg("down_links") = py::none(), py::arg("link_rtt") = py::none(),
      route_doc.c_str());

  const std::string reachable_doc =
      std::string("Whether zone b can be reached from zone a over what is up (False when either is down).\n\n") +
      kDownDoc;
  add_query(
      cls, "reachable",
      [](const DeploymentConfig& config, const py::object& a, const py::object& b, py::object down_zones,
         py::object down_regions, py::object down_links) {
        const Topology t = topology_of(config);
        const ZoneIndex za = zone_index(t, a, "a"), zb = zone_index(t, b, "b");
        return t.route(za, zb, state_of(t, {down_zones, down_regions, down_links, py::none()})).has_value();
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("down_zones") = py::none(),
      py::arg("down_regions") = py::none(), py::arg("down_links") = py::none(), reachable_doc.c_str());

  const std::string partitions_doc =
      std::string(
          "The groups of up zones that reach each other, as tuples of zone names: zones in topology "
          "order within a group, groups in the order of their first zone; down zones are in none. One "
          "group when nothing is cut off, none when every zone is down.\n\n") +
      kDownDoc;
  add_query(
      cls, "partitions",
      [](const DeploymentConfig& config, py::object down_zones, py::object down_regions, py::object down_links) {
        const Topology t = topology_of(config);
        const auto partition = t.partitions(state_of(t, {down_zones, down_regions, down_links, py::none()}));
        std::vector<py::list> groups;
        for (ZoneIndex z = 0; z < partition.size(); ++z) {
          if (!partition[z]) continue;
          if (*partition[z] >= groups.size()) groups.resize(*partition[z] + 1);
          groups[*partition[z]].append(t.zone_name(z));
        }
        py::list out;
        for (const py::list& group : groups) out.append(py::tuple(group));
        return out;
      },
      py::kw_only(), py::arg("down_zones") = py::none(), py::arg("down_regions") = py::none(),
      py::arg("down_links") = py::none(), partitions_doc.c_str());
}

}  // namespace drsim::python
