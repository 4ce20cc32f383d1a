#include "models/actions/timeline.h"

#include <sstream>
#include <string>

#include "sim/errors.h"
#include "sim/simulation.h"
#include "sim/units.h"

namespace drsim {

std::string describe_action(const ActionConfig& a) {
  std::string out;
  auto add = [&](std::string_view key, const std::string& value) {
    if (value.empty()) return;
    if (!out.empty()) out += ' ';
    out.append(key).append("=").append(value);
  };
  add("service", a.target.service);
  add("zone", a.target.zone);
  add("region", a.target.region);
  add("link", a.target.link);
  if (a.latency) add("latency", format_duration(*a.latency));
  if (a.loss) add("loss", format_ratio(*a.loss));
  if (a.bandwidth) add("bandwidth", format_bandwidth(*a.bandwidth));
  if (a.ratio) add("ratio", format_ratio(*a.ratio));
  if (a.replicas) add("replicas", std::to_string(*a.replicas));
  if (a.count) add("count", std::to_string(*a.count));
  if (a.percent) add("percent", format_ratio(*a.percent));
  if (a.factor) {
    std::ostringstream factor;
    factor << *a.factor;
    add("factor", factor.str());
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
    log_event(step.action.action, step.action.name + (what.empty() ? "" : ": " + what));
  } else {
    // The undo is scheduled after the apply, so the step has its entry.
    applied_steps_[applied_position_[index]].undone = now();
    log_event(step.action.action + ":end", step.action.name + " (duration over)" + (what.empty() ? "" : ": " + what));
  }
  handlers_.find(step.action.action)->second(step.action, phase);
}

void Timeline::stop() { recorder().kpi("timeline.actions_applied", {}, static_cast<double>(applied_)); }

}  // namespace drsim
