#pragma once
// A scenario as plain data: the envelope (apiVersion, kind, metadata), the
// topology it runs on, the run settings, and the timeline. io/scenario_loader.h
// fills it from YAML and validates it; io/run.h turns it into a Simulation.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/data/database_config.h"
#include "models/data/raft_config.h"
#include "models/data/topic_config.h"
#include "models/kube/kube_config.h"
#include "models/results/objectives.h"
#include "models/service/service_config.h"
#include "models/actions/action_config.h"
#include "models/topology/flow_network_config.h"
#include "models/topology/topology_config.h"
#include "models/traffic/client_population.h"
#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

class SourceMap;  // io/source_map.h

struct Metadata {
  std::string name;
  std::string description;

  static constexpr std::string_view kTypeName = "Metadata";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &Metadata::name, "Short identifier of the document.", kRequired),
        field("description", &Metadata::description, "Free text for humans."),
    };
  }
};

// What is deployed where: the regions, zones and links of the topology
// (models/topology/topology_config.h) and the services whose pods run in its
// zones. A Topology document's spec, and what spec.topology holds. (The
// services sit here rather than in TopologyConfig itself so that the network
// model keeps a config of its own; a Topology built from this one slices them
// off.)
struct DeploymentConfig : TopologyConfig {
  std::vector<ServiceConfig> services;
  std::vector<DatabaseConfig> databases;
  std::vector<RaftConfig> consensus_groups;
  std::vector<TopicConfig> topics;

  static constexpr std::string_view kTypeName = "Topology";
  // The topology's own fields, then the services: declared once each.
  static constexpr auto fields() {
    return std::tuple_cat(
        TopologyConfig::fields(),
        std::tuple{field("services", &DeploymentConfig::services, "Services and where their pods run."),
                   field("databases", &DeploymentConfig::databases,
                         "Databases: a primary and replicas in zones, replication and failover."),
                   field("consensusGroups", &DeploymentConfig::consensus_groups,
                         "Raft-style groups (ZooKeeper, etcd, a placement driver's regions): members in zones, "
                         "elections, quorum."),
                   field("topics", &DeploymentConfig::topics,
                         "Kafka-style topics: partitions replicated over brokers in zones, ISR and leader "
                         "election, producers and consumer groups.")});
  }
};

// `spec.topology`: either the path of a `kind: Topology` file (relative to
// the scenario file) or the topology written inline. The decoder handles this
// type specially; after loading, `config` is filled either way.
struct TopologyRef {
  std::string path;         // empty when inline
  std::string source_file;  // the file the topology was read from
  DeploymentConfig config;
};

// Guards stop a run that would never end; partial results are still written.
struct GuardsConfig {
  std::uint64_t max_events = 0;  // 0: no limit
  Duration max_wall_time{};      // 0: no limit
  std::uint64_t max_events_per_instant = 10'000'000;
  // 0: 80% of the memory the process may use (io/run_estimate.h). Memory
  // has a limit by default: a run that outgrows the machine is stopped, with
  // its results so far, before the system kills it.
  ByteSize max_memory{0};
  // Ten million events per simulated second is 25 times a 20,000 requests/s
  // payment gateway with twenty events per request, and a hundredth of a
  // loop that advances a nanosecond per event (10^9): storms of timers set
  // to nanoseconds are caught, busy drills are not.
  std::uint64_t max_event_rate = 10'000'000;

  static constexpr std::string_view kTypeName = "Guards";
  static constexpr auto fields() {
    return std::tuple{
        field("maxEvents", &GuardsConfig::max_events, "Stop after this many events (0: no limit)."),
        field("maxWallTime", &GuardsConfig::max_wall_time, "Stop after this much wall-clock time (0s: no limit).",
              kNonNegative),
        field("maxEventsPerInstant", &GuardsConfig::max_events_per_instant,
              "Stop when this many events run without simulated time advancing (an event storm)."),
        field("maxMemory", &GuardsConfig::max_memory,
              "Refuse a run estimated to need more memory than this, and stop a run whose process holds more "
              "(0: 80% of the memory the process may use: the machine's, or its container's limit when lower).",
              kNonNegative),
        field("maxEventRate", &GuardsConfig::max_event_rate,
              "Stop when more than this many events run per simulated second, over a million events: an "
              "event storm whose time creeps forward (0: no limit)."),
    };
  }
};

// Traces of a sampled share of the requests, written to the results folder as traces.json (OpenTelemetry OTLP
// JSON, io/trace_json.h): what `drsim import traces` reads back (docs/import.md).
struct TracesConfig {
  Ratio sampling{0};  // 0: no traces
  std::uint64_t max_spans = 100'000;

  static constexpr std::string_view kTypeName = "Traces";
  static constexpr auto fields() {
    return std::tuple{
        field("sampling", &TracesConfig::sampling,
              "The share of the clients' requests traced, decided per request when it starts (head sampling; "
              "0: no traces). Which requests are traced follows the seed and the request's number, so turning "
              "traces on changes nothing else in the run.",
              kNonNegative | kAtMostOne),
        field("maxSpans", &TracesConfig::max_spans,
              "No new trace starts once this many spans are recorded (the traces under way finish), which bounds "
              "the memory and the file.",
              kPositive),
    };
  }
};

