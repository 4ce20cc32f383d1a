#include "models/traffic/dns_cache_config.h"

namespace drsim {

std::vector<ConfigProblem> DnsCacheConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (record_ttl <= Duration::zero()) problems.push_back({"recordTtl", "must be positive"});
  if (client_cache_ttl < Duration::zero()) problems.push_back({"clientCacheTtl", "must not be negative"});
  if (clients == 0) problems.push_back({"clients", "must be positive"});
  if (resolvers == 0) problems.push_back({"resolvers", "must be positive"});
  if (resolvers > clients) problems.push_back({"resolvers", "expected at most clients"});
  for (std::size_t i = 0; i < providers.size(); ++i) {
    const std::string at = "providers[" + std::to_string(i) + "]";
    if (providers[i].zones.empty()) problems.push_back({at + ".zones", "expected at least one zone"});
    if (providers[i].rtt <= Duration::zero()) problems.push_back({at + ".rtt", "must be positive"});
    for (std::size_t j = 0; j < i; ++j) {
      if (providers[j].name == providers[i].name) problems.push_back({at + ".name", "duplicate provider name"});
    }
  }
  if (query_timeout > resolution_timeout) problems.push_back({"queryTimeout", "expected at most resolutionTimeout"});
  return problems;
}

}  // namespace drsim
