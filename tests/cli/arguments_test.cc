#include "cli/arguments.h"

#include <gtest/gtest.h>

namespace drsim::cli {
namespace {

using namespace std::chrono_literals;

std::string usage_error(const std::vector<std::string>& argv) {
  try {
    parse_arguments(argv);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Arguments, ParsesRunWithEveryOption) {
  const Arguments args = parse_arguments({"run", "s.yaml", "--set", "spec.seed=7", "--set=spec.duration=1h",
                                          "--seed", "42", "--until=90m", "--out", "dir", "--quiet"});
  EXPECT_EQ(args.command, "run");
  EXPECT_EQ(args.file, "s.yaml");
  EXPECT_EQ(args.overrides, (std::vector<std::string>{"spec.seed=7", "spec.duration=1h"}));
  EXPECT_EQ(args.seed, 42u);
  EXPECT_EQ(args.until, 90min);
  EXPECT_EQ(args.out_dir, "dir");
  EXPECT_TRUE(args.quiet);
}

TEST(Arguments, ParsesImportKubernetesWithEveryOption) {
  const Arguments args =
      parse_arguments({"import", "kubernetes", "k8s/", "extra.yaml", "--zones", "a,b,c", "--region=eu-west-1",
                       "--namespace", "shop", "--name", "boutique", "--metric", "http_rps=requests_per_second",
                       "--out", "shop.yaml"});
  EXPECT_EQ(args.command, "import");
  EXPECT_EQ(args.import_kind, "kubernetes");
  EXPECT_EQ(args.inputs, (std::vector<std::string>{"k8s/", "extra.yaml"}));
  EXPECT_EQ(args.zones, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(args.region, "eu-west-1");
  EXPECT_EQ(args.namespace_name, "shop");
  EXPECT_EQ(args.name, "boutique");
  ASSERT_EQ(args.metric_names.size(), 1u);
  EXPECT_EQ(args.metric_names[0], (std::pair<std::string, std::string>{"http_rps", "requests_per_second"}));
  EXPECT_EQ(args.out_file, "shop.yaml");
}

TEST(Arguments, ParsesImportExperiment) {
  const Arguments args = parse_arguments({"import", "experiment", "fis.json", "chaos.yaml", "--scenario", "s.yaml",
                                          "--at=3m", "--zone-map", "use1-az1=zone-a", "--out", "o.yaml"});
  EXPECT_EQ(args.import_kind, "experiment");
  EXPECT_EQ(args.inputs, (std::vector<std::string>{"fis.json", "chaos.yaml"}));
  EXPECT_EQ(args.scenario_file, "s.yaml");
  EXPECT_EQ(args.experiment_at, 3min);
  ASSERT_EQ(args.zone_map.size(), 1u);
  EXPECT_EQ(args.zone_map[0], (std::pair<std::string, std::string>{"use1-az1", "zone-a"}));
  EXPECT_EQ(args.out_file, "o.yaml");
}

TEST(Arguments, ImportMistakes) {
  EXPECT_EQ(usage_error({"import"}), "import: missing what to import (kubernetes, experiment or traces)");
  EXPECT_EQ(usage_error({"import", "helm"}), "import: expected kubernetes, experiment or traces, got \"helm\"");
  EXPECT_EQ(usage_error({"import", "experiment", "fis.json"}),
            "import experiment: missing --scenario FILE (the scenario whose zones and services it names)");
  EXPECT_EQ(usage_error({"import", "experiment", "fis.json", "--scenario", "s.yaml", "--zones", "a"}),
            "unknown option \"--zones\" for import");
  EXPECT_EQ(usage_error({"import", "experiment", "fis.json", "--scenario", "s.yaml", "--zone-map", "a"}),
            "--zone-map: expected FROM=TO, e.g. use1-az1=zone-a, got \"a\"");
  EXPECT_EQ(usage_error({"import", "kubernetes"}), "import kubernetes: missing manifest files or directories");
  EXPECT_EQ(usage_error({"import", "kubernetes", "k8s", "--zones", "a,,b"}),
            "--zones: expected zone names separated by commas, got \"a,,b\"");
  EXPECT_EQ(usage_error({"import", "kubernetes", "k8s", "--metric", "rps"}),
            "--metric: expected FROM=TO, e.g. http_requests_per_second=requests_per_second, got \"rps\"");
  EXPECT_EQ(usage_error({"import", "kubernetes", "k8s", "--seed", "1"}), "unknown option \"--seed\" for import");
}

TEST(Arguments, OverrideValuesMayContainEqualsSigns) {
  EXPECT_EQ(parse_arguments({"validate", "s.yaml", "--set", "metadata.description=a=b"}).overrides[0],
            "metadata.description=a=b");
}

TEST(Arguments, VersionAndHelp) {
  EXPECT_EQ(parse_arguments({"--version"}).command, "version");
  EXPECT_EQ(parse_arguments({"--help"}).command, "help");
}

TEST(Arguments, DocsFormat) {
  EXPECT_EQ(parse_arguments({"docs"}).docs_format, "markdown");
  EXPECT_EQ(parse_arguments({"docs", "--format", "schema"}).docs_format, "schema");
  EXPECT_EQ(usage_error({"docs", "--format", "pdf"}), "--format: expected markdown, schema or event-kinds, got \"pdf\"");
}

TEST(Arguments, FailOnObjectiveIsARunOption) {
  EXPECT_FALSE(parse_arguments({"run", "s.yaml"}).fail_on_objective);
  EXPECT_TRUE(parse_arguments({"run", "s.yaml", "--fail-on-objective"}).fail_on_objective);
  EXPECT_EQ(usage_error({"check", "s.yaml", "--fail-on-objective"}),
            "unknown option \"--fail-on-objective\" for check");
  EXPECT_NE(usage_text().find("run missed an objective (with --fail-on-objective)"), std::string::npos);
}

TEST(Arguments, CheckOptions) {
  const Arguments plain = parse_arguments({"check", "s.yaml"});
  EXPECT_EQ(plain.utilization_target, 0.8);
  EXPECT_FALSE(plain.json);
  EXPECT_FALSE(plain.fail_on_overload);
  const Arguments args = parse_arguments({"check", "s.yaml", "--target=70%", "--json", "--fail-on-overload"});
  EXPECT_DOUBLE_EQ(args.utilization_target, 0.7);
  EXPECT_TRUE(args.json);
  EXPECT_TRUE(args.fail_on_overload);
  EXPECT_EQ(usage_error({"run", "s.yaml", "--json"}), "unknown option \"--json\" for run");
  EXPECT_EQ(usage_error({"validate", "s.yaml", "--fail-on-overload"}),
            "unknown option \"--fail-on-overload\" for validate");
  EXPECT_EQ(usage_error({"check", "s.yaml", "--target", "0%"}), "--target: expected a positive percentage, got \"0%\"");
  EXPECT_NE(usage_text().find("3 check found an overload"), std::string::npos);
}

TEST(Arguments, RecommendPolicyOptions) {
  const Arguments plain = parse_arguments({"recommend-policy", "s.yaml", "--service", "api", "--zone=zone-a"});
  EXPECT_EQ(plain.command, "recommend-policy");
  EXPECT_EQ(plain.file, "s.yaml");
  EXPECT_EQ(plain.service, "api");
  EXPECT_EQ(plain.zone, "zone-a");
  EXPECT_EQ(plain.replicas, std::nullopt);
  EXPECT_FALSE(plain.migrate);
  EXPECT_FALSE(plain.json);
  const Arguments args = parse_arguments({"recommend-policy", "s.yaml", "--service", "api", "--zone", "zone-a",
                                          "--replicas", "25", "--migrate", "--json", "--set", "spec.seed=2"});
  EXPECT_EQ(args.replicas, 25u);
  EXPECT_TRUE(args.migrate);
  EXPECT_TRUE(args.json);
  EXPECT_EQ(args.overrides, (std::vector<std::string>{"spec.seed=2"}));
  EXPECT_EQ(usage_error({"recommend-policy", "s.yaml", "--zone", "zone-a"}),
            "recommend-policy: missing --service NAME");
  EXPECT_EQ(usage_error({"recommend-policy", "s.yaml", "--service", "api"}), "recommend-policy: missing --zone ZONE");
  EXPECT_EQ(usage_error({"recommend-policy", "--service", "api", "--zone", "a"}),
            "recommend-policy: missing scenario FILE");
  EXPECT_EQ(usage_error({"recommend-policy", "s.yaml", "--service", "api", "--zone", "a", "--replicas", "0"}),
            "--replicas: expected a positive integer, got \"0\"");
  EXPECT_EQ(usage_error({"check", "s.yaml", "--migrate"}), "unknown option \"--migrate\" for check");
  EXPECT_EQ(usage_error({"run", "s.yaml", "--service", "api"}), "unknown option \"--service\" for run");
  EXPECT_NE(usage_text().find("recommend-policy FILE --service NAME --zone ZONE"), std::string::npos);
  EXPECT_NE(usage_text().find("recommend-policy found no policy that places"), std::string::npos);
}

TEST(Arguments, MistakesAreUsageErrors) {
  EXPECT_EQ(usage_error({}), "missing command");
  EXPECT_EQ(usage_error({"fly"}), "unknown command \"fly\"");
  EXPECT_EQ(usage_error({"run"}), "run: missing scenario FILE");
  EXPECT_EQ(usage_error({"run", "a.yaml", "b.yaml"}), "unexpected argument \"b.yaml\"");
  EXPECT_EQ(usage_error({"run", "a.yaml", "--seed"}), "--seed: missing value");
  EXPECT_EQ(usage_error({"run", "a.yaml", "--seed", "-1"}), "--seed: expected an unsigned integer, got \"-1\"");
  EXPECT_EQ(usage_error({"run", "a.yaml", "--until", "0s"}), "--until: expected a positive duration, got \"0s\"");
  EXPECT_EQ(usage_error({"validate", "a.yaml", "--seed", "1"}), "unknown option \"--seed\" for validate");
  EXPECT_NE(usage_error({"run", "a.yaml", "--until", "30"}).find("--until: expected a duration"), std::string::npos);
}

}  // namespace
}  // namespace drsim::cli
