#pragma once
// A range of delays a detection path implies from its settings alone: what
// `drsim describe` prints for a fault and the tests check simulated times against.
#include "sim/time.h"

namespace drsim {

struct DelayRange {
  Duration above;    // exclusive
  Duration at_most;  // inclusive
};

}  // namespace drsim
