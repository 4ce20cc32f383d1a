#include "models/data/tcp_config.h"

#include <bit>

namespace drsim {

std::vector<ConfigProblem> TcpConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (keepalive_time <= Duration::zero()) problems.push_back({"keepaliveTime", "must be positive"});
  if (keepalive_intvl <= Duration::zero()) problems.push_back({"keepaliveIntvl", "must be positive"});
  if (keepalive_probes == 0) problems.push_back({"keepaliveProbes", "must be at least 1"});
  if (retries2 > 255) problems.push_back({"retries2", "the kernel caps tcp_retries2 at 255"});
  if (syn_retries == 0 || syn_retries > 127) problems.push_back({"synRetries", "the kernel accepts 1 to 127"});
  if (rto_min <= Duration::zero() || rto_max < rto_min) {
    problems.push_back({"rtoMax", "needs 0 < rtoMin <= rtoMax"});
  }
  if (syn_rto_initial <= Duration::zero() || syn_rto_initial > rto_max) {
    problems.push_back({"synRtoInitial", "needs 0 < synRtoInitial <= rtoMax"});
  }
  return problems;
}

Duration kernel_model_timeout(std::uint32_t boundary, Duration rto_base, Duration rto_max) {
  const auto ratio = static_cast<std::uint64_t>(rto_max / rto_base);
  const std::uint32_t thresh = ratio == 0 ? 0 : static_cast<std::uint32_t>(std::bit_width(ratio) - 1);  // ilog2
  if (boundary <= thresh) return ((std::int64_t{2} << boundary) - 1) * rto_base;
  return ((std::int64_t{2} << thresh) - 1) * rto_base + static_cast<std::int64_t>(boundary - thresh) * rto_max;
}

Duration retransmission_give_up(const TcpConfig& tcp) {
  return kernel_model_timeout(tcp.retries2, tcp.rto_min, tcp.rto_max);
}

Duration syn_give_up(const TcpConfig& tcp) {
  return kernel_model_timeout(tcp.syn_retries, tcp.syn_rto_initial, tcp.rto_max);
}

Duration keepalive_give_up(const TcpConfig& tcp) {
  return tcp.keepalive_time + static_cast<std::int64_t>(tcp.keepalive_probes) * tcp.keepalive_intvl;
}

}  // namespace drsim