struct ScenarioSpec {
  TopologyRef topology;
  Duration duration{};
  std::uint64_t seed = 1;
  GuardsConfig guards;
  std::vector<ClientPopulationConfig> load;
  Duration metrics_window = std::chrono::seconds(1);
  bool pod_metrics = false;
  std::vector<ActionConfig> timeline;
  ObjectivesConfig objectives;
  std::optional<KubernetesConfig> kubernetes;  // absent: no control plane
  FlowNetworkConfig network;                   // closed-form unless fidelity: flows
  TracesConfig traces;

  static constexpr std::string_view kTypeName = "ScenarioSpec";
  static constexpr auto fields() {
    return std::tuple{
        field("topology", &ScenarioSpec::topology,
              "Path of a kind: Topology file (relative to this file), or the topology inline.", kRequired),
        field("duration", &ScenarioSpec::duration, "Simulated time to run (the default for --until).",
              kRequired | kPositive),
        field("seed", &ScenarioSpec::seed, "Run seed; every component's random stream derives from it."),
        field("guards", &ScenarioSpec::guards, "Limits that stop a runaway run."),
        field("load", &ScenarioSpec::load, "Client populations: who sends requests to which service, how fast."),
        field("metricsWindow", &ScenarioSpec::metrics_window,
              "Width of the windows of per-window series (counts, latency quantiles, gauges).", kPositive),
        field("podMetrics", &ScenarioSpec::pod_metrics,
              "Also record per-pod series (pod.utilization, pod.cpu_cores): one series per pod and metric."),
        field("timeline", &ScenarioSpec::timeline, "Faults and operator actions, in any order."),
        field("objectives", &ScenarioSpec::objectives,
              "What the run is judged against: the success ratio the clients must get back to after a fault, and "
              "the targets (RTO, RPO, availability, error budget, p99 latency) that `drsim run` gives a verdict on."),
        field("kubernetes", &ScenarioSpec::kubernetes,
              "The Kubernetes control plane: node pools, deployments with zone policies, HPAs (absent: pods are as the services declare them, and only timeline actions change them)."),
        field("network", &ScenarioSpec::network,
              "How the network between zones is modelled: closed-form, or flows through SimGrid (network "
              "fidelity: replication, re-sync and flow:transfer copies share the links' bandwidth)."),
        field("traces", &ScenarioSpec::traces,
              "Write traces of a sampled share of the requests (traces.json, OpenTelemetry OTLP JSON: the "
              "clients' requests, each service's SERVER spans and their calls' CLIENT spans)."),
    };
  }
};

// The absolute times of a timeline step, computed from at / startAfter + delay.
struct ResolvedAction {
  std::size_t index = 0;  // into spec.timeline
  SimTime start{};
  std::optional<SimTime> end;  // set when the action has a duration
  // When the action counts as finished for startAfter: its end, or its start.
  SimTime finish() const { return end.value_or(start); }
};

struct Scenario {
  std::string api_version;
  std::string kind;
  Metadata metadata;
  ScenarioSpec spec;

  static constexpr std::string_view kApiVersion = "drsim/v1alpha1";
  static constexpr std::string_view kTypeName = "Scenario";
  static constexpr auto fields() {
    return std::tuple{
        field("apiVersion", &Scenario::api_version, "Always drsim/v1alpha1.", kRequired),
        field("kind", &Scenario::kind, "Scenario.", kRequired),
        field("metadata", &Scenario::metadata, "Name and description.", kRequired),
        field("spec", &Scenario::spec, "What to run.", kRequired),
    };
  }

  // Filled by the loader.
  std::string source_file;           // path as given, or "<text>"
  std::string source_text;           // the YAML as read, for reloading with overrides
  std::filesystem::path base_dir;    // where relative paths resolve
  std::vector<std::string> overrides;  // "path=value" as applied, in order
  std::vector<ResolvedAction> resolved_timeline;  // sorted by (start, index)
  // Where every value was read (file:line:col, by YAML path), for messages
  // about the loaded scenario; shared by copies, null for one built in C++.
  std::shared_ptr<const SourceMap> source_map;
};

// The envelope of a `kind: Topology` file.
struct TopologyDocument {
  std::string api_version;
  std::string kind;
  Metadata metadata;
  DeploymentConfig spec;

  static constexpr std::string_view kTypeName = "TopologyDocument";
  static constexpr auto fields() {
    return std::tuple{
        field("apiVersion", &TopologyDocument::api_version, "Always drsim/v1alpha1.", kRequired),
        field("kind", &TopologyDocument::kind, "Topology.", kRequired),
        field("metadata", &TopologyDocument::metadata, "Name and description.", kRequired),
        field("spec", &TopologyDocument::spec, "Regions, zones, links and services.", kRequired),
    };
  }
};

}  // namespace drsim
