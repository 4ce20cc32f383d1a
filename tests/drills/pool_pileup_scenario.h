#pragma once
// The pool pile-up drill's scenario file and loss time, shared by its tests
// (pool_pileup_test.cc, pool_pileup_seeds_test.cc).
namespace drsim::test_support {

inline constexpr const char* kPoolPileupScenario = "scenarios/three_region_pool_pileup.yaml";
inline constexpr double kPoolPileupLoss = 300;  // north-lost, at 5 min

}  // namespace drsim::test_support
