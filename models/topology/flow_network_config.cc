#include "models/topology/flow_network_config.h"

namespace drsim {

FlowPlatformOptions FlowNetworkConfig::platform_options() const {
  FlowPlatformOptions options;
  options.zone_link_bandwidth = zone_link_bandwidth;
  options.tcp_window_bytes = tcp_window.bytes;
  options.model = flow_model == "LV08" ? FlowModel::kLv08 : FlowModel::kCm02;
  return options;
}

std::vector<ConfigProblem> FlowNetworkConfig::validate() const {
  std::vector<ConfigProblem> out;
  if (fidelity != "closed-form" && fidelity != "flows") {
    out.push_back({"fidelity", "expected closed-form or flows, got \"" + fidelity + "\""});
  }
  if (flow_model != "CM02" && flow_model != "LV08") {
    out.push_back({"flowModel", "expected CM02 or LV08, got \"" + flow_model + "\""});
  }
  return out;
}

}  // namespace drsim
