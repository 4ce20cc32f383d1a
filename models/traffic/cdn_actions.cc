#include "models/traffic/cdn_actions.h"

namespace drsim {

void register_cdn_actions(Timeline& timeline, std::vector<CdnEdges*> cdns) {
  timeline.on("cdn:fail", [cdns](const ActionConfig& a, ActionPhase phase) {
    // The loader has checked that some population's cdn lists the vendor.
    for (CdnEdges* cdn : cdns) cdn->set_vendor_down(a.target.vendor, phase == ActionPhase::kApply);
  });
}

}  // namespace drsim
