#pragma once
// Small topology pieces the traffic tests build by hand.
#include <string>
#include <utility>

#include "models/topology/topology_config.h"
#include "sim/time.h"

namespace drsim::test_support {

// A link named "a-b" between regions a and b.
inline LinkConfig link(std::string a, std::string b, Duration rtt) {
  LinkConfig l;
  l.name = a + "-" + b;
  l.between = {a, b};
  l.rtt = rtt;
  return l;
}

}  // namespace drsim::test_support
