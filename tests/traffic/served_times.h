#pragma once
// A JobOwner for tests that submit jobs to a Service directly: when each
// token was answered (ns of simulated time), and that it was served.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>

#include "models/service/job.h"
#include "sim/simulation.h"

namespace drsim::test_support {

class ServedTimes : public JobOwner {
 public:
  explicit ServedTimes(Simulation& sim) : sim_(sim) {}
  void on_served(std::uint64_t token, ServeOutcome outcome) override {
    EXPECT_EQ(outcome, ServeOutcome::kServed);
    at[token] = to_ns(sim_.now());
  }
  std::map<std::uint64_t, std::int64_t> at;  // token -> when answered, ns

 private:
  Simulation& sim_;
};

}  // namespace drsim::test_support
