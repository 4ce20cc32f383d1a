// database:kill and database:failover: the databases.
#include "models/actions/action_config.h"
#include "models/actions/action_context.h"
#include "models/actions/action_handlers.h"
#include "models/data/database.h"
#include "sim/errors.h"
#include "sim/quote.h"

namespace drsim::action_handlers {

namespace {
Database& database(ActionContext& context, const ActionConfig& a) {
  for (Database* d : context.databases) {
    if (d->config().name == a.target.database) return *d;
  }
  throw SimulationError("step " + quote(a.name) + ": no database " + quote(a.target.database));
}
}  // namespace

void database_failover(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  if (phase == ActionPhase::kApply) database(context, a).failover();
}

void database_kill(ActionContext& context, const ActionConfig& a, ActionPhase phase) {
  if (phase == ActionPhase::kApply) {
    database(context, a).kill_primary();
  } else {
    database(context, a).restart_killed();
  }
}

}  // namespace drsim::action_handlers
