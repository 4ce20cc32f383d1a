#include "models/traffic/cdn_config.h"

namespace drsim {

std::vector<ConfigProblem> CdnConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (vendors.empty()) problems.push_back({"vendors", "expected at least one vendor"});
  for (std::size_t i = 0; i < vendors.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (vendors[j].name == vendors[i].name) {
        problems.push_back({"vendors[" + std::to_string(i) + "].name", "duplicate vendor name"});
      }
    }
  }
  if (failure_threshold == 0) problems.push_back({"failureThreshold", "must be positive"});
  if (check_interval && vendors.size() < 2) {
    problems.push_back({"checkInterval", "expected at least two vendors to switch between"});
  }
  return problems;
}

}  // namespace drsim
