#include "models/timeline/action_catalog.h"

#include <array>

namespace drsim {

namespace {
constexpr std::array kCatalog{
    ActionSpecInfo{"zone:fail", TargetKind::kZone, {}, {}, false, true,
                   "The zone goes down: everything in it stops. With a duration, it recovers after it."},
    ActionSpecInfo{"zone:recover", TargetKind::kZone, {}, {}, false, false, "The zone comes back up."},
    ActionSpecInfo{"region:fail", TargetKind::kRegion, {}, {}, false, true,
                   "Every zone of the region goes down. With a duration, they recover after it."},
    ActionSpecInfo{"region:recover", TargetKind::kRegion, {}, {}, false, false, "Every zone of the region comes back up."},
    ActionSpecInfo{"link:cut", TargetKind::kLink, {}, {}, false, true,
                   "The link carries nothing. With a duration, it is restored after it."},
    ActionSpecInfo{"link:restore", TargetKind::kLink, {}, {}, false, false,
                   "The link is back to its configured state (undoes link:cut and link:degrade)."},
    ActionSpecInfo{"link:degrade", TargetKind::kLink, {"latency", "loss", "bandwidth"}, {}, true, true,
                   "The link gets slower, lossy or narrower (at least one parameter). With a duration, it is "
                   "restored after it."},
};
}  // namespace

std::span<const ActionSpecInfo> action_catalog() { return kCatalog; }

const ActionSpecInfo* find_action(std::string_view name) {
  for (const ActionSpecInfo& info : kCatalog) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string_view to_string(TargetKind kind) {
  switch (kind) {
    case TargetKind::kZone: return "zone";
    case TargetKind::kRegion: return "region";
    case TargetKind::kLink: return "link";
  }
  return "?";
}

}  // namespace drsim
