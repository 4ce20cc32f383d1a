#pragma once
// The kind of a row of the events table (events.csv). A model logs only kinds
// its area declares, once each with a line saying what it means, in a header
// named <area>_event_kinds.h (models/data, topology, traffic, kube); the whole
// list, for the docs and the tests, is models/results/event_kind_catalog.h.
//
// One spelling: "<area>.<what>", both lowercase snake_case ("raft.leader_elected",
// "pod.crashed"). The constructor is consteval and checks it, so a misspelt or
// ad-hoc kind does not compile, and Component::log_event takes an EventKind,
// so a string literal cannot stand in for one.
//
// The one exception is the timeline: a step's events are spelled as its action
// ("zone:fail", and "zone:fail:end" when its duration is over), whose list is
// the action catalog (models/actions/action_catalog.h).
#include <string_view>

namespace drsim {

// "<area>.<what>": one dot, each side a lowercase letter then lowercase
// letters, digits or single underscores, not ending in one.
constexpr bool is_event_kind_spelling(std::string_view name) {
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos || name.find('.', dot + 1) != std::string_view::npos) return false;
  for (std::string_view part : {name.substr(0, dot), name.substr(dot + 1)}) {
    if (part.empty() || part.front() < 'a' || part.front() > 'z' || part.back() == '_') return false;
    char previous = 0;
    for (char c : part) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '_' && previous != '_');
      if (!ok) return false;
      previous = c;
    }
  }
  return true;
}

// What else a kind is, beyond its name. `formerly` is the spelling it had
// before issue 16 gave every kind one: the drill library and the output
// comparison (scripts/compare_outputs.py) map old spellings with it.
struct EventKindTraits {
  std::string_view formerly;
  // The system noticed a failure: the objective judge's detection time
  // (models/results/objective_judge.h) runs to the first such event.
  bool detects_failure = false;
};

class EventKind {
 public:
  consteval EventKind(std::string_view name, std::string_view doc, EventKindTraits traits = {})
      : name_(name), doc_(doc), traits_(traits) {
    // Not a constant expression, so a bad spelling is a compile error.
    if (!is_event_kind_spelling(name)) throw "an event kind is spelled <area>.<what_in_snake_case>";
    if (doc.empty()) throw "an event kind says what it means";
  }

  // The timeline's kinds: its step's action name, or that name + ":end"
  // (held by the caller for the call). Nothing else logs these.
  static EventKind timeline_action(std::string_view spelled) { return EventKind(spelled); }

  constexpr std::string_view name() const { return name_; }
  constexpr std::string_view doc() const { return doc_; }
  constexpr std::string_view formerly() const { return traits_.formerly; }
  constexpr bool detects_failure() const { return traits_.detects_failure; }

 private:
  constexpr explicit EventKind(std::string_view spelled) : name_(spelled) {}

  std::string_view name_;
  std::string_view doc_;
  EventKindTraits traits_;
};

}  // namespace drsim
