#include "models/service/job.h"

#include "models/data/tcp_config.h"

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

Duration JobOwner::unacknowledged_give_up(std::uint64_t /*token*/, bool new_connection) {
  return kernel_give_up(new_connection);
}

Duration JobOwner::kernel_give_up(bool new_connection) {
  const TcpConfig linux_defaults;
  return new_connection ? syn_give_up(linux_defaults) : retransmission_give_up(linux_defaults);
}

}  // namespace drsim
