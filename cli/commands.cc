#include "cli/commands.h"

#include <filesystem>

#include "analysis/n_plus_one.h"
#include "analysis/policy_advice.h"
#include "cli/progress_display.h"
#include "io/objective_evaluation.h"
#include "io/result_writer.h"
#include "io/results_folder.h"
#include "io/run.h"
#include "io/scenario_loader.h"

namespace drsim::cli {

int run_command(const Arguments& args, const Console& console) {
  const Scenario scenario = load_scenario_file(args.file, args.overrides);
  RunOptions options;
  options.seed = args.seed;
  options.until = args.until;
  options.stop_flag = console.stop_flag;
  ProgressDisplay progress(console.err);
  if (console.err_is_terminal && !args.quiet) {
    options.progress = [&progress](const RunProgress& p) { progress.update(p); };
  }

  RunResult result = run_scenario(scenario, options);
  progress.clear();

  const std::filesystem::path out_dir =
      args.out_dir.empty() ? default_results_dir(scenario.metadata.name) : std::filesystem::path(args.out_dir);
  write_results(result, out_dir);
  if (!args.quiet) {
    std::fprintf(console.out, "%s\nresults: %s\n", summary_text(result).c_str(), out_dir.string().c_str());
  }
  if (result.outcome.complete()) {
    if (args.fail_on_objective && objective_report(result).any_failed()) {
      std::fprintf(console.err, "drsim: objectives failed (see %s)\n", (out_dir / "objectives.json").string().c_str());
      return kExitObjectiveFailed;
    }
    return kExitOk;
  }
  std::fprintf(console.err, "drsim: %s; partial results written to %s\n", result.outcome.message.c_str(),
               out_dir.string().c_str());
  return result.outcome.reason == StopReason::kInterrupted ? kExitInterrupted : kExitStoppedByGuard;
}

int validate_command(const Arguments& args, const Console& console) {
  const Scenario scenario = load_scenario_file(args.file, args.overrides);
  std::fprintf(console.out, "%s: valid (%zu regions, %zu timeline steps)\n", args.file.c_str(),
               scenario.spec.topology.config.regions.size(), scenario.spec.timeline.size());
  return kExitOk;
}

int describe_command(const Arguments& args, const Console& console) {
  const Scenario scenario = load_scenario_file(args.file, args.overrides);
  std::fputs(describe(scenario).c_str(), console.out);
  return kExitOk;
}

int check_command(const Arguments& args, const Console& console) {
  const Scenario scenario = load_scenario_file(args.file, args.overrides);
  const DeploymentConfig& deployment = scenario.spec.topology.config;
  NPlusOneReport report;
  try {
    report = n_plus_one(deployment, deployment.services, scenario.spec.load, args.utilization_target,
                        deployment.databases, scenario.spec.kubernetes.has_value());
  } catch (const CheckUnsupported& e) {
    std::fprintf(console.err, "drsim: check: %s: %s\n", args.file.c_str(), e.what());
    return kExitBadInput;
  }
  std::fputs((args.json ? format_report_json(report) : format_report(report)).c_str(), console.out);
  return args.fail_on_overload && report.any_overloaded() ? kExitOverloaded : kExitOk;
}

int recommend_policy_command(const Arguments& args, const Console& console) {
  const Scenario scenario = load_scenario_file(args.file, args.overrides);
  PolicyAdvice advice;
  try {
    const KubernetesConfig* kubernetes = scenario.spec.kubernetes ? &*scenario.spec.kubernetes : nullptr;
    advice = advise_policy(
        {scenario.spec.topology.config, scenario.spec.topology.config.services, kubernetes},
        PolicyAdviceRequest{
            .service = args.service, .failed_zone = args.zone, .replicas = args.replicas, .migrate = args.migrate});
  } catch (const PolicyAdviceError& e) {
    // Names from the command line, not the file: no position to give, and no usage text to repeat.
    std::fprintf(console.err, "drsim: recommend-policy: %s\n", e.what());
    return kExitBadInput;
  }
  std::fputs((args.json ? format_policy_advice_json(advice) : format_policy_advice(advice)).c_str(), console.out);
  return advice.allowed() ? kExitOk : kExitOverloaded;
}

int docs_command(const Arguments& args, const Console& console) {
  const std::string text = args.docs_format == "schema"        ? scenario_json_schema()
                           : args.docs_format == "event-kinds" ? event_kinds_json()
                                                               : scenario_format_markdown();
  std::fputs(text.c_str(), console.out);
  return kExitOk;
}

int dispatch(const Arguments& args, const Console& console) {
  if (args.command == "run") return run_command(args, console);
  if (args.command == "import") return import_command(args, console);
  if (args.command == "validate") return validate_command(args, console);
  if (args.command == "describe") return describe_command(args, console);
  if (args.command == "check") return check_command(args, console);
  if (args.command == "recommend-policy") return recommend_policy_command(args, console);
  if (args.command == "docs") return docs_command(args, console);
  throw UsageError("unknown command \"" + args.command + "\"");
}

}  // namespace drsim::cli
