#pragma once
// The command line of `drsim`, parsed into plain data. Parsing never exits the
// process: a mistake is a UsageError, which main() reports with exit code 2.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/time.h"

namespace drsim::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Arguments {
  std::string command;  // run, validate, describe, check, recommend-policy, docs, version, help
  std::string file;
  std::vector<std::string> overrides;  // --set path=value, in order
  std::optional<std::uint64_t> seed;
  std::optional<Duration> until;
  std::string out_dir;  // empty: results/<scenario name>
  bool quiet = false;
  bool fail_on_objective = false;         // run: --fail-on-objective
  std::string docs_format = "markdown";   // docs: markdown | schema | event-kinds
  double utilization_target = 0.8;        // check: --target
  bool json = false;                      // check, recommend-policy: --json
  bool fail_on_overload = false;          // check: --fail-on-overload
  std::string service;                    // recommend-policy: --service
  std::string zone;                       // recommend-policy: --zone (the failed zone)
  std::optional<std::uint32_t> replicas;  // recommend-policy: --replicas (default: compensation)
  bool migrate = false;                   // recommend-policy: --migrate
  // import: `import kubernetes PATH...`
  std::string import_kind;          // kubernetes, experiment or traces
  std::vector<std::string> inputs;  // files and directories
  std::vector<std::string> zones;   // --zones a,b,c
  std::string region;               // --region (empty: region-1)
  std::string namespace_name;       // --namespace
  std::string name;                 // --name: the scenario's metadata.name (empty: imported)
  std::vector<std::pair<std::string, std::string>> metric_names;  // --metric FROM=TO
  std::string out_file;                                           // --out (empty: the scenario on stdout)
  // import experiment
  std::string scenario_file;                                  // --scenario
  std::optional<Duration> experiment_at;                      // --at
  std::vector<std::pair<std::string, std::string>> zone_map;  // --zone-map FROM=TO
  // import traces (and --scenario)
  std::optional<double> sampling;                                // --sampling RATIO
  std::optional<Duration> window;                                // --window
  std::optional<std::size_t> max_samples;                        // --samples N
  std::vector<std::pair<std::string, std::string>> service_map;  // --service-map FROM=TO
};

Arguments parse_arguments(const std::vector<std::string>& argv);
std::string usage_text();

}  // namespace drsim::cli
