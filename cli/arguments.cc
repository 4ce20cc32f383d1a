#include "cli/arguments.h"

#include <algorithm>
#include <charconv>

#include "io/value_codecs.h"
#include "sim/units.h"

namespace drsim::cli {

std::string usage_text() {
  return R"(usage: drsim <command> [options]

commands:
  run FILE        run a scenario, print a summary, write results
  validate FILE   check a scenario and exit (0 valid, 2 invalid)
  describe FILE   print the resolved scenario: topology, timeline with absolute times
  check FILE      N+1 capacity report without simulating: each service's worst
                  case first, then every service in every zone (utilisation,
                  headroom, blocking, holding, wait, queue, mean response) and
                  every population's mean latency, in the steady state and after
                  each single zone or region failure, following the call graph
  recommend-policy FILE --service NAME --zone ZONE
                  policy degradation: with ZONE failed, what the service's
                  deployment policy places of the scale-out and which candidate
                  policies would place it all (split and headroom per zone)
  import kubernetes PATH... [--zones A,B,C] [--out FILE]
                  a scenario from Kubernetes manifests (files or directories of
                  .yaml/.yml/.json, as kubectl get -o yaml or helm template
                  writes them): services, deployments, HPAs and node pools,
                  commented with where each value came from; what is not
                  modelled is listed on stderr (docs/import.md)
  import experiment FILE... --scenario SCENARIO [--at TIME] [--out FILE]
                  the scenario with the steps of an AWS FIS experiment template
                  (JSON) or Chaos Mesh objects (YAML) added to its timeline;
                  what is not modelled is listed on stderr
  import traces FILE... --scenario SCENARIO [--sampling RATIO] [--out FILE]
                  the scenario with the operations, calls, self times and
                  request rates of OpenTelemetry (OTLP JSON), Jaeger or Zipkin
                  JSON traces; what is not modelled is listed on stderr
  docs            print the scenario format reference (--format markdown|schema),
                  or the event kinds as JSON (--format event-kinds)
  report SOURCE OUT.html [--seed N] [--until DURATION] [--title TEXT]
                  one self-contained HTML report (figures, verdicts, per-fault
                  figures, KPIs, the resolved scenario) of a scenario file or a
                  results folder, drawn by the drsim Python package; with
                  --check [--target PERCENT], of drsim check's N+1 analysis
  uncertainty FILE --ranges RANGES [--samples N] [--seeds 1,2,3] [--method sobol|morris]
                  run the scenario over a design of its uncertain inputs (a
                  YAML file of override paths with ranges and their sources)
                  and every seed: each figure's median and 5-95% interval and
                  the inputs that drive it (Sobol' indices or Morris effects;
                  --json, --report OUT.html), by the drsim Python package
  regress FILE --baseline BASE.json [--set PATH=VALUE] [--json]
                  run the candidate over the baseline's seeds and test each
                  figure (one-sided Mann-Whitney U, Holm-adjusted): exit 3
                  when one got worse beyond the run-to-run noise; with
                  --write-baseline BASE.json [--seeds 1..20], store one
  --version       print the version

options for run, validate, describe, check, recommend-policy:
  --set PATH=VALUE   override a scenario value, e.g. --set spec.seed=7
                     or --set spec.timeline[fail-a].at=5m (repeatable)
options for check:
  --target PERCENT   utilisation above which a zone counts as overloaded (default 80%)
  --json             print the report as JSON (for CI; an infinite value, such as
                     an overloaded station's wait, is the string "inf")
  --fail-on-overload exit with code 3 when any case overloads something
options for recommend-policy:
  --service NAME     the service whose deployment must scale out (required)
  --zone ZONE        the failed zone (required)
  --replicas N       replicas needed (default: the deployment's replicas plus
                     the failed zone's, i.e. capacity compensation)
  --migrate          evaluate each policy as a change computed afresh (what
                     deployment:policy does: the failed zone's pods move)
                     rather than as a scale-out keeping them where they are
  --json             print the advice as JSON
options for import kubernetes:
  --zones A,B,C      the cluster's zones (default: the Node objects' zone labels)
  --region NAME      the region they are in (default: region-1)
  --namespace NS     only the objects of namespace NS (default: all)
  --name NAME        the scenario's name (default: imported)
  --metric FROM=TO   read the HPAs' Pods/Object metric FROM as drsim's TO
                     (requests_per_second, latency, queue_length, in_flight);
                     repeatable
  --out FILE         write the scenario there (default: stdout)
options for import experiment:
  --scenario FILE    the scenario the experiment runs against (required)
  --at TIME          when the experiment starts in the run (default: 1m)
  --zone-map FROM=TO the experiment's AZ name or ID FROM is the scenario's
                     zone TO, e.g. use1-az1=zone-a (repeatable)
  --out FILE         write the scenario there (default: stdout)
options for import traces:
  --scenario FILE    the scenario whose services the traces show (required)
  --sampling RATIO   the share of requests the traces hold, e.g. 1% (default:
                     all): rates are divided by it
  --window TIME      the load profile's step (default: 1m)
  --samples N        self-time samples kept per operation (default: 200; more
                     are reduced to N evenly spaced quantiles)
  --service-map FROM=TO  the traces' service FROM is the scenario's TO
                     (repeatable)
  --out FILE         write the scenario there (default: stdout)
options for run:
  --seed N           run seed (default: spec.seed)
  --until DURATION   simulated time to run, e.g. 2h (default: spec.duration)
  --out DIR          results folder (default: results/<scenario name>, the name
                     with runs of characters other than A-Z a-z 0-9 . _ -
                     turned into one '-', leading '.' and '-' dropped, and
                     long names cut to 80 characters ending in a hash)
  --quiet            no summary, no progress
  --fail-on-objective
                     exit with code 3 when a target of spec.objectives fails
                     (objectives.json in the results folder has the verdicts)

exit codes: 0 ok, 1 internal error, 2 bad input or a results folder that
cannot be written, 3 check found an overload
(with --fail-on-overload), recommend-policy found no policy that places
the scale-out, run missed an objective (with --fail-on-objective), or
regress found a figure worse than its baseline,
4 run stopped by a guard (partial results written), 130 interrupted
(partial results written; 4 and 130 take precedence over 3)
)";
}

namespace {

std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw UsageError("--seed: expected an unsigned integer, got \"" + text + "\"");
  }
  return value;
}

std::uint32_t parse_replicas(const std::string& text) {
  std::uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || value == 0) {
    throw UsageError("--replicas: expected a positive integer, got \"" + text + "\"");
  }
  return value;
}

