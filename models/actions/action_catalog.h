#pragma once
// Every timeline action drsim knows, one row each: what it targets, which
// parameters it takes (keys of ActionConfig's field list), whether it can be
// undone (a `duration` needs an undo), its role in the fault report, and the
// handler that performs it (action_handlers.h). The loader validates the
// timeline against this table, the docs and describe_action list from it,
// the fault report classifies by it, and the timeline dispatches through it:
// adding an action is one row here plus its handler.
#include <span>
#include <string>
#include <string_view>

namespace drsim {

struct ActionConfig;   // action_config.h
struct ActionContext;  // action_context.h

enum class ActionPhase { kApply, kUndo };

// What an action is to the fault report (models/results/fault_impact.h):
//   kFault    - something breaks or is disturbed (a failure, a degradation,
//               a planned switch-over): it gets a row with its impact;
//   kRepair   - ends the faults its row names (zone:recover ends zone:fail);
//   kOperator - mitigation or routine operation: no row, and it does not cut
//               a fault's span short (the fault's recovery includes it).
enum class ActionRole { kFault, kRepair, kOperator };
std::string_view to_string(ActionRole role);

using ActionHandlerFunction = void (*)(ActionContext& context, const ActionConfig& action, ActionPhase phase);

// One field of an action's `target` (ActionTarget). An action requires a set
// of them: zone:fail {zone}, traffic:cut {service, zone}, service:slow {service}.
enum class TargetField : unsigned {
  kZone = 1u << 0,
  kRegion = 1u << 1,
  kLink = 1u << 2,
  kService = 1u << 3,
  kPopulation = 1u << 4,
  kDatabase = 1u << 5,
  kVendor = 1u << 6,
};

// A set of target fields; every one in the set must be given, no other may be.
class TargetSet {
 public:
  constexpr TargetSet(TargetField f) : bits_(static_cast<unsigned>(f)) {}  // NOLINT: one field is a set
  constexpr TargetSet operator|(TargetField f) const { return TargetSet(bits_ | static_cast<unsigned>(f)); }
  constexpr bool contains(TargetField f) const { return (bits_ & static_cast<unsigned>(f)) != 0; }
  friend constexpr bool operator==(TargetSet, TargetSet) = default;

 private:
  constexpr explicit TargetSet(unsigned bits) : bits_(bits) {}
  unsigned bits_;
};
constexpr TargetSet operator|(TargetField a, TargetField b) { return TargetSet(a) | b; }

struct ActionSpecInfo {
  std::string_view name;  // "zone:fail"
  TargetSet target;
  std::string_view params[3] = {};  // allowed parameter keys (ActionConfig fields); empty entries unused
  std::string_view required_params[3] = {};
  bool needs_a_parameter = false;      // at least one of params must be given
  bool exactly_one_parameter = false;  // of params, exactly one must be given (pods:kill: count or percent)
  bool reversible = false;             // may carry a duration
  ActionRole role = ActionRole::kFault;
  std::string_view repairs[2] = {};  // kRepair: the faults it ends
  // For the objective judge's figures (io/objective_evaluation.cc):
  bool stops_zones = false;  // its target's zones go down: traffic has switched once their arrivals stop
  bool planned = false;      // a planned switch-over: nothing fails, so nothing detects it
  ActionHandlerFunction handler = nullptr;
  std::string_view doc;
};

std::span<const ActionSpecInfo> action_catalog();
// nullptr when unknown.
const ActionSpecInfo* find_action(std::string_view name);
// The ActionTarget key of a field: "zone", "service", ...
std::string_view to_string(TargetField field);
// Every target field, in the order they are listed: service, zone, region, link, population, database, vendor.
std::span<const TargetField> target_fields();
// The keys of a set, in target_fields() order, joined: "service and zone".
std::string to_string(TargetSet set, std::string_view conjunction = " and ");

}  // namespace drsim
