#include "io/trace_import.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

#include "io/scenario_error.h"
#include "io/scenario_loader.h"
#include "io/suggest.h"
#include "io/yaml_document.h"
#include "models/load/service_time.h"
#include "sim/quote.h"
#include "sim/units.h"

namespace drsim {

namespace {

std::string op_text(const std::string& service, const std::string& operation) {
  return service + " " + quote(operation);
}

ServiceConfig* find_service(Scenario& s, const std::string& name) {
  for (ServiceConfig& svc : s.spec.topology.config.services) {
    if (svc.name == name) return &svc;
  }
  return nullptr;
}

// The service's own call to `callee` (its default calls first, then its operations'), whose timeout and retry a
// traced call keeps: the traces show what is called, not how long the caller waits.
CallConfig call_template(const ServiceConfig& caller, const std::string& callee) {
  for (const CallConfig& c : caller.calls) {
    if (c.service == callee) return c;
  }
  for (const OperationConfig& op : caller.operations) {
    if (!op.calls) continue;
    for (const CallConfig& c : *op.calls) {
      if (c.service == callee) return c;
    }
  }
  CallConfig c;
  c.service = callee;
  return c;
}

// A population name from a service and an operation: letters, digits and - _ . kept, each run of others as '-'.
std::string population_name(const std::string& service, const std::string& operation) {
  std::string out = service + ".";
  for (const char c : operation) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    if (keep || out.back() != '-') out += keep ? c : '-';  // "GET /cart" -> "GET-cart"
  }
  while (out.size() > 1 && out.back() == '-') out.pop_back();
  return out;
}

RateProfileConfig load_of(const TracedEntry& entry, Duration window) {
  RateProfileConfig load;
  if (entry.rates.size() == 1) {
    load.kind = "constant";
    load.rate = Rate{entry.rates.front()};
    return load;
  }
  // Each window's rate at its middle, linearly in between, held from the start and after the end.
  load.kind = "trace";
  load.points.push_back(RatePointConfig{.at = Duration::zero(), .rate = Rate{entry.rates.front()}});
  for (std::size_t w = 0; w < entry.rates.size(); ++w) {
    load.points.push_back(RatePointConfig{.at = window * static_cast<std::int64_t>(w) + window / 2,
                                          .rate = Rate{entry.rates[w]}});
  }
  return load;
}

// The quantile the empirical serviceTime written from these samples has (its own inverse CDF).
std::string percentile_text(const std::vector<Duration>& samples, double q) {
  ServiceTimeConfig config;
  config.kind = "empirical";
  config.samples = samples;
  return format_duration(ServiceTimeDistribution(config).quantile(q));
}

class Merger {
 public:
  Merger(Scenario& scenario, const TraceWorkload& workload, std::vector<ImportNote>& notes)
      : s_(scenario), workload_(workload), notes_(notes) {}

  std::string merge() {
    for (const TracedOperation& op : workload_.operations) operation(op);
    for (const TracedEntry& e : workload_.entries) population(e);
    std::vector<ClientPopulationConfig> load;
    for (ClientPopulationConfig& p : s_.spec.load) {
      if (!entry_services_.contains(p.service)) load.push_back(std::move(p));
    }
    for (ClientPopulationConfig& p : added_) load.push_back(std::move(p));
    s_.spec.load = std::move(load);
    return header_;
  }

 private:
  ServiceConfig& service_of(const std::string& name, const std::string& file, int line, int column) {
    if (ServiceConfig* svc = find_service(s_, name)) return *svc;
    std::vector<std::string_view> known;
    for (const ServiceConfig& svc : s_.spec.topology.config.services) known.push_back(svc.name);
    throw ScenarioError(Diagnostic{
        .file = file,
        .line = line,
        .column = column,
        .message = unknown_name_message("service", name, known, "the scenario's services") +
                   "; map the traces' name to one with --service-map " + name + "=NAME"});
  }

  void operation(const TracedOperation& traced) {
    ServiceConfig& svc = service_of(traced.service, traced.file, traced.line, traced.column);
    OperationConfig op;
    op.name = traced.operation;
    ServiceTimeConfig st;
    st.kind = "empirical";
    st.samples = traced.self_times;
    op.service_time = st;
    std::vector<CallConfig> calls;
    for (const TracedCall& tc : traced.calls) {
      service_of(tc.service, traced.file, traced.line, traced.column);
      CallConfig c = call_template(svc, tc.service);
      c.operation = tc.operation;
      c.count = tc.count;
      c.probability = Ratio{tc.probability};
      c.parallel = tc.parallel;
      calls.push_back(std::move(c));
    }
    op.calls = std::move(calls);
    const auto same = std::find_if(svc.operations.begin(), svc.operations.end(),
                                   [&](const OperationConfig& o) { return o.name == op.name; });
    if (same != svc.operations.end()) {
      op.cpu_time = same->cpu_time;  // how much of its time computes is not in a span
      *same = std::move(op);
      notes_.push_back(ImportNote{.file = traced.file, .line = traced.line, .column = traced.column,
                                  .object = op_text(traced.service, traced.operation),
                                  .message = "replaces the scenario's operation of that name (its cpuTime kept)"});
    } else {
      svc.operations.push_back(std::move(op));
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, "%llu requests", static_cast<unsigned long long>(traced.requests));
    header_ += "#   " + op_text(traced.service, traced.operation) + ": " + buf + ", self time mean " +
               format_duration(traced.self_time_mean) + " p50 " + percentile_text(traced.self_times, 0.5) +
               " p99 " + percentile_text(traced.self_times, 0.99) + ", " + std::to_string(traced.calls.size()) +
               " callees\n";
  }

