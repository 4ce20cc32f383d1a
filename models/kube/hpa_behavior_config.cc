#include "models/kube/hpa_behavior_config.h"

#include <sstream>

#include "sim/errors.h"

namespace drsim {

namespace {

// The API server reports the offending value the way Go prints it.
std::string format_number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string invalid(const std::string& value, const std::string& what) {
  return "Invalid value: " + value + ": " + what;
}

}  // namespace

const char* to_string(HpaPolicyType type) {
  switch (type) {
    case HpaPolicyType::kPods: return "Pods";
    case HpaPolicyType::kPercent: return "Percent";
  }
  return "unknown";
}

const char* to_string(HpaSelectPolicy select) {
  switch (select) {
    case HpaSelectPolicy::kMax: return "Max";
    case HpaSelectPolicy::kMin: return "Min";
    case HpaSelectPolicy::kDisabled: return "Disabled";
  }
  return "unknown";
}

std::optional<HpaPolicyType> hpa_policy_type_from_string(std::string_view name) {
  if (name == "Pods") return HpaPolicyType::kPods;
  if (name == "Percent") return HpaPolicyType::kPercent;
  return std::nullopt;
}

std::optional<HpaSelectPolicy> hpa_select_policy_from_string(std::string_view name) {
  if (name == "Max") return HpaSelectPolicy::kMax;
  if (name == "Min") return HpaSelectPolicy::kMin;
  if (name == "Disabled") return HpaSelectPolicy::kDisabled;
  return std::nullopt;
}

// validateScalingRules and validateScalingPolicy, in upstream's order. They run
// on what the user wrote: defaulting only fills absent fields, so a problem in
// a given field is the same before and after it.
std::vector<ConfigProblem> validate_hpa_scaling_rules(const HpaScalingRulesConfig& rules, std::string_view prefix) {
  std::vector<ConfigProblem> problems;
  const std::string path(prefix);
  if (const auto& window = rules.stabilization_window_seconds) {
    if (*window < 0) {
      problems.push_back({path + ".stabilizationWindowSeconds",
                          invalid(std::to_string(*window), "must be greater than or equal to zero")});
    }
    if (*window > kHpaMaxStabilizationWindowSeconds) {
      problems.push_back({path + ".stabilizationWindowSeconds",
                          invalid(std::to_string(*window), "must be less than or equal to " +
                                                               std::to_string(kHpaMaxStabilizationWindowSeconds))});
    }
  }
  if (rules.select_policy && !hpa_select_policy_from_string(*rules.select_policy)) {
    problems.push_back({path + ".selectPolicy", "Unsupported value: \"" + *rules.select_policy +
                                                    "\": supported values: \"Disabled\", \"Max\", \"Min\""});
  }
  // Tolerance is a Quantity upstream and must not be negative
  // (HPAConfigurableTolerance).
  if (rules.tolerance && *rules.tolerance < 0) {
    problems.push_back(
        {path + ".tolerance", invalid(format_number(*rules.tolerance), "must be greater or equal to zero")});
  }
  // Upstream requires a policy even with selectPolicy Disabled. Only an
  // explicitly empty list can get here: an absent one takes the defaults.
  if (rules.policies && rules.policies->empty()) {
    problems.push_back({path + ".policies", "Required value: must specify at least one Policy"});
  }
  if (rules.policies) {
    for (std::size_t i = 0; i < rules.policies->size(); ++i) {
      const HpaScalingPolicyConfig& policy = (*rules.policies)[i];
      const std::string at = path + ".policies[" + std::to_string(i) + "]";
      if (!hpa_policy_type_from_string(policy.type)) {
        problems.push_back(
            {at + ".type", "Unsupported value: \"" + policy.type + "\": supported values: \"Percent\", \"Pods\""});
      }
      if (policy.value <= 0) {
        problems.push_back({at + ".value", invalid(std::to_string(policy.value), "must be greater than zero")});
      }
      if (policy.period_seconds <= 0) {
        problems.push_back(
            {at + ".periodSeconds", invalid(std::to_string(policy.period_seconds), "must be greater than zero")});
      }
      if (policy.period_seconds > kHpaMaxPeriodSeconds) {
        problems.push_back({at + ".periodSeconds",
                            invalid(std::to_string(policy.period_seconds),
                                    "must be less than or equal to " + std::to_string(kHpaMaxPeriodSeconds))});
      }
    }
  }
  return problems;
}

std::vector<ConfigProblem> HpaBehaviorConfig::validate() const {
  std::vector<ConfigProblem> problems = validate_hpa_scaling_rules(scale_up, "scaleUp");
  for (ConfigProblem& p : validate_hpa_scaling_rules(scale_down, "scaleDown")) problems.push_back(std::move(p));
  return problems;
}

namespace {

// defaultHPAScaleUpRules: "these constants repeat previous HPA behavior", i.e.
// the legacy limit max(2 x current, 4) expressed as two policies over 15 s
// (the controller's sync period), with no scale-up stabilisation.
HpaScalingRulesConfig default_scale_up_config() {
  HpaScalingRulesConfig rules;
  rules.stabilization_window_seconds = 0;
  rules.select_policy = "Max";
  rules.policies = std::vector<HpaScalingPolicyConfig>{{"Pods", 4, 15}, {"Percent", 100, 15}};
  return rules;
}

// defaultHPAScaleDownRules: anything may go at once (100% per 15 s); the
// window is left to the controller's flag.
HpaScalingRulesConfig default_scale_down_config() {
  HpaScalingRulesConfig rules;
  rules.select_policy = "Max";
  rules.policies = std::vector<HpaScalingPolicyConfig>{{"Percent", 100, 15}};
  return rules;
}

// copyHPAScalingRules: a field the user gave wins, even an empty policy list.
HpaScalingRulesConfig overlay(const HpaScalingRulesConfig& given, HpaScalingRulesConfig defaults) {
  if (given.select_policy) defaults.select_policy = given.select_policy;
  if (given.stabilization_window_seconds) defaults.stabilization_window_seconds = given.stabilization_window_seconds;
  if (given.policies) defaults.policies = given.policies;
  if (given.tolerance) defaults.tolerance = given.tolerance;
  return defaults;
}

// Whole seconds, truncated toward zero as Go's int32(d.Seconds()).
std::int32_t whole_seconds(Duration d) {
  return static_cast<std::int32_t>(std::chrono::duration_cast<std::chrono::seconds>(d).count());
}

HpaScalingRules to_effective(const HpaScalingRulesConfig& rules, std::string_view where) {
  HpaScalingRules out;
  out.stabilization_window_seconds = rules.stabilization_window_seconds.value_or(0);
  const auto select = hpa_select_policy_from_string(rules.select_policy.value_or("Max"));
  if (!select) throw SimulationError(std::string(where) + ".selectPolicy: unknown \"" + *rules.select_policy + "\"");
  out.select_policy = *select;
  if (rules.policies) {
    out.policies.reserve(rules.policies->size());
    for (const HpaScalingPolicyConfig& p : *rules.policies) {
      const auto type = hpa_policy_type_from_string(p.type);
      if (!type) throw SimulationError(std::string(where) + ".policies: unknown type \"" + p.type + "\"");
      out.policies.push_back({*type, p.value, p.period_seconds});
    }
  }
  out.tolerance = rules.tolerance;
  return out;
}

}  // namespace

HpaScalingRulesConfig generate_hpa_scale_up_rules(const HpaScalingRulesConfig& rules) {
  return overlay(rules, default_scale_up_config());
}

HpaScalingRulesConfig generate_hpa_scale_down_rules(const HpaScalingRulesConfig& rules) {
  return overlay(rules, default_scale_down_config());
}

HpaScalingRules hpa_default_scale_up_rules() { return to_effective(default_scale_up_config(), "scaleUp"); }

HpaScalingRules hpa_default_scale_down_rules(Duration downscale_stabilization_window) {
  HpaScalingRulesConfig rules = default_scale_down_config();
  rules.stabilization_window_seconds = whole_seconds(downscale_stabilization_window);
  return to_effective(rules, "scaleDown");
}

HpaBehavior resolve_hpa_behavior(const HpaBehaviorConfig& config, Duration downscale_stabilization_window) {
  const std::vector<ConfigProblem> problems = config.validate();
  if (!problems.empty()) {
    throw SimulationError("HPA behavior: " + problems.front().field + ": " + problems.front().message);
  }
  HpaScalingRulesConfig up = generate_hpa_scale_up_rules(config.scale_up);
  HpaScalingRulesConfig down = generate_hpa_scale_down_rules(config.scale_down);
  // maybeInitScaleDownStabilizationWindow: the controller, not the API server,
  // knows its downscale window, so it fills the one the defaulting left empty.
  if (!down.stabilization_window_seconds) {
    down.stabilization_window_seconds = whole_seconds(downscale_stabilization_window);
  }
  return HpaBehavior{to_effective(up, "scaleUp"), to_effective(down, "scaleDown")};
}

HpaScalingTolerances hpa_scaling_tolerances(const HpaBehavior* behavior, double controller_tolerance) {
  HpaScalingTolerances t{controller_tolerance, controller_tolerance};
  if (behavior == nullptr) return t;
  if (behavior->scale_up.tolerance) t.scale_up = *behavior->scale_up.tolerance;
  if (behavior->scale_down.tolerance) t.scale_down = *behavior->scale_down.tolerance;
  return t;
}

}  // namespace drsim
