#pragma once
// Wiring hand-built services to each other in the traffic tests, as the
// scenario builder does from the config: a call names its callee.
#include <string_view>
#include <vector>

#include "models/service/service.h"

namespace drsim::test_support {

// Connects every service's calls to the service of that name among
// `services` (unknown names: no target). `services` must outlive the run.
inline void connect_by_name(const std::vector<Service*>& services) {
  for (Service* s : services) {
    s->connect_calls([&services](std::string_view name) -> Service* {
      for (Service* candidate : services) {
        if (candidate->config().name == name) return candidate;
      }
      return nullptr;
    });
  }
}

}  // namespace drsim::test_support
