#include "fuzz/fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/scenario_loader.h"

namespace drsim::fuzz {

namespace {

// Past these a topology is big, not wrong: the targets skip it rather than
// report its run time as a hang.
constexpr std::size_t kMaxZones = 16;
constexpr std::size_t kMaxServices = 16;
constexpr std::uint64_t kMaxPods = 256;
constexpr std::uint64_t kMaxWorkerSlots = 20'000;  // pods x concurrency
constexpr std::size_t kMaxPopulations = 16;
constexpr std::size_t kMaxTimelineSteps = 64;
constexpr std::size_t kMaxDataGroups = 16;  // databases + consensus groups + topics
constexpr std::uint64_t kMaxPartitions = 64;
constexpr std::uint64_t kMaxNodes = 256;

}  // namespace

void report_bug(std::string_view stage, std::string_view what) {
  std::fprintf(stderr, "drsim fuzz: internal error in %.*s: %.*s\n", static_cast<int>(stage.size()), stage.data(),
               static_cast<int>(what.size()), what.data());
  std::abort();
}

std::optional<Scenario> load(std::string_view text, const std::vector<std::string>& overrides) {
  std::optional<Scenario> scenario;
  survives("load_scenario_text", [&] {
    scenario = load_scenario_text(text, overrides, "<fuzz>", std::filesystem::path(DRSIM_FUZZ_BASE_DIR));
  });
  return scenario;
}

bool small_enough(const Scenario& scenario) {
  const DeploymentConfig& deployment = scenario.spec.topology.config;
  std::size_t zones = 0;
  for (const RegionConfig& region : deployment.regions) zones += region.zones.size();
  std::uint64_t pods = 0;
  std::uint64_t slots = 0;
  for (const ServiceConfig& service : deployment.services) {
    for (const ReplicasConfig& replicas : service.replicas) {
      pods += replicas.replicas;
      slots += std::uint64_t{replicas.replicas} * service.concurrency;
    }
  }
  std::uint64_t partitions = 0;
  for (const TopicConfig& topic : deployment.topics) partitions += topic.partitions;
  std::uint64_t nodes = 0;
  if (scenario.spec.kubernetes) {
    for (const NodePoolConfig& pool : scenario.spec.kubernetes->node_pools) {
      nodes += std::max<std::uint64_t>(pool.nodes, pool.max_nodes.value_or(0));
    }
  }
  return zones <= kMaxZones && deployment.services.size() <= kMaxServices && pods <= kMaxPods &&
         slots <= kMaxWorkerSlots && scenario.spec.load.size() <= kMaxPopulations &&
         scenario.spec.timeline.size() <= kMaxTimelineSteps &&
         deployment.databases.size() + deployment.consensus_groups.size() + deployment.topics.size() <=
             kMaxDataGroups &&
         partitions <= kMaxPartitions && nodes <= kMaxNodes;
}

std::vector<std::string> split_overrides(std::string_view text, std::size_t max_count) {
  std::vector<std::string> overrides;
  while (!text.empty() && overrides.size() < max_count) {
    const std::size_t end = text.find('\n');
    overrides.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return overrides;
}

const std::string& shop_scenario_file() {
  static const std::string file =
      (std::filesystem::path(DRSIM_FUZZ_BASE_DIR) / "online_boutique_zone_loss.yaml").string();
  return file;
}

const std::string& shop_scenario_text() {
  static const std::string text = [] {
    std::ifstream in(shop_scenario_file(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  return text;
}

}  // namespace drsim::fuzz
