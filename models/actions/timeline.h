#pragma once
// Replays a scenario's timeline: at each step's start it applies the action,
// and at its end (when the step has a duration) it undoes it. Each action is
// performed by its catalog row's handler (action_catalog.h) on the models of
// the timeline's context(), which the builder fills in; a handler registered
// with on() takes the place of the catalog's (unit tests drive single models
// so). A step whose action nobody handles is an error when the run starts,
// not a silent no-op.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/actions/action_catalog.h"
#include "models/actions/action_config.h"
#include "models/actions/action_context.h"
#include "sim/component.h"

namespace drsim {

struct TimelineStep {
  ActionConfig action;
  SimTime start{};
  std::optional<SimTime> end;  // the undo, when the step has a duration
};

// A step as it ran: when it was applied and, if its duration ran out within
// the run, when it was undone.
struct AppliedStep {
  std::size_t step = 0;  // index into Timeline::steps()
  SimTime applied{};
  std::optional<SimTime> undone;
};

using ActionHandler = std::function<void(const ActionConfig&, ActionPhase)>;

class Timeline : public Component {
 public:
  // Timeline steps run before other events of the same instant, so that a
  // fault at 10:00 is in force for everything else that happens at 10:00.
  static constexpr int kPriority = -64;

  Timeline(std::string name, std::vector<TimelineStep> steps);

  // Registers a handler for an action name in place of the catalog's; one per action.
  void on(std::string_view action, ActionHandler handler);
  // The models the catalog's handlers act on; fill in before the run starts.
  ActionContext& context() { return context_; }
  const std::vector<TimelineStep>& steps() const { return steps_; }
  // Steps applied so far (undos not counted).
  std::size_t applied_count() const { return applied_; }
  // The steps applied so far, in the order they were applied, with their undo
  // times. A run stopped early lists only what it reached.
  const std::vector<AppliedStep>& applied_steps() const { return applied_steps_; }

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  void run(std::size_t step, ActionPhase phase);

  std::vector<TimelineStep> steps_;
  ActionContext context_;
  std::map<std::string, ActionHandler, std::less<>> handlers_;
  std::size_t applied_ = 0;
  std::vector<AppliedStep> applied_steps_;
  std::vector<std::size_t> applied_position_;  // by step: its entry in applied_steps_
};

// "zone=eu-west-1a latency=50ms": the target and the parameters the action's
// catalog row takes (in the row's order), for logs and the events' details.
std::string describe_action(const ActionConfig& action);

}  // namespace drsim
