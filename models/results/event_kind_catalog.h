#pragma once
// Every event kind a model logs (sim/event_kind.h), gathered from the areas'
// headers: the docs' table (drsim docs), the objective judge, the Python
// package and the tests read it. The timeline's kinds are not here: they are
// the actions' names (models/actions/action_catalog.h), see
// is_timeline_event_kind.
#include <span>
#include <string_view>

#include "sim/event_kind.h"

namespace drsim {

// In area order (data, topology, traffic, kube), each area's in declaration order.
std::span<const EventKind> event_kind_catalog();
// nullptr when no model logs that kind.
const EventKind* find_event_kind(std::string_view name);
// The kind now spelled for a spelling used before issue 16 ("leader-elected"
// is kafka.leader_elected; "elected" is raft.leader_elected); nullptr when the
// spelling was never used.
const EventKind* find_event_kind_formerly(std::string_view old_name);
// A timeline step's kind: an action's name, or a reversible action's name
// followed by ":end" (its duration is over).
bool is_timeline_event_kind(std::string_view name);

}  // namespace drsim
