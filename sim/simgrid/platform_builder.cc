#include "sim/simgrid/platform_builder.h"

#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <string>
#include <unordered_set>
#include <vector>

#include "sim/errors.h"

namespace drsim::simgrid_backend {

namespace {
constexpr double kLv08WeightS = 20537;  // bytes, LV08's network/weight-S
}  // namespace

BuiltPlatform build_platform(const FlowPlatform& platform) {
  namespace sg4 = simgrid::s4u;
  namespace kernel = simgrid::kernel;
  const bool cm02 = platform.model == FlowModel::kCm02;
  sg4::Engine::set_config("network/TCP-gamma", static_cast<double>(platform.tcp_window_bytes));
  // Set on every engine: configuration outlives an engine in SimGrid's process.
  sg4::Engine::set_config("network/weight-S", cm02 ? 0.0 : kLv08WeightS);
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
  if (cm02) {
    // CM02 is LV08 without its factors. The model stays SimGrid's default
    // (LV08): network/model cannot change once a first engine of the process
    // has set its models up, and the factor settings are read once per
    // process. Factor callbacks belong to this engine's model.
    kernel::resource::NetworkModelIntf* model = zone->get_network_model();
    const auto one = [](double, const sg4::Host*, const sg4::Host*, const std::vector<sg4::Link*>&,
                        const std::unordered_set<sg4::NetZone*>&) { return 1.0; };
    model->set_lat_factor_cb(one);
    model->set_bw_factor_cb(one);
  }
  return out;
}

}  // namespace drsim::simgrid_backend
