#include "models/service/job.h"

namespace drsim {

const char* to_string(ServeOutcome outcome) {
  switch (outcome) {
    case ServeOutcome::kServed: return "served";
    case ServeOutcome::kRejected: return "rejected";
    case ServeOutcome::kNoTarget: return "no_target";
    case ServeOutcome::kRefused: return "refused";
    case ServeOutcome::kDependencyFailed: return "dependency";
  }
  return "unknown";
}

}  // namespace drsim
