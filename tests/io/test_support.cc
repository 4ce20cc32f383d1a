#include "tests/io/test_support.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace drsim::testing {

namespace {

class RunFromSourceTree : public ::testing::Environment {
 public:
  void SetUp() override { std::filesystem::current_path(DRSIM_SOURCE_DIR); }
};

const auto* const kRunFromSourceTree = ::testing::AddGlobalTestEnvironment(new RunFromSourceTree);

}  // namespace

std::string scenario_with(std::string_view spec_tail) {
  return std::string(R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata:
  name: test
spec:
  duration: 1h
  topology:
    regions:
      - name: eu-west-1
        zones: [{name: eu-west-1a}, {name: eu-west-1b}]
      - name: us-east-1
        zones: [{name: us-east-1a}]
    links:
      - {name: eu-us, between: [eu-west-1, us-east-1], rtt: 80ms, bandwidth: 10Gbps}
)") + std::string(spec_tail);
}

}  // namespace drsim::testing
