#pragma once
// A run's KPI by name and labels for the traffic tests: a test failure (and
// NaN, which no comparison passes) when the run did not record it.
#include <gtest/gtest.h>

#include <cmath>
#include <string_view>

#include "sim/recorder.h"

namespace drsim::test_support {

inline double kpi(const Recorder& recorder, std::string_view name, const Labels& labels) {
  const auto* k = recorder.find_kpi(name, labels);
  if (k == nullptr) {
    ADD_FAILURE() << "no KPI " << name;
    return NAN;
  }
  return k->value;
}

}  // namespace drsim::test_support
