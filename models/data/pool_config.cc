#include "models/data/pool_config.h"

namespace drsim {

using namespace std::chrono_literals;

bool PoolConfig::idle_timeout_applies() const {
  if (idle_timeout <= Duration::zero() || min_idle() >= maximum_pool_size) return false;
  return max_lifetime <= Duration::zero() || idle_timeout + 1s <= max_lifetime;
}

std::vector<ConfigProblem> PoolConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (maximum_pool_size == 0) problems.push_back({"maximumPoolSize", "must be at least 1"});
  if (minimum_idle && *minimum_idle > maximum_pool_size) {
    problems.push_back({"minimumIdle", "exceeds maximumPoolSize (HikariCP would use maximumPoolSize)"});
  }
  if (connection_timeout < 250ms) {
    problems.push_back({"connectionTimeout", "below HikariCP's 250 ms floor (it would use 30 s)"});
  }
  if (validation_timeout < 250ms) {
    problems.push_back({"validationTimeout", "below HikariCP's 250 ms floor (it would use 5 s)"});
  }
  if (max_lifetime > Duration::zero() && max_lifetime < 30s) {
    problems.push_back({"maxLifetime", "below 30 s (HikariCP would use 30 min)"});
  }
  if (keepalive_time > Duration::zero() && keepalive_time < 30s) {
    problems.push_back({"keepaliveTime", "below 30 s (HikariCP would disable it)"});
  }
  if (keepalive_time > Duration::zero() && max_lifetime > Duration::zero() && keepalive_time >= max_lifetime) {
    problems.push_back({"keepaliveTime", "not below maxLifetime (HikariCP would disable it)"});
  }
  if (min_idle() < maximum_pool_size && idle_timeout > Duration::zero()) {
    if (max_lifetime > Duration::zero() && idle_timeout + 1s > max_lifetime) {
      problems.push_back({"idleTimeout", "within 1 s of maxLifetime or above (HikariCP would disable it)"});
    } else if (idle_timeout < 10s) {
      problems.push_back({"idleTimeout", "below 10 s (HikariCP would use 10 min)"});
    }
  }
  for (ConfigProblem p : tcp.validate()) {
    p.field = "tcp." + p.field;
    problems.push_back(std::move(p));
  }
  return problems;
}

}  // namespace drsim
