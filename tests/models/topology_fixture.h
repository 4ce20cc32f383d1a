#pragma once
// A small topology for model tests: regions r1 (zones a, b), r2 (zone c) and
// r3 (zone d), links r1-r2 (28 ms), r2-r3 (22 ms), r1-r3 (38 ms).
#include "models/topology/topology_config.h"

namespace drsim::testing {

inline TopologyConfig three_region_config() {
  using namespace std::chrono_literals;
  TopologyConfig config;
  config.regions = {
      RegionConfig{"r1", {ZoneConfig{"a"}, ZoneConfig{"b"}}, 2ms},
      RegionConfig{"r2", {ZoneConfig{"c"}}, 1ms},
      RegionConfig{"r3", {ZoneConfig{"d"}}, 1ms},
  };
  config.links = {
      LinkConfig{"r1-r2", {"r1", "r2"}, 28ms, 0ms, Bandwidth{10e9}, Ratio{0}},
      LinkConfig{"r2-r3", {"r2", "r3"}, 22ms, 0ms, Bandwidth{10e9}, Ratio{0}},
      LinkConfig{"r1-r3", {"r1", "r3"}, 38ms, 0ms, Bandwidth{10e9}, Ratio{0}},
  };
  return config;
}

}  // namespace drsim::testing
