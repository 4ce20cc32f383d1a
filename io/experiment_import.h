#pragma once
// `drsim import experiment`: the timeline steps of a fault experiment written for another tool, against a
// scenario whose zones, services and databases the steps name (docs/import.md).
//
// AWS FIS experiment templates (JSON, as `aws fis get-experiment-template` prints them or as written for
// `create-experiment-template`; the AZ Availability: Power Interruption scenario is one):
//   aws:network:disrupt-connectivity (scope all) on a zone's subnets  zone:fail for its duration (the zone's
//                                                                     pods cannot be reached; noted)
//   aws:ec2:stop-instances / terminate-instances, every instance of a zone  zone:fail (until
//                                                                     startInstancesAfterDuration)
//   aws:rds:failover-db-cluster                                        database:kill of the database of the
//                                                                     cluster's name (its failover promotes)
//   aws:eks:pod-delete of a deployment's pods                          pods:kill per zone
//   aws:fis:wait                                                       the delay of the steps after it
// Chaos Mesh (YAML): PodChaos pod-kill / pod-failure / container-kill -> pods:kill; NetworkChaos partition of
// every pod on a zone's nodes -> zone:fail for its duration.
// An action's startAfter is drsim's (a step starts when the ones it names have ended). Everything else
// (other actions, stop conditions, selections by count or tag, StressChaos) is a note with its position.
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/kubernetes_import.h"
#include "io/scenario.h"
#include "sim/time.h"

namespace drsim {

struct ExperimentImportOptions {
  // An AZ name or ID of the experiment -> a zone of the scenario ("use1-az1" -> "zone-a"); a name not given
  // here must be a zone of the scenario.
  std::map<std::string, std::string> zone_names;
  // When the experiment starts in the run.
  Duration start{std::chrono::minutes(1)};
};

struct ExperimentImport {
  std::vector<ActionConfig> steps;
  std::vector<std::string> sources;  // per step: where it came from, for the output's comments
  std::vector<ImportNote> notes;
};

// The steps of the experiment files (FIS JSON or Chaos Mesh YAML, told apart by their content) against
// `scenario`. Throws ScenarioError (file, line, column, what was expected) for a malformed experiment or a
// zone, service or database the scenario does not have.
ExperimentImport import_experiment_texts(const Scenario& scenario,
                                         const std::vector<std::pair<std::string, std::string>>& files,
                                         const ExperimentImportOptions& options);
ExperimentImport import_experiment(const Scenario& scenario, const std::vector<std::filesystem::path>& files,
                                   const ExperimentImportOptions& options);

// The scenario file's text with the steps appended to its timeline, each commented with its source. The text
// is kept as written when its spec is the document's last key and its timeline, if any, is a block list and
// spec's last key; otherwise the resolved scenario (to_yaml) is written with the steps. Throws ScenarioError
// when the result does not load (a step's name taken by the scenario's own timeline).
std::string scenario_with_steps(const std::string& scenario_text, const std::string& scenario_file,
                                const ExperimentImport& experiment);
// The same for the scenario file read from disk (ScenarioError when it cannot be read).
std::string scenario_file_with_steps(const std::string& scenario_file, const ExperimentImport& experiment);

}  // namespace drsim
