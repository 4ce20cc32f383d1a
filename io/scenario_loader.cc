// Loading: text -> YAML tree -> overrides applied -> envelope -> decoded
// structs -> CSV files read -> cross-reference checks -> resolved timeline.
// Each stage that finds problems throws them all at once; a later stage does
// not run on the output of a failed one, where it would only report echoes
// of the first problems.
#include "io/scenario_loader.h"

#include <algorithm>
#include <memory>

#include "io/csv_inputs.h"
#include "io/envelope.h"
#include "io/overrides.h"
#include "io/config_rules.h"
#include "io/scenario_validation.h"
#include "io/source_map.h"
#include "io/yaml_decode.h"
#include "io/yaml_document.h"

namespace drsim {

namespace {

// Ends the load if the stage just run found problems.
void throw_if_any(const DecodeSession& session) {
  if (!session.ok()) throw ScenarioError(session.diagnostics());
}

// Problems found outside the decoder go through the session too, so that
// every stage's report is cut at the same length.
void report_all(DecodeSession& session, std::vector<Diagnostic> problems) {
  for (Diagnostic& d : problems) session.report(std::move(d));
}

// For the checks that may find again what an area check found first (the
// walk over every config's validate()): a diagnostic already reported, same
// place and same message, is not repeated.
void report_new(DecodeSession& session, std::vector<Diagnostic> problems) {
  const std::vector<Diagnostic> known = session.diagnostics();
  for (Diagnostic& d : problems) {
    const bool repeated = std::any_of(known.begin(), known.end(), [&](const Diagnostic& k) {
      return k.path == d.path && k.message == d.message;
    });
    if (!repeated) session.report(std::move(d));
  }
}

}  // namespace

Scenario load_scenario_text(std::string_view text, const std::vector<std::string>& overrides,
                            std::string_view source_name, const std::filesystem::path& base_dir) {
  const std::string file(source_name);
  std::vector<Override> parsed;
  for (const std::string& o : overrides) parsed.push_back(parse_override(o));
  YAML::Node root = parse_document(text, file, "Scenario");

  DecodeSession session(base_dir);
  std::vector<Diagnostic> override_problems;
  ScenarioOverrides applied = apply_scenario_overrides(root, parsed, override_problems);
  report_all(session, std::move(override_problems));
  throw_if_any(session);
  session.topology_overrides = std::move(applied.topology);

  Scenario scenario;
  try {
    Decoder decoder(session, DocumentScope{file, std::move(applied.origins), "", ""});
    if (check_envelope(decoder, root, Scenario::kTypeName)) decoder.decode_document(root, scenario);
  } catch (const DecodeBudgetExceeded&) {
    // The session's diagnostics say so; they are thrown just below.
  }
  throw_if_any(session);
  session.source_map.seal();

  // Traces and samples named by `file:` fill their configs before the
  // configs are validated, which then sees them as if written inline.
  report_all(session, read_csv_inputs(scenario.spec, session.base_dir(), session.source_map));
  throw_if_any(session);

  report_all(session, check_topology(scenario.spec.topology.config, session.source_map));
  report_all(session, check_services_and_load(scenario.spec, session.source_map));
  report_all(session, check_timeline(scenario.spec, session.source_map));
  report_all(session, check_network(scenario.spec, session.source_map));
  report_all(session, check_objectives(scenario.spec, session.source_map));
  report_new(session, check_every_config(scenario.spec, session.source_map));
  throw_if_any(session);
  std::vector<Diagnostic> out_of_range;
  scenario.resolved_timeline = resolve_timeline(scenario.spec.timeline, session.source_map, out_of_range);
  report_all(session, std::move(out_of_range));
  throw_if_any(session);

  scenario.source_file = file;
  scenario.source_text = std::string(text);
  scenario.base_dir = base_dir;
  scenario.overrides = overrides;
  scenario.source_map = std::make_shared<const SourceMap>(std::move(session.source_map));
  return scenario;
}

Scenario load_scenario_file(const std::filesystem::path& file, const std::vector<std::string>& overrides) {
  std::string reason;
  const std::optional<std::string> text = read_document_file(file, file.string(), reason);
  if (!text) throw ScenarioError(Diagnostic{.file = file.string(), .message = "cannot read the file: " + reason});
  return load_scenario_text(*text, overrides, file.string(), file.parent_path());
}

Scenario with_overrides(const Scenario& scenario, const std::vector<std::string>& overrides) {
  std::vector<std::string> all = scenario.overrides;
  all.insert(all.end(), overrides.begin(), overrides.end());
  return load_scenario_text(scenario.source_text, all, scenario.source_file, scenario.base_dir);
}

}  // namespace drsim
