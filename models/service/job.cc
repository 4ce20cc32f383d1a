#include "models/service/job.h"

namespace drsim {

const char* to_string(ServeOutcome outcome) {
  switch (outcome) {
    case ServeOutcome::kServed: return "served";
    case ServeOutcome::kRejected: return "rejected";
    case ServeOutcome::kNoTarget: return "no_target";
    case ServeOutcome::kRefused: return "refused";
    case ServeOutcome::kDependencyFailed: return "dependency";
    case ServeOutcome::kGatewayError: return "gateway_error";
    case ServeOutcome::kConnectTimeout: return "connect_timeout";
    case ServeOutcome::kDeadlineExceeded: return "deadline_exceeded";
  }
  return "unknown";
}

void JobQueue::grow() {
  constexpr std::size_t kFirstCapacity = 8;
  std::vector<Job> grown(slots_.empty() ? kFirstCapacity : 2 * slots_.size());
  for (std::size_t i = 0; i < size_; ++i) grown[i] = (*this)[i];
  slots_.swap(grown);
  head_ = 0;
}

}  // namespace drsim
