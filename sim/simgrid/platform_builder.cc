#include "sim/simgrid/platform_builder.h"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <string>

#include "sim/errors.h"

namespace drsim::simgrid_backend {

BuiltPlatform build_platform(const FlowPlatform& platform) {
  namespace sg4 = simgrid::s4u;
  sg4::Engine::set_config("network/TCP-gamma", static_cast<double>(platform.tcp_window_bytes));
  BuiltPlatform out;
  sg4::NetZone* zone = sg4::create_full_zone("drsim");
  // Host speed is irrelevant: drsim runs no computation on SimGrid.
  for (const std::string& name : platform.hosts) out.hosts.push_back(zone->create_host(name, 1e9));
  out.driver = zone->create_host("drsim-driver", 1e9);
  for (const FlowLinkSpec& spec : platform.links) {
    if (!(spec.bandwidth.bits_per_second > 0)) {
      throw SimulationError("flow platform: link \"" + spec.name + "\" needs a positive bandwidth");
    }
    sg4::Link* link = zone->create_link(spec.name, bytes_per_second(spec.bandwidth));
    link->set_latency(to_seconds(spec.latency));
    link->seal();
    out.links.push_back(link);
  }
  for (const FlowRouteSpec& route : platform.routes) {
    if (route.from >= out.hosts.size() || route.to >= out.hosts.size() || route.from == route.to) {
      throw SimulationError("flow platform: a route joins unknown or identical hosts");
    }
    std::vector<sg4::LinkInRoute> links;
    for (std::size_t l : route.links) {
      if (l >= out.links.size()) throw SimulationError("flow platform: a route crosses an unknown link");
      links.emplace_back(out.links[l]);
    }
    zone->add_route(out.hosts[route.from]->get_netpoint(), out.hosts[route.to]->get_netpoint(), nullptr, nullptr, links,
                    true);
  }
  zone->seal();
  return out;
}

}  // namespace drsim::simgrid_backend
