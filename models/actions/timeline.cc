#include "models/actions/timeline.h"

#include <concepts>
#include <sstream>
#include <string>
#include <type_traits>

#include "sim/errors.h"
#include "sim/field_traits.h"
#include "sim/fields.h"
#include "sim/simulation.h"
#include "sim/units.h"

namespace drsim {

namespace {
// A parameter's value as it reads in a log line: the scenario's own units,
// lists in brackets, a struct as {key: value, ...}: its first key (a
// policy's kind), its required keys and the keys set away from their default.
template <class T>
std::string value_text(const T& value);

template <class T>
std::string struct_text(const T& value) {
  static const T defaults{};
  std::string out;
  bool first = true;
  for_each_field<T>([&](const auto& info) {
    const auto& member = value.*(info.member);
    using Member = std::decay_t<decltype(member)>;
    bool shown = first || info.required();
    first = false;
    if constexpr (std::equality_comparable<Member>) {
      shown = shown || !(member == defaults.*(info.member));
    } else {
      shown = true;
    }
    if constexpr (IsOptional<Member>::value) shown = shown && member.has_value();
    if (!shown) return;
    out.append(out.empty() ? "{" : ", ").append(info.key).append(": ").append(value_text(member));
  });
  return out.empty() ? "{}" : out + "}";
}

template <class T>
std::string value_text(const T& value) {
  if constexpr (IsOptional<T>::value) {
    return value ? value_text(*value) : std::string();
  } else if constexpr (IsVector<T>::value) {
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) out += (i == 0 ? "" : ", ") + value_text(value[i]);
    return out + "]";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return value;
  } else if constexpr (std::is_same_v<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_same_v<T, Duration>) {
    return format_duration(value);
  } else if constexpr (std::is_same_v<T, Ratio>) {
    return format_ratio(value);
  } else if constexpr (std::is_same_v<T, Bandwidth>) {
    return format_bandwidth(value);
  } else if constexpr (std::is_same_v<T, ByteSize>) {
    return format_byte_size(value);
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(value);
  } else if constexpr (std::is_floating_point_v<T>) {
    std::ostringstream out;
    out << value;
    return out.str();
  } else {
    return struct_text(value);
  }
}
}  // namespace

std::string describe_action(const ActionConfig& a) {
  std::string out;
  auto add = [&](std::string_view key, const std::string& value) {
    if (value.empty()) return;
    if (!out.empty()) out += ' ';
    out.append(key).append("=").append(value);
  };
  // The target in the catalog's order of target fields, then the parameters
  // the action's row takes, in the row's order: what the step was given.
  for (TargetField f : target_fields()) {
    for_each_field<ActionTarget>([&](const auto& info) {
      if (info.key == to_string(f)) add(info.key, a.target.*(info.member));
    });
  }
  const ActionSpecInfo* spec = find_action(a.action);
  if (spec == nullptr) return out;
  for (std::string_view param : spec->params) {
    if (param.empty()) continue;
    for_each_field<ActionConfig>([&](const auto& info) {
      if (info.key == param) add(info.key, value_text(a.*(info.member)));
    });
  }
  return out;
}

Timeline::Timeline(std::string name, std::vector<TimelineStep> steps)
    : Component(std::move(name)), steps_(std::move(steps)) {}

void Timeline::on(std::string_view action, ActionHandler handler) {
  if (!handlers_.emplace(std::string(action), std::move(handler)).second) {
    throw SimulationError("two handlers registered for action \"" + std::string(action) + "\"");
  }
}

void Timeline::attach() {
  // The catalog's handlers, for the actions no on() handler took.
  for (const TimelineStep& step : steps_) {
    if (handlers_.contains(step.action.action)) continue;
    const ActionSpecInfo* info = find_action(step.action.action);
    if (info == nullptr || info->handler == nullptr) continue;
    handlers_.emplace(step.action.action, [this, handler = info->handler](const ActionConfig& a, ActionPhase phase) {
      handler(context_, a, phase);
    });
  }
  for (const TimelineStep& step : steps_) {
    if (handlers_.find(step.action.action) == handlers_.end()) {
      throw SimulationError("timeline step \"" + step.action.name + "\": no model handles action \"" +
                            step.action.action + "\"");
    }
  }
}

void Timeline::start() {
  applied_position_.assign(steps_.size(), 0);
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    schedule_at(
        steps_[i].start, "timeline.apply", [this, i] { run(i, ActionPhase::kApply); }, kPriority);
    if (steps_[i].end) {
      schedule_at(
          *steps_[i].end, "timeline.undo", [this, i] { run(i, ActionPhase::kUndo); }, kPriority);
    }
  }
}

void Timeline::run(std::size_t index, ActionPhase phase) {
  const TimelineStep& step = steps_[index];
  const std::string what = describe_action(step.action);
  if (phase == ActionPhase::kApply) {
    ++applied_;
    applied_position_[index] = applied_steps_.size();
    applied_steps_.push_back(AppliedStep{index, now(), std::nullopt});
    log_event(EventKind::timeline_action(step.action.action), step.action.name + (what.empty() ? "" : ": " + what));
  } else {
    // The undo is scheduled after the apply, so the step has its entry.
    applied_steps_[applied_position_[index]].undone = now();
    const std::string ended = step.action.action + ":end";
    log_event(EventKind::timeline_action(ended),
              step.action.name + " (duration over)" + (what.empty() ? "" : ": " + what));
  }
  handlers_.find(step.action.action)->second(step.action, phase);
}

void Timeline::stop() { recorder().kpi("timeline.actions_applied", {}, static_cast<double>(applied_)); }

}  // namespace drsim
