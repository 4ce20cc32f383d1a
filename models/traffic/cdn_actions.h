#pragma once
// The timeline's cdn:fail action: a CDN vendor fails everywhere (every
// population's edges of that vendor refuse connections; their monitors move
// the CNAME off it). Undoing it brings the vendor back. A vendor failing in
// one geography only is a zone:fail of its PoP's zone.
#include <vector>

#include "models/timeline/timeline.h"
#include "models/traffic/cdn_edges.h"

namespace drsim {

void register_cdn_actions(Timeline& timeline, std::vector<CdnEdges*> cdns);

}  // namespace drsim
