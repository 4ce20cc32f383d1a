#pragma once
// `drsim import traces`: a scenario's services given the operations, calls and service times that traces show,
// and its load the requests they count (io/trace_workload.h, docs/import.md).
//
// Into the scenario:
//   each traced operation     an operation of its service (replacing one of that name): serviceTime empirical
//                             (the self times), calls {service, operation, count, probability, parallel}; a
//                             call keeps the timeout and retry of the service's own call to that callee, if any
//   each operation requests   a population `<service>.<operation>` entering it, with a load of kind trace (or
//   start at                  constant when the traces span one window); it takes the zone, timeout, retry,
//                             routing and connections of the scenario's population of that service, which it
//                             replaces (noted)
// The traces' services must be the scenario's, or be mapped to them (service_names). The result is the
// resolved scenario (every value written out, the topology inlined) with a header saying what came from where;
// it is loaded before it is returned.
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "io/kubernetes_import.h"
#include "io/trace_workload.h"

namespace drsim {

struct TraceImportOptions {
  TraceWorkloadOptions workload;
  // A service name of the traces -> the scenario's ("hipstershop.CartService" -> "cartservice").
  std::map<std::string, std::string> service_names;
};

struct TraceImport {
  std::string scenario_yaml;
  TraceWorkload workload;
  std::vector<ImportNote> notes;  // the workload's, then the merge's
};

// Throws ScenarioError (file, line, column, what was expected) for traces that do not read (io/trace_spans.h),
// give no request, or name a service the scenario does not have.
TraceImport import_traces_texts(const std::string& scenario_text, const std::string& scenario_file,
                                const std::vector<std::pair<std::string, std::string>>& trace_files,
                                const TraceImportOptions& options);
TraceImport import_traces(const std::string& scenario_file, const std::vector<std::filesystem::path>& trace_files,
                          const TraceImportOptions& options);

}  // namespace drsim
