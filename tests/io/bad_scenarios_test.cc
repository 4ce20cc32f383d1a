// The bad-input corpus: tests/data/scenarios/bad/<reason>.yaml, one file per
// kind of mistake, each with the exact message a user sees.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "tests/io/test_support.h"

namespace drsim {
namespace {

struct BadCase {
  const char* reason;    // file name without .yaml
  const char* expected;  // the whole message, file:line:col included
};

std::ostream& operator<<(std::ostream& os, const BadCase& c) { return os << c.reason; }

const BadCase kBadCases[] = {
    {"database_unknown_monitor_zone",
     "tests/data/scenarios/bad/database_unknown_monitor_zone.yaml:16:22: spec.topology.databases[0].monitorZone: "
     "unknown zone \"nowhere\" (zones: a, b)\n"
     "tests/data/scenarios/bad/database_unknown_monitor_zone.yaml:17:24: spec.topology.databases[0].preferredZone: "
     "unknown zone \"bb\", did you mean \"b\"? (zones: a, b)\n"
     "tests/data/scenarios/bad/database_unknown_monitor_zone.yaml:18:26: spec.topology.databases[0].preferredRegion: "
     "unknown region \"q\", did you mean \"r\"? (regions: r)"},
    {"call_retry_on_unknown",
     "tests/data/scenarios/bad/call_retry_on_unknown.yaml:17:73: spec.topology.services[0].calls[0].retry.retryOn[1]: "
     "expected one of timeout, rejected, no_target, refused, dependency, got \"bogus\""},
    {"syntax_error", "tests/data/scenarios/bad/syntax_error.yaml:8:3: end of map flow not found"},
    {"unknown_key",
     "tests/data/scenarios/bad/unknown_key.yaml:18:3: spec.durattion: unknown key \"durattion\", did you mean "
     "\"duration\"? (valid keys: topology, duration, seed, guards, load, metricsWindow, podMetrics, timeline, "
     "objectives, kubernetes, network, traces)\n"
     "tests/data/scenarios/bad/unknown_key.yaml:7:3: spec: missing required key \"duration\""},
    {"missing_unit",
     "tests/data/scenarios/bad/missing_unit.yaml:18:13: spec.duration: expected a duration with a unit, e.g. "
     "\"28ms\", got \"30\""},
    {"wrong_unit",
     "tests/data/scenarios/bad/wrong_unit.yaml:16:14: spec.topology.links[0].rtt: expected a duration such as "
     "\"250ms\" or \"1h30m\" (units: ns, us, µs, ms, s, m, h, d), got \"80sec\""},
    {"negative_duration",
     "tests/data/scenarios/bad/negative_duration.yaml:22:11: spec.timeline[0].at: expected a non-negative "
     "duration, got \"-5m\""},
    {"unknown_reference",
     "tests/data/scenarios/bad/unknown_reference.yaml:23:22: spec.timeline[0].target.zone: unknown zone "
     "\"eu-west-1d\", did you mean \"eu-west-1a\"? (zones: eu-west-1a, eu-west-1b, us-east-1a)"},
    {"duplicate_name",
     "tests/data/scenarios/bad/duplicate_name.yaml:12:24: spec.topology.regions[1].zones[0].name: duplicate "
     "zone name \"eu-west-1b\" (first defined at line 10)"},
    {"startafter_cycle",
     "tests/data/scenarios/bad/startafter_cycle.yaml:22:20: spec.timeline[0].startAfter[0]: startAfter cycle: "
     "a -> c -> b -> a (each waits for the next)"},
    {"empty_file", "tests/data/scenarios/bad/empty_file.yaml: expected a Scenario document, got an empty file"},
    {"binary_garbage", "tests/data/scenarios/bad/binary_garbage.yaml:2:1: expected UTF-8 text, got byte 0x00"},
    {"missing_required",
     "tests/data/scenarios/bad/missing_required.yaml:20:7: spec.timeline[0]: missing required key \"target\""},
    {"wrong_api_version",
     "tests/data/scenarios/bad/wrong_api_version.yaml:2:13: apiVersion: expected \"drsim/v1alpha1\", got "
     "\"drsim/v1\""},
    {"wrong_kind", "tests/data/scenarios/bad/wrong_kind.yaml:3:7: kind: expected \"Scenario\", got \"Topology\""},
    {"duplicate_key",
     "tests/data/scenarios/bad/duplicate_key.yaml:20:3: spec.seed: duplicate key \"seed\" (first at line 19)"},
    {"yaml_tag",
     "tests/data/scenarios/bad/yaml_tag.yaml:6:9: metadata.name: expected a value without a YAML tag (tags are not "
     "supported), got the tag !foo\n"
     "tests/data/scenarios/bad/yaml_tag.yaml:20:9: spec.seed: expected a value without a YAML tag (tags are not "
     "supported), got the tag !!str"},
    {"name_control_character",
     "tests/data/scenarios/bad/name_control_character.yaml:6:9: metadata.name: expected a name without control "
     "characters, got \"drill\\x0d\"\n"
     "tests/data/scenarios/bad/name_control_character.yaml:11:44: spec.topology.regions[0].zones[1].name: expected "
     "a name without control characters, got \"eu-west-1b\\x09\""},
    {"at_and_startafter",
     "tests/data/scenarios/bad/at_and_startafter.yaml:27:19: spec.timeline[1].startAfter: expected either at or "
     "startAfter, got both"},
    {"duration_not_reversible",
     "tests/data/scenarios/bad/duration_not_reversible.yaml:23:17: spec.timeline[0].duration: zone:recover "
     "cannot be undone, so it takes no duration"},
    {"param_not_allowed",
     "tests/data/scenarios/bad/param_not_allowed.yaml:23:16: spec.timeline[0].latency: zone:fail takes no "
     "parameter \"latency\" (it takes none)"},
    {"ratio_over_100",
     "tests/data/scenarios/bad/ratio_over_100.yaml:23:13: spec.timeline[0].loss: expected a percentage of at "
     "most 100%, got \"150%\""},
    {"null_value", "tests/data/scenarios/bad/null_value.yaml:19:3: spec.seed: expected an unsigned integer, got null"},
    {"bad_integer",
     "tests/data/scenarios/bad/bad_integer.yaml:19:9: spec.seed: expected an unsigned integer, got \"1.5\""},
    {"quoted_integer",
     "tests/data/scenarios/bad/quoted_integer.yaml:19:9: spec.seed: expected an unsigned integer, got the quoted "
     "string \"7\""},
    {"multiple_documents", "tests/data/scenarios/bad/multiple_documents.yaml:20:1: expected one YAML document, got 2"},
    {"stray_comma",
     "tests/data/scenarios/bad/stray_comma.yaml:3:1: expected a value (a scalar, a [list] or a {mapping}), got \",\""},
    {"deep_nesting",
     "tests/data/scenarios/bad/deep_nesting.yaml:8:6013: expected fewer levels of nesting, got more than the "
     "YAML parser allows"},
    {"missing_topology_file",
     "tests/data/scenarios/bad/missing_topology_file.yaml:7:13: spec.topology: cannot read topology file "
     "\"tests/data/scenarios/bad/no_such_topology.yaml\": No such file or directory"},
    {"link_unknown_region",
     "tests/data/scenarios/bad/link_unknown_region.yaml:15:30: spec.topology.links[0].between[1]: unknown region "
     "\"us-east1\", did you mean \"us-east-1\"? (regions: eu-west-1, us-east-1)"},
    {"region_without_zones",
     "tests/data/scenarios/bad/region_without_zones.yaml:12:16: spec.topology.regions[1].zones: expected at least "
     "one zone, got none"},
    {"service_defaults_bad_value",
     "tests/data/scenarios/bad/service_defaults_bad_value.yaml:14:19: spec.topology.serviceDefaults.queueLimit: "
     "expected an unsigned integer, got \"-1\""},
    {"topology_file_error",
     "tests/data/topologies/broken_rtt.yaml:16:12: spec.links[0].rtt: expected a duration with a unit, e.g. "
     "\"28ms\", got \"80\""},
    {"topology_file_duplicate_zone",
     "tests/data/topologies/duplicate_zone.yaml:15:17: spec.regions[1].zones[0].name: duplicate zone name \"z2\" "
     "(first defined at line 12)"},
    {"unknown_action",
     "tests/data/scenarios/bad/unknown_action.yaml:21:15: spec.timeline[0].action: unknown action "
     "\"zone:explode\" (known actions: zone:fail, zone:recover, region:fail, region:recover, link:cut, "
     "link:restore, link:degrade, traffic:cut, service:scale, pods:kill, service:slow, routing:weight, "
     "routing:switch, hpa:compensate, "
     "deployment:compensate, deployment:policy, deployment:restart, deployment:scale, database:kill, "
     "database:failover, ... 2 more)"},
    // Network fidelity: a bulk copy needs it, and a route.
    {"transfer_without_flows",
     "tests/data/scenarios/bad/transfer_without_flows.yaml:18:30: spec.timeline[0].action: flow:transfer is a flow "
     "through SimGrid: it needs network fidelity (spec.network.fidelity: flows)"},
    {"transfer_unreachable",
     "tests/data/scenarios/bad/transfer_unreachable.yaml:13:41: spec.network.flowModel: expected CM02 or LV08, got "
     "\"LV09\"\n"
     "tests/data/scenarios/bad/transfer_unreachable.yaml:16:85: spec.timeline[0].to: no links join region "
     "\"eu-west-1\" (zone \"eu-west-1a\") to region \"us-east-1\" (zone \"us-east-1a\")\n"
     "tests/data/scenarios/bad/transfer_unreachable.yaml:17:84: spec.timeline[1].to: expected a zone other than the "
     "target zone \"eu-west-1a\": a transfer crosses the network\n"
     "tests/data/scenarios/bad/transfer_unreachable.yaml:18:83: spec.timeline[2].to: unknown zone \"us-east-1b\", did "
     "you mean \"us-east-1a\"? (zones: eu-west-1a, us-east-1a)"},
    {"wrong_target",
     "tests/data/scenarios/bad/wrong_target.yaml:23:15: spec.timeline[0].target: zone:fail needs target.zone\n"
     "tests/data/scenarios/bad/wrong_target.yaml:23:24: spec.timeline[0].target.region: zone:fail targets a zone, "
     "not a region"},
    {"degrade_without_parameters",
     "tests/data/scenarios/bad/degrade_without_parameters.yaml:20:7: spec.timeline[0]: link:degrade needs at "
     "least one of latency, loss, bandwidth"},
    {"delay_without_startafter",
     "tests/data/scenarios/bad/delay_without_startafter.yaml:23:14: spec.timeline[0].delay: expected no delay "
     "without startAfter (add it to at), got \"1m\""},
    {"neither_at_nor_startafter",
     "tests/data/scenarios/bad/neither_at_nor_startafter.yaml:20:7: spec.timeline[0]: expected at or startAfter, "
     "got neither"},
    {"not_a_mapping",
     "tests/data/scenarios/bad/not_a_mapping.yaml:19:11: spec.guards: expected a mapping (Guards), got a list"},
    {"unknown_service",
     "tests/data/scenarios/bad/unknown_service.yaml:24:25: spec.timeline[0].target.service: unknown service "
     "\"payment\", did you mean \"payments\"? (services: payments)"},
    {"duplicate_service",
     "tests/data/scenarios/bad/duplicate_service.yaml:18:15: spec.topology.services[1].name: duplicate service "
     "name \"payments\" (first defined at line 12)"},
    {"population_unknown_service",
     "tests/data/scenarios/bad/population_unknown_service.yaml:21:16: spec.load[0].service: unknown service "
     "\"paymnets\", did you mean \"payments\"? (services: payments)"},
    {"population_unknown_zone",
     "tests/data/scenarios/bad/population_unknown_zone.yaml:22:13: spec.load[0].zone: unknown zone \"eu-west-2a\", "
     "did you mean \"eu-west-1a\"? (zones: eu-west-1a, eu-west-1b)"},
    {"population_unknown_affinity_zone",
     "tests/data/scenarios/bad/population_unknown_affinity_zone.yaml:22:21: spec.load[0].affinityZone: unknown zone "
     "\"eu-west-2a\", did you mean \"eu-west-1a\"? (zones: eu-west-1a, eu-west-1b)"},
    {"topic_unknown_broker_zone",
     "tests/data/scenarios/bad/topic_unknown_broker_zone.yaml:14:46: spec.topology.topics[0].brokers[1].zone: "
     "unknown zone \"eu-west-1c\", did you mean \"eu-west-1a\"? (zones: eu-west-1a, eu-west-1b)"},
    {"rules_store_unknown_group",
     "tests/data/scenarios/bad/rules_store_unknown_group.yaml:26:21: spec.load[0].routing.rulesStore: unknown "
     "consensus group \"schedular\", did you mean \"scheduler\"? (consensus groups: scheduler)"},
    {"health_check_unknown_zone",
     "tests/data/scenarios/bad/health_check_unknown_zone.yaml:29:34: spec.load[0].routing.healthCheck.checkers[1]: "
     "unknown zone \"us-east-1b\", did you mean \"us-east-1a\"? (zones: eu-west-1a, eu-west-1b, us-east-1a)"},
    {"switch_without_scheduler",
     "tests/data/scenarios/bad/switch_without_scheduler.yaml:31:65: spec.timeline[0].target.population: "
     "population \"checkout\" has no traffic scheduler to switch with (add spec.load[].routing.scheduler)"},
    {"switch_to_its_own_region",
     "tests/data/scenarios/bad/switch_to_its_own_region.yaml:32:107: spec.timeline[0].toRegions[0]: expected a "
     "region other than the one switched from, got \"eu-west-1\""},
    {"switch_steps_shrinking",
     "tests/data/scenarios/bad/switch_steps_shrinking.yaml:36:59: spec.timeline[0].steps[1].share: expected each "
     "stage to move a larger share than the one before"},
    {"scheduler_not_weighted",
     "tests/data/scenarios/bad/scheduler_not_weighted.yaml:30:20: spec.load[0].routing.scheduler: expected "
     "policy weighted with a scheduler (it sets weights), got policy \"failover\""},
    {"ship_interval_not_async",
     "tests/data/scenarios/bad/ship_interval_not_async.yaml:17:23: spec.topology.databases[0].shipInterval: "
     "expected only with async replication (a commit waits for no batch), got sync"},
    {"dns_provider_unknown_zone",
     "tests/data/scenarios/bad/dns_provider_unknown_zone.yaml:30:42: spec.load[0].routing.dns.providers[1].zones[0]: unknown zone \"us-east-1c\", "
     "did you mean \"us-east-1a\"? (zones: eu-west-1a, eu-west-1b, us-east-1a)"},
    {"dns_query_timeout_above_resolution",
     "tests/data/scenarios/bad/dns_query_timeout_above_resolution.yaml:29:25: spec.load[0].routing.dns.queryTimeout: "
     "expected at most resolutionTimeout"},
    {"cdn_without_zone",
     "tests/data/scenarios/bad/cdn_without_zone.yaml:29:9: spec.load[0].cdn: expected a population zone with cdn (the round "
     "trips to the edges are measured from it)"},
    {"cdn_backup_without_health_check",
     "tests/data/scenarios/bad/cdn_backup_without_health_check.yaml:32:17: spec.load[0].cdn.backup: expected "
     "routing.healthCheck: the backup takes over when it finds every origin region unhealthy"},
    {"cdn_vendor_unknown_zone",
     "tests/data/scenarios/bad/cdn_vendor_unknown_zone.yaml:32:36: spec.load[0].cdn.vendors[1].zone: unknown zone \"eu-west-2b\", "
     "did you mean \"eu-west-1b\"? (zones: eu-west-1a, eu-west-1b, us-east-1a)"},
    {"connections_zero_count",
     "tests/data/scenarios/bad/connections_zero_count.yaml:27:28: spec.load[0].connections.count: expected a "
     "positive unsigned integer, got \"0\""},
    {"cdn_fail_unknown_vendor",
     "tests/data/scenarios/bad/cdn_fail_unknown_vendor.yaml:35:24: spec.timeline[0].target.vendor: unknown CDN "
     "vendor \"vendor-b\", did you mean \"vendor-a\"? (CDN vendors: vendor-a)"},
    {"replicas_unknown_zone",
     "tests/data/scenarios/bad/replicas_unknown_zone.yaml:20:27: spec.topology.services[1].replicas[0].zone: "
     "unknown zone \"eu-west-1c\", did you mean \"eu-west-1a\"? (zones: eu-west-1a, eu-west-1b)"},
    {"cut_without_ratio",
     "tests/data/scenarios/bad/cut_without_ratio.yaml:20:7: spec.timeline[0]: traffic:cut needs \"ratio\""},
    {"kill_count_and_percent",
     "tests/data/scenarios/bad/kill_count_and_percent.yaml:24:16: spec.timeline[0].percent: pods:kill takes "
     "exactly one of count, percent, got both"},
    {"call_cycle",
     "tests/data/scenarios/bad/call_cycle.yaml:19:27: spec.topology.services[1].calls[0].service: call cycle: "
     "front -> db -> front (each calls the next)"},
    {"call_unknown_service",
     "tests/data/scenarios/bad/call_unknown_service.yaml:15:27: spec.topology.services[0].calls[0].service: "
     "unknown service \"dbb\", did you mean \"db\"? (services: front, db)"},
    {"flows_with_replication_bandwidth",
     "tests/data/scenarios/bad/flows_with_replication_bandwidth.yaml:18:103: "
     "spec.topology.databases[0].replicationBandwidth: has no effect with network fidelity "
     "(spec.network.fidelity: flows): replication streams share the links as flows; remove it, or run closed-form"},
    {"call_unknown_database",
     "tests/data/scenarios/bad/call_unknown_database.yaml:15:28: spec.topology.services[0].calls[0].database: "
     "unknown database \"order\", did you mean \"orders\"? (databases: orders)"},
    {"call_service_and_database",
     "tests/data/scenarios/bad/call_service_and_database.yaml:15:17: spec.topology.services[0].calls[0]: gives "
     "both service and database: a call goes to one"},
    {"kube_hpa_unknown_target",
     "tests/data/scenarios/bad/kube_hpa_unknown_target.yaml:24:17: spec.kubernetes.hpas[0].target: \"payment\" is "
     "not a deployment's service: an HPA scales a deployment of spec.kubernetes.deployments"},
    {"kube_hpa_custom_metric",
     "tests/data/scenarios/bad/kube_hpa_custom_metric.yaml:31:19: spec.kubernetes.hpas[0].metrics[1].pods: only for "
     "type Pods (this metric is of type Object)\n"
     "tests/data/scenarios/bad/kube_hpa_custom_metric.yaml:30:13: spec.kubernetes.hpas[0].metrics[1].object: type "
     "Object needs it\n"
     "tests/data/scenarios/bad/kube_hpa_custom_metric.yaml:29:35: spec.kubernetes.hpas[0].metrics[0].pods.metric.name: "
     "expected requests_per_second, queue_length, in_flight or latency, got \"qps\"\n"
     "tests/data/scenarios/bad/kube_hpa_custom_metric.yaml:29:84: "
     "spec.kubernetes.hpas[0].metrics[0].pods.target.averageValue: expected a number or a Kubernetes quantity such as "
     "\"500m\" or \"512Mi\", got \"10x\""},
    {"kube_hpa_metric_references",
     "tests/data/scenarios/bad/kube_hpa_metric_references.yaml:27:28: spec.kubernetes.metricsAdapter.zone: unknown "
     "zone \"eu-west-1c\", did you mean \"eu-west-1a\"? (zones: eu-west-1a, eu-west-1b)\n"
     "tests/data/scenarios/bad/kube_hpa_metric_references.yaml:35:54: "
     "spec.kubernetes.hpas[0].metrics[0].object.describedObject.name: unknown service \"payment\", did you mean "
     "\"payments\"? (services: payments)\n"
     "tests/data/scenarios/bad/kube_hpa_metric_references.yaml:40:92: "
     "spec.kubernetes.hpas[0].metrics[1].external.metric.selector.matchLabels.population: unknown population "
     "\"shopper\", did you mean \"shoppers\"? (populations: shoppers)"},
    {"kube_compensate_without_hpa",
     "tests/data/scenarios/bad/kube_compensate_without_hpa.yaml:26:25: spec.timeline[0].target.service: "
     "hpa:compensate needs an HPA, and none of spec.kubernetes.hpas targets \"payments\" (for manual replicas use "
     "deployment:compensate)"},
    {"kube_policy_unknown_zone",
     "tests/data/scenarios/bad/kube_policy_unknown_zone.yaml:22:51: spec.kubernetes.deployments[0].policy.zones[1]: "
     "unknown zone \"eu-west-1c\", did you mean \"eu-west-1a\"? (zones: eu-west-1a, eu-west-1b)"},
    {"kube_service_scale_managed",
     "tests/data/scenarios/bad/kube_service_scale_managed.yaml:24:15: spec.timeline[0].action: service "
     "\"payments\" is run by a deployment: scale it with deployment:scale (service:scale would fight its "
     "ReplicaSet)"},
    {"kube_deployment_unknown_kind",
     "tests/data/scenarios/bad/kube_deployment_unknown_kind.yaml:22:15: spec.kubernetes.deployments[0].kind: "
     "expected Deployment or StatefulSet, got \"DaemonSet\""},
    {"kube_cpu_too_fine",
     "tests/data/scenarios/bad/kube_cpu_too_fine.yaml:14:24: spec.topology.services[0].cpu.request: expected a whole "
     "number of millicores (Kubernetes' finest CPU unit), got \"0.5m\""},
    {"kill_where_no_pods",
     "tests/data/scenarios/bad/kill_where_no_pods.yaml:23:41: spec.timeline[0].target.zone: service \"payments\" "
     "has no replicas in zone \"eu-west-1b\""},
    {"service_bad_balancing",
     "tests/data/scenarios/bad/service_bad_balancing.yaml:14:20: spec.topology.services[0].balancing: expected "
     "round-robin, least-outstanding or random, got \"fastest\""},
    // CSV files named by `file:`: the YAML location of the file: value, then
    // the position in the CSV file.
    {"csv_rate_without_unit",
     "tests/data/scenarios/bad/csv_rate_without_unit.yaml:21:15: spec.load[0].load.file: "
     "tests/data/scenarios/csv/rate_without_unit.csv:14:5: expected a rate with a unit, e.g. \"800rps\", got "
     "\"1200\""},
    {"csv_missing_file",
     "tests/data/scenarios/bad/csv_missing_file.yaml:21:15: spec.load[0].load.file: cannot read CSV file "
     "\"tests/data/scenarios/csv/no_such_trace.csv\": No such file or directory"},
    {"csv_empty_file",
     "tests/data/scenarios/bad/csv_empty_file.yaml:21:15: spec.load[0].load.file: tests/data/scenarios/csv/empty.csv: "
     "expected a header row (at,rate) and rows of data, got an empty file"},
    {"csv_times_go_back",
     "tests/data/scenarios/bad/csv_times_go_back.yaml:21:15: spec.load[0].load.file: "
     "tests/data/scenarios/csv/times_go_back.csv:5:1: expected a time at or after the previous row's 3m, got \"2m\""},
    {"csv_negative_rate",
     "tests/data/scenarios/bad/csv_negative_rate.yaml:21:15: spec.load[0].load.file: "
     "tests/data/scenarios/csv/negative_rate.csv:3:4: expected a non-negative rate, got \"-5rps\""},
    {"csv_unknown_column",
     "tests/data/scenarios/bad/csv_unknown_column.yaml:21:15: spec.load[0].load.file: "
     "tests/data/scenarios/csv/unknown_column.csv:1:1: unknown column \"time\" (columns: at, rate)"},
    {"csv_unclosed_quote",
     "tests/data/scenarios/bad/csv_unclosed_quote.yaml:21:15: spec.load[0].load.file: "
     "tests/data/scenarios/csv/unclosed_quote.csv:3:4: expected a closing quote for the field that starts here, got "
     "the end of the file"},
    {"csv_file_and_points",
     "tests/data/scenarios/bad/csv_file_and_points.yaml:23:15: spec.load[0].load.file: expected either file or "
     "points, got both"},
    {"csv_file_wrong_kind",
     "tests/data/scenarios/bad/csv_file_wrong_kind.yaml:22:15: spec.load[0].load.file: applies only to kind trace, "
     "not constant"},
    // A topology file's service names a CSV next to the topology file; both
    // bad cells are reported, at the topology file's file: value.
    {"csv_topology_file_samples",
     "tests/data/scenarios/csv/topology_bad_samples.yaml:14:15: spec.services[0].serviceTime.file: "
     "tests/data/scenarios/csv/bad_samples.csv:3:1: expected a number (the header \"duration_ms\" gives the unit), "
     "got \"14ms\"\n"
     "tests/data/scenarios/csv/topology_bad_samples.yaml:14:15: spec.services[0].serviceTime.file: "
     "tests/data/scenarios/csv/bad_samples.csv:5:1: expected a positive duration, got \"0\""},
};

class BadScenario : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadScenario, ReportsTheExactMessage) {
  const BadCase& c = GetParam();
  const std::string file = std::string("tests/data/scenarios/bad/") + c.reason + ".yaml";
  EXPECT_EQ(testing::error_of([&] { load_scenario_file(file); }), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadScenario, ::testing::ValuesIn(kBadCases),
                         [](const auto& test) { return std::string(test.param.reason); });

// A file added to the corpus without an expected message would never run.
TEST(BadScenarioCorpus, EveryFileHasACase) {
  std::set<std::string> listed;
  for (const BadCase& c : kBadCases) listed.insert(c.reason);
  for (const auto& entry : std::filesystem::directory_iterator("tests/data/scenarios/bad")) {
    EXPECT_TRUE(listed.contains(entry.path().stem().string())) << entry.path() << " has no case in kBadCases";
  }
  EXPECT_EQ(listed.size(), std::size(kBadCases)) << "a reason is listed twice";
}

}  // namespace
}  // namespace drsim