  void population(const TracedEntry& entry) {
    ClientPopulationConfig p;
    bool templated = false;
    for (const ClientPopulationConfig& existing : s_.spec.load) {
      if (existing.service != entry.service) continue;
      if (!templated) {
        p = existing;  // where the clients sit and how they wait, which traces do not show
        templated = true;
      }
      if (replaced_.insert(existing.name).second) {
        notes_.push_back(ImportNote{.file = s_.source_file, .object = "population " + existing.name,
                                    .message = "replaced by the traces' requests entering " + entry.service});
      }
    }
    if (!templated && untemplated_.insert(entry.service).second) {
      notes_.push_back(ImportNote{.file = s_.source_file, .object = "service " + entry.service,
                                  .message = "no population of the scenario enters it: where the clients of its "
                                             "traced populations sit, their timeout and retries are drsim's "
                                             "defaults (outside the topology, no timeout, no retry); set them by hand"});
    }
    if (p.cdn) {
      p.cdn.reset();
      notes_.push_back(ImportNote{.file = s_.source_file, .object = "population " + p.name,
                                  .message = "its cdn is left out of the traced populations: requests through a "
                                             "CDN carry no operation"});
    }
    entry_services_.insert(entry.service);
    p.name = population_name(entry.service, entry.operation);
    for (int n = 2; taken(p.name); ++n) p.name = population_name(entry.service, entry.operation) + "-" + std::to_string(n);
    p.service = entry.service;
    p.load = load_of(entry, workload_.window);
    p.operations = {OperationShareConfig{.name = entry.operation, .weight = 1}};
    double mean = 0;
    for (double r : entry.rates) mean += r;
    mean /= static_cast<double>(entry.rates.size());
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.4g requests/s on average over %zu windows of %s", mean, entry.rates.size(),
                  format_duration(workload_.window).c_str());
    header_ += "#   population " + p.name + ": " + buf + "\n";
    added_.push_back(std::move(p));
  }

  bool taken(const std::string& name) const {
    for (const ClientPopulationConfig& p : added_) {
      if (p.name == name) return true;
    }
    for (const ClientPopulationConfig& p : s_.spec.load) {
      if (p.name == name && !entry_services_.contains(p.service)) return true;
    }
    return false;
  }

  Scenario& s_;
  const TraceWorkload& workload_;
  std::vector<ImportNote>& notes_;
  std::set<std::string> entry_services_;
  std::set<std::string> replaced_;
  std::set<std::string> untemplated_;
  std::vector<ClientPopulationConfig> added_;
  std::string header_;
};

}  // namespace

TraceImport import_traces_texts(const std::string& scenario_text, const std::string& scenario_file,
                                const std::vector<std::pair<std::string, std::string>>& trace_files,
                                const TraceImportOptions& options) {
  const std::filesystem::path parent = std::filesystem::path(scenario_file).parent_path();
  const std::filesystem::path base_dir = parent.empty() ? std::filesystem::current_path() : parent;
  Scenario scenario = load_scenario_text(scenario_text, {}, scenario_file, base_dir);

  TraceSet set = read_trace_texts(trace_files);
  for (TraceSpan& span : set.spans) {
    const auto renamed = options.service_names.find(span.service);
    if (renamed != options.service_names.end()) span.service = renamed->second;
  }
  TraceImport out;
  out.workload = derive_workload(set, options.workload);
  out.notes = out.workload.notes;
  const std::string lines = Merger(scenario, out.workload, out.notes).merge();

  std::string files;
  for (const auto& [name, text] : trace_files) files += (files.empty() ? "" : ", ") + name;
  char buf[200];
  std::snprintf(buf, sizeof buf, "%zu traces, %zu spans (%s) over %s, sampling %.4g", out.workload.traces,
                out.workload.spans, out.workload.format.c_str(), format_duration(out.workload.observed).c_str(),
                options.workload.sampling);
  std::string header = "# drsim import traces: " + scenario_file + " with the workload of " + files + "\n# " + buf +
                       "\n" + lines;
  out.scenario_yaml = header + to_yaml(scenario);
  load_scenario_text(out.scenario_yaml, {}, scenario_file, base_dir);
  return out;
}

TraceImport import_traces(const std::string& scenario_file, const std::vector<std::filesystem::path>& trace_files,
                          const TraceImportOptions& options) {
  std::string reason;
  const std::optional<std::string> text = read_document_file(scenario_file, scenario_file, reason);
  if (!text) throw ScenarioError(Diagnostic{.file = scenario_file, .message = "cannot read the scenario: " + reason});
  return import_traces_texts(*text, scenario_file, read_text_files(trace_files, "trace"), options);
}

}  // namespace drsim