// Options take their value as the next word or after '=': --seed 7, --seed=7 (word is the option's, argv[i]
// the word after it).
std::string option_value(const std::vector<std::string>& argv, std::size_t& i, const std::string& word,
                         const std::string& name) {
  if (word.size() > name.size() && word[name.size()] == '=') return word.substr(name.size() + 1);
  if (i >= argv.size()) throw UsageError(name + ": missing value");
  return argv[i++];
}

// The word is the option, written alone or with its value after '='.
bool is(const std::string& word, const std::string& name) { return word == name || word.rfind(name + "=", 0) == 0; }

Arguments parse_import(const std::vector<std::string>& argv) {
  Arguments args;
  args.command = "import";
  std::size_t i = 1;
  if (i >= argv.size()) throw UsageError("import: missing what to import (kubernetes, experiment or traces)");
  args.import_kind = argv[i++];
  if (args.import_kind != "kubernetes" && args.import_kind != "experiment" && args.import_kind != "traces") {
    throw UsageError("import: expected kubernetes, experiment or traces, got \"" + args.import_kind + "\"");
  }
  const bool traces = args.import_kind == "traces";
  const bool experiment = args.import_kind == "experiment";
  const bool kubernetes = args.import_kind == "kubernetes";
  auto value_of = [&](const std::string& word, const std::string& name) { return option_value(argv, i, word, name); };
  auto pair_of = [](const std::string& option, const std::string& text, const std::string& example) {
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
      throw UsageError(option + ": expected FROM=TO, e.g. " + example + ", got \"" + text + "\"");
    }
    return std::pair{text.substr(0, eq), text.substr(eq + 1)};
  };
  while (i < argv.size()) {
    const std::string word = argv[i++];
    if ((experiment || traces) && is(word, "--scenario")) {
      args.scenario_file = value_of(word, "--scenario");
    } else if (experiment && is(word, "--at")) {
      const std::string text = value_of(word, "--at");
      try {
        args.experiment_at = parse_duration(text);
      } catch (const UnitError& e) {
        throw UsageError(std::string("--at: ") + e.what());
      }
      if (*args.experiment_at < Duration::zero())
        throw UsageError("--at: expected a duration of at least 0, got \"" + text + "\"");
    } else if (experiment && is(word, "--zone-map")) {
      args.zone_map.push_back(pair_of("--zone-map", value_of(word, "--zone-map"), "use1-az1=zone-a"));
    } else if (traces && is(word, "--sampling")) {
      const std::string text = value_of(word, "--sampling");
      try {
        args.sampling = parse_ratio(text).value;
      } catch (const UnitError& e) {
        throw UsageError(std::string("--sampling: ") + e.what());
      }
      if (!(*args.sampling > 0 && *args.sampling <= 1))
        throw UsageError("--sampling: expected a share above 0 and at most 1 (such as 10% or 0.1), got \"" + text +
                         "\"");
    } else if (traces && is(word, "--window")) {
      const std::string text = value_of(word, "--window");
      try {
        args.window = parse_duration(text);
      } catch (const UnitError& e) {
        throw UsageError(std::string("--window: ") + e.what());
      }
      if (*args.window <= Duration::zero()) throw UsageError("--window: expected a positive duration, got \"" + text + "\"");
    } else if (traces && is(word, "--samples")) {
      const std::string text = value_of(word, "--samples");
      std::size_t n = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec != std::errc{} || end != text.data() + text.size() || n < 2)
        throw UsageError("--samples: expected a whole number of at least 2, got \"" + text + "\"");
      args.max_samples = n;
    } else if (traces && is(word, "--service-map")) {
      args.service_map.push_back(pair_of("--service-map", value_of(word, "--service-map"), "cart=cartservice"));
    } else if (kubernetes && is(word, "--zones")) {
      const std::string list = value_of(word, "--zones");
      std::size_t start = 0;
      while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string zone = list.substr(start, comma - start);
        if (zone.empty()) throw UsageError("--zones: expected zone names separated by commas, got \"" + list + "\"");
        args.zones.push_back(zone);
        start = comma + 1;
      }
    } else if (kubernetes && is(word, "--region")) {
      args.region = value_of(word, "--region");
    } else if (kubernetes && is(word, "--namespace")) {
      args.namespace_name = value_of(word, "--namespace");
    } else if (kubernetes && is(word, "--name")) {
      args.name = value_of(word, "--name");
    } else if (kubernetes && is(word, "--metric")) {
      args.metric_names.push_back(
          pair_of("--metric", value_of(word, "--metric"), "http_requests_per_second=requests_per_second"));
    } else if (is(word, "--out")) {
      args.out_file = value_of(word, "--out");
    } else if (!word.empty() && word[0] == '-') {
      throw UsageError("unknown option \"" + word + "\" for import");
    } else {
      args.inputs.push_back(word);
    }
  }
  if (args.inputs.empty()) {
    throw UsageError(experiment ? "import experiment: missing experiment files"
                     : traces   ? "import traces: missing trace files"
                                : "import kubernetes: missing manifest files or directories");
  }
  if (experiment && args.scenario_file.empty()) {
    throw UsageError("import experiment: missing --scenario FILE (the scenario whose zones and services it names)");
  }
  if (traces && args.scenario_file.empty()) {
    throw UsageError("import traces: missing --scenario FILE (the scenario whose services the traces show)");
  }
  return args;
}

}  // namespace

