#include "models/topology/flow_platform.h"

#include "models/topology/failure_domains.h"

namespace drsim {

FlowPlatform make_flow_platform(const Topology& topology, const FlowPlatformOptions& options) {
  FlowPlatform platform;
  platform.tcp_window_bytes = options.tcp_window_bytes;
  platform.model = options.model;
  for (ZoneIndex z = 0; z < topology.zone_count(); ++z) platform.hosts.push_back(topology.zone_name(z));
  for (LinkIndex l = 0; l < topology.link_count(); ++l) {
    const LinkConfig& link = topology.config().links[l];
    platform.links.push_back(FlowLinkSpec{link.name, link.bandwidth, link.rtt / 2});
  }
  for (ZoneIndex z = 0; z < topology.zone_count(); ++z) {
    const Duration inter_zone_rtt = topology.config().regions[topology.region_of(z)].inter_zone_rtt;
    platform.links.push_back(
        FlowLinkSpec{topology.zone_name(z) + "/access", options.zone_link_bandwidth, inter_zone_rtt / 4});
  }
  const TopologyState nominal = topology.nominal_state();
  for (ZoneIndex a = 0; a < topology.zone_count(); ++a) {
    for (ZoneIndex b = a + 1; b < topology.zone_count(); ++b) {
      const auto route = topology.route(a, b, nominal);
      if (!route) continue;  // not connected: no flows between them
      FlowRouteSpec spec{a, b, {zone_access_link(topology, a)}};
      spec.links.insert(spec.links.end(), route->links.begin(), route->links.end());
      spec.links.push_back(zone_access_link(topology, b));
      platform.routes.push_back(std::move(spec));
    }
  }
  return platform;
}

void follow_failure_domains(FailureDomains& domains, FlowNetwork& network) {
  domains.on_change([&domains, &network] {
    const TopologyState& state = domains.state();
    for (LinkIndex l = 0; l < domains.topology().link_count(); ++l) {
      network.set_link_bandwidth(l, domains.link_bandwidth(l));
      network.set_link_latency(l, state.link_rtt[l] / 2);
      network.set_link_up(l, state.link_up[l]);
    }
    for (ZoneIndex z = 0; z < domains.topology().zone_count(); ++z) network.set_host_up(z, state.zone_up[z]);
  });
}

}  // namespace drsim
