#include "models/data/raft_config.h"

namespace drsim {

std::vector<ConfigProblem> RaftConfig::validate() const {
  std::vector<ConfigProblem> out;
  if (members.empty()) out.push_back({"members", "a consensus group needs at least one member"});
  if (election_timeout <= Duration::zero()) out.push_back({"electionTimeout", "must be positive"});
  if (heartbeat_interval <= Duration::zero()) out.push_back({"heartbeatInterval", "must be positive"});
  if (heartbeat_interval >= election_timeout) {
    out.push_back({"heartbeatInterval", "must be below electionTimeout, or followers campaign between heartbeats"});
  }
  return out;
}

}  // namespace drsim
