#pragma once
// The trace tests' lookup: an operation of a derived workload by service and name.
#include <stdexcept>
#include <string>

#include "io/trace_workload.h"

namespace drsim::testing {

inline const TracedOperation& find_op(const TraceWorkload& w, const std::string& service, const std::string& op) {
  for (const TracedOperation& o : w.operations) {
    if (o.service == service && o.operation == op) return o;
  }
  throw std::runtime_error("no operation " + service + " " + op);
}

}  // namespace drsim::testing
