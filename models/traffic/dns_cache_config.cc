#include "models/traffic/dns_cache_config.h"

namespace drsim {

std::vector<ConfigProblem> DnsCacheConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (record_ttl <= Duration::zero()) problems.push_back({"recordTtl", "must be positive"});
  if (client_cache_ttl < Duration::zero()) problems.push_back({"clientCacheTtl", "must not be negative"});
  if (clients == 0) problems.push_back({"clients", "must be positive"});
  if (resolvers == 0) problems.push_back({"resolvers", "must be positive"});
  if (resolvers > clients) problems.push_back({"resolvers", "expected at most clients"});
  return problems;
}

}  // namespace drsim