Arguments parse_arguments(const std::vector<std::string>& argv) {
  Arguments args;
  if (argv.empty()) throw UsageError("missing command");
  std::size_t i = 0;
  const std::string& first = argv[i++];
  if (first == "--version" || first == "version") {
    args.command = "version";
    return args;
  }
  if (first == "--help" || first == "-h" || first == "help") {
    args.command = "help";
    return args;
  }
  if (first == "import") return parse_import(argv);
  if (first != "run" && first != "validate" && first != "describe" && first != "check" && first != "docs" &&
      first != "recommend-policy") {
    throw UsageError("unknown command \"" + first + "\"");
  }
  args.command = first;

  auto value_of = [&](const std::string& word, const std::string& name) { return option_value(argv, i, word, name); };
  const bool run = args.command == "run";
  const bool recommend = args.command == "recommend-policy";
  while (i < argv.size()) {
    const std::string word = argv[i++];
    if (args.command != "docs" && is(word, "--set")) {
      args.overrides.push_back(value_of(word, "--set"));
    } else if (run && is(word, "--seed")) {
      args.seed = parse_seed(value_of(word, "--seed"));
    } else if (run && is(word, "--until")) {
      const std::string text = value_of(word, "--until");
      try {
        args.until = parse_duration(text);
      } catch (const UnitError& e) {
        throw UsageError(std::string("--until: ") + e.what());
      }
      if (*args.until <= Duration::zero())
        throw UsageError("--until: expected a positive duration, got \"" + text + "\"");
      if (*args.until > kLongestScenarioTime) {
        throw UsageError("--until: expected a duration of at most " + format_duration(kLongestScenarioTime) +
                         ", got \"" + text + "\"");
      }
    } else if (run && is(word, "--out")) {
      args.out_dir = value_of(word, "--out");
    } else if (run && (word == "--quiet" || word == "-q")) {
      args.quiet = true;
    } else if (run && word == "--fail-on-objective") {
      args.fail_on_objective = true;
    } else if (args.command == "check" && is(word, "--target")) {
      const std::string text = value_of(word, "--target");
      try {
        args.utilization_target = parse_ratio(text).value;
      } catch (const UnitError& e) {
        throw UsageError(std::string("--target: ") + e.what());
      }
      if (args.utilization_target <= 0)
        throw UsageError("--target: expected a positive percentage, got \"" + text + "\"");
    } else if ((args.command == "check" || recommend) && word == "--json") {
      args.json = true;
    } else if (args.command == "check" && word == "--fail-on-overload") {
      args.fail_on_overload = true;
    } else if (recommend && is(word, "--service")) {
      args.service = value_of(word, "--service");
    } else if (recommend && is(word, "--zone")) {
      args.zone = value_of(word, "--zone");
    } else if (recommend && is(word, "--replicas")) {
      args.replicas = parse_replicas(value_of(word, "--replicas"));
    } else if (recommend && word == "--migrate") {
      args.migrate = true;
    } else if (args.command == "docs" && is(word, "--format")) {
      args.docs_format = value_of(word, "--format");
      if (args.docs_format != "markdown" && args.docs_format != "schema" && args.docs_format != "event-kinds") {
        throw UsageError("--format: expected markdown, schema or event-kinds, got \"" + args.docs_format + "\"");
      }
    } else if (!word.empty() && word[0] == '-') {
      throw UsageError("unknown option \"" + word + "\" for " + args.command);
    } else if (args.command != "docs" && args.file.empty()) {
      args.file = word;
    } else {
      throw UsageError("unexpected argument \"" + word + "\"");
    }
  }
  if (args.command != "docs" && args.file.empty()) throw UsageError(args.command + ": missing scenario FILE");
  if (recommend && args.service.empty()) throw UsageError("recommend-policy: missing --service NAME");
  if (recommend && args.zone.empty()) throw UsageError("recommend-policy: missing --zone ZONE");
  return args;
}

}  // namespace drsim::cli
