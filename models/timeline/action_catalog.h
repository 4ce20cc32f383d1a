#pragma once
// Every timeline action drsim knows: what it targets, which parameters it
// takes, and whether it can be undone (a `duration` needs an undo). The loader
// validates the timeline against this table and the docs list it, so adding
// an action is one row here plus its handler in the model that performs it.
#include <span>
#include <string_view>

namespace drsim {

enum class TargetKind { kZone, kRegion, kLink };

struct ActionSpecInfo {
  std::string_view name;       // "zone:fail"
  TargetKind target;
  std::string_view params[3];  // allowed parameter keys; empty entries unused
  std::string_view required_params[3];
  bool needs_a_parameter;      // at least one of params must be given
  bool reversible;             // may carry a duration
  std::string_view doc;
};

std::span<const ActionSpecInfo> action_catalog();
// nullptr when unknown.
const ActionSpecInfo* find_action(std::string_view name);
std::string_view to_string(TargetKind kind);

}  // namespace drsim
