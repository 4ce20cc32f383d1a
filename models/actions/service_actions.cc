// traffic:cut, service:scale, pods:kill and service:slow: the services' pods
// and balancers.
#include <cmath>
#include <cstdint>

#include "models/actions/action_config.h"
#include "models/actions/action_context.h"
#include "models/actions/action_handlers.h"
#include "models/service/service.h"
#include "sim/errors.h"

namespace drsim::action_handlers {

namespace {
Service& service(ActionContext& context, const ActionConfig& a) {
  for (Service* s : context.services) {
    if (s->config().name == a.target.service) return *s;
  }
  throw SimulationError("unknown service \"" + a.target.service + "\" in step \"" + a.name + "\"");
}
std::size_t zone(Service& s, const ActionConfig& a) {
  if (auto z = s.find_zone(a.target.zone)) return *z;
  throw SimulationError("service \"" + s.config().name + "\" has no pods in zone \"" + a.target.zone + "\" (step \"" +
                        a.name + "\")");
}
template <class Value>
auto required(const Value& value, const ActionConfig& a, const char* key) {
  if (!value) throw SimulationError("step \"" + a.name + "\": " + a.action + " needs " + key);
  return *value;
}
}  // namespace

void traffic_cut(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  Service& s = service(context, a);
  s.set_cut_ratio(zone(s, a), phase == ActionPhase::kApply ? required(a.ratio, a, "ratio").value : 1.0);
}

void service_scale(ActionContext& context, const ActionConfig& a, ActionPhase) {
  Service& s = service(context, a);
  s.set_replicas(zone(s, a), required(a.replicas, a, "replicas"));
}

void pods_kill(ActionContext& context, const ActionConfig& a, ActionPhase) {
  Service& s = service(context, a);
  const std::size_t z = zone(s, a);
  std::uint32_t n = 0;
  if (a.count) {
    n = *a.count;
  } else {
    const double share = required(a.percent, a, "count or percent").value;
    n = static_cast<std::uint32_t>(std::floor(share * s.pods(z)));
    if (share > 0 && n == 0) n = 1;
  }
  s.kill_pods(z, n);
}

void service_slow(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  service(context, a).set_slowdown(phase == ActionPhase::kApply ? required(a.factor, a, "factor") : 1.0);
}

}  // namespace drsim::action_handlers
