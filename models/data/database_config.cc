#include "models/data/database_config.h"

namespace drsim {

ReplicationMode DatabaseConfig::mode() const {
  if (replication == "semi-sync") return ReplicationMode::kSemiSync;
  if (replication == "sync") return ReplicationMode::kSync;
  return ReplicationMode::kAsync;
}

std::uint32_t DatabaseConfig::required_acks() const {
  if (sync_acks > 0) return sync_acks;
  return static_cast<std::uint32_t>((1 + replicas.size()) / 2);
}

Duration DatabaseConfig::renew_interval() const {
  if (lease_renew_interval) return *lease_renew_interval;
  return lease_timeout ? *lease_timeout / 3 : Duration::zero();
}

std::vector<ConfigProblem> DatabaseConfig::validate() const {
  std::vector<ConfigProblem> out;
  if (lease_renew_interval && !lease_timeout) {
    out.push_back({"leaseRenewInterval", "goes with leaseTimeout (the lease it renews)"});
  }
  if (lease_timeout && renew_interval() >= *lease_timeout) {
    out.push_back({"leaseRenewInterval", "must be shorter than leaseTimeout, or a healthy primary would lose its "
                                         "lease between two renewals"});
  }
  if (lease_timeout && renew_interval() <= Duration::zero()) {
    out.push_back({"leaseTimeout", "is too short to renew: give at least 3 ns or set leaseRenewInterval"});
  }
  if (replication != "async" && replication != "semi-sync" && replication != "sync") {
    out.push_back({"replication", "expected async, semi-sync or sync, got \"" + replication + "\""});
  }
  if (ship_interval && replication != "async") {
    out.push_back({"shipInterval", "expected only with async replication (a commit waits for no batch), got " +
                                       replication});
  }
  if (failover != "automatic" && failover != "manual") {
    out.push_back({"failover", "expected automatic or manual, got \"" + failover + "\""});
  }
  if (replicas.empty() && replication != "async") {
    out.push_back({"replicas", replication + " replication needs at least one replica"});
  }
  if (mode() == ReplicationMode::kSync && required_acks() > replicas.size()) {
    out.push_back({"syncAcks", "is above the number of replicas (" + std::to_string(replicas.size()) +
                                   "): no write could ever commit"});
  }
  if (mode() == ReplicationMode::kSync && required_acks() == 0) {
    out.push_back({"syncAcks", "sync replication needs at least one acknowledgement"});
  }
  if (write_size.bytes <= 0) out.push_back({"writeSize", "must be positive"});
  if (link_share.value <= 0 || link_share.value > 1) out.push_back({"linkShare", "must be in (0%, 100%]"});
  if (health_check_interval <= Duration::zero()) out.push_back({"healthCheckInterval", "must be positive"});
  if (failure_threshold == 0) out.push_back({"failureThreshold", "must be positive"});
  if (max_connections == 0) out.push_back({"maxConnections", "must be positive"});
  if (query_time) {
    for (ConfigProblem& p : query_time->validate()) out.push_back({"queryTime." + p.field, p.message});
  }
  return out;
}

}  // namespace drsim
