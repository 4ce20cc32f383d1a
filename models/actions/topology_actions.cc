// zone:, region:, link: and flow:transfer: the failure domains and network
// fidelity's bulk copies.
#include "models/actions/action_config.h"
#include "models/actions/action_context.h"
#include "models/actions/action_handlers.h"
#include "models/topology/failure_domains.h"
#include "models/topology/flow_transfers.h"
#include "sim/errors.h"
#include "sim/quote.h"

namespace drsim::action_handlers {

namespace {
FailureDomains& domains(ActionContext& context, const ActionConfig& a) {
  if (context.domains == nullptr) throw SimulationError("step " + quote(a.name) + ": no topology to act on");
  return *context.domains;
}
ZoneIndex zone(ActionContext& context, const ActionConfig& a) {
  if (auto z = domains(context, a).topology().find_zone(a.target.zone)) return *z;
  throw SimulationError("unknown zone \"" + a.target.zone + "\" in step \"" + a.name + "\"");
}
RegionIndex region(ActionContext& context, const ActionConfig& a) {
  if (auto r = domains(context, a).topology().find_region(a.target.region)) return *r;
  throw SimulationError("unknown region \"" + a.target.region + "\" in step \"" + a.name + "\"");
}
LinkIndex link(ActionContext& context, const ActionConfig& a) {
  if (auto l = domains(context, a).topology().find_link(a.target.link)) return *l;
  throw SimulationError("unknown link \"" + a.target.link + "\" in step \"" + a.name + "\"");
}
}  // namespace

void zone_fail(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  const ZoneIndex z = zone(context, a);
  phase == ActionPhase::kApply ? context.domains->fail_zone(z) : context.domains->recover_zone(z);
}

void zone_recover(ActionContext& context, const ActionConfig& a, ActionPhase) {
  context.domains->recover_zone(zone(context, a));
}

void region_fail(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  const RegionIndex r = region(context, a);
  phase == ActionPhase::kApply ? context.domains->fail_region(r) : context.domains->recover_region(r);
}

void region_recover(ActionContext& context, const ActionConfig& a, ActionPhase) {
  context.domains->recover_region(region(context, a));
}

void link_cut(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  const LinkIndex l = link(context, a);
  phase == ActionPhase::kApply ? context.domains->cut_link(l) : context.domains->end_cut(l);
}

void link_restore(ActionContext& context, const ActionConfig& a, ActionPhase) {
  context.domains->restore_link(link(context, a));
}

void link_degrade(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  const LinkIndex l = link(context, a);
  if (phase == ActionPhase::kApply) {
    context.domains->degrade_link(l, LinkDegradation{a.latency.value_or(Duration::zero()), a.loss, a.bandwidth});
  } else {
    context.domains->end_degradation(l);
  }
}

void flow_transfer(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  // The loader refuses flow:transfer without spec.network.fidelity: flows.
  if (context.transfers == nullptr) {
    throw SimulationError("step " + quote(a.name) + ": flow:transfer needs spec.network.fidelity: flows");
  }
  if (phase == ActionPhase::kApply) context.transfers->start_transfer(a.name);
}

}  // namespace drsim::action_handlers
