#pragma once
// TcpConfig: the kernel settings that decide how long a TCP connection takes
// to notice that its peer is gone (Linux sysctls under net.ipv4, defaults as
// in Documentation/networking/ip-sysctl.rst), plus whether the driver turns
// SO_KEEPALIVE on for its sockets. The helpers compute the kernel's give-up
// times exactly as net/ipv4/tcp_timer.c does (tcp_model_timeout), so the
// pool model's "how long until an error" answers are the kernel's, not
// rounded folklore.
#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"

namespace drsim {

struct TcpConfig {
  // net.ipv4.tcp_retries2 = 15: retransmissions of unacknowledged data before
  // the kernel gives up (ETIMEDOUT). The limit is a time, modelled from a
  // 200 ms base: 924.6 s (see retransmission_give_up).
  std::uint32_t retries2 = 15;
  // net.ipv4.tcp_syn_retries = 6: SYN retransmissions of a connect() before
  // ETIMEDOUT, modelled from the 1 s initial RTO: 127 s.
  std::uint32_t syn_retries = 6;
  // net.ipv4.tcp_keepalive_time = 7200 s: idle time before the first probe.
  Duration keepalive_time = std::chrono::seconds(7200);
  // net.ipv4.tcp_keepalive_intvl = 75 s: between unanswered probes.
  Duration keepalive_intvl = std::chrono::seconds(75);
  // net.ipv4.tcp_keepalive_probes = 9: unanswered probes before the abort.
  std::uint32_t keepalive_probes = 9;
  // SO_KEEPALIVE on the pooled sockets. Drivers differ: MySQL Connector/J's
  // tcpKeepAlive defaults to true, PgJDBC's tcpKeepAlive to false. Off here,
  // the conservative reading of "kernel defaults".
  bool so_keepalive = false;
  // Kernel constants, not sysctls: TCP_RTO_MIN 200 ms, TCP_RTO_MAX 120 s,
  // TCP_TIMEOUT_INIT 1 s (include/net/tcp.h). Settable for what-ifs only.
  Duration rto_min = std::chrono::milliseconds(200);
  Duration rto_max = std::chrono::seconds(120);
  Duration syn_rto_initial = std::chrono::seconds(1);

  static constexpr std::string_view kTypeName = "Tcp";
  static constexpr auto fields() {
    return std::tuple{
        field("retries2", &TcpConfig::retries2,
              "net.ipv4.tcp_retries2: retransmissions of unacknowledged data before giving up (Linux default 15, "
              "924.6 s)."),
        field("synRetries", &TcpConfig::syn_retries,
              "net.ipv4.tcp_syn_retries: SYN retransmissions before connect() fails (Linux default 6, 127 s)."),
        field("keepaliveTime", &TcpConfig::keepalive_time,
              "net.ipv4.tcp_keepalive_time: idle time before the first keepalive probe (Linux default 7200 s).",
              kPositive),
        field("keepaliveIntvl", &TcpConfig::keepalive_intvl,
              "net.ipv4.tcp_keepalive_intvl: time between unanswered probes (Linux default 75 s).", kPositive),
        field("keepaliveProbes", &TcpConfig::keepalive_probes,
              "net.ipv4.tcp_keepalive_probes: unanswered probes before the connection is aborted (Linux default "
              "9)."),
        field("soKeepalive", &TcpConfig::so_keepalive,
              "Whether the driver sets SO_KEEPALIVE on its sockets (Connector/J tcpKeepAlive: true; PgJDBC "
              "tcpKeepAlive: false). Default false."),
        field("rtoMin", &TcpConfig::rto_min, "TCP_RTO_MIN, the retransmission timer's base (200 ms).", kPositive),
        field("rtoMax", &TcpConfig::rto_max, "TCP_RTO_MAX, the retransmission timer's cap (120 s).", kPositive),
        field("synRtoInitial", &TcpConfig::syn_rto_initial, "TCP_TIMEOUT_INIT, the first SYN timeout (1 s).",
              kPositive),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

// The kernel's tcp_model_timeout(boundary, rto_base) (net/ipv4/tcp_timer.c,
// Linux >= 5.1; the same arithmetic sat in retransmits_timed_out before):
// the time `boundary` retransmissions take when the timer starts at
// rto_base and doubles up to rto_max:
//   thresh = ilog2(rto_max / rto_base)
//   boundary <= thresh: ((2 << boundary) - 1) * rto_base
//   otherwise:          ((2 << thresh) - 1) * rto_base + (boundary - thresh) * rto_max
Duration kernel_model_timeout(std::uint32_t boundary, Duration rto_base, Duration rto_max);

// When a connection with unacknowledged data gives up (ETIMEDOUT), counted
// from the first transmission: tcp_model_timeout(tcp_retries2, TCP_RTO_MIN).
// Defaults: thresh = ilog2(600) = 9, (2^10 - 1) x 0.2 s + 6 x 120 s = 924.6 s.
Duration retransmission_give_up(const TcpConfig& tcp);
// When connect() to a silent peer fails: tcp_model_timeout(tcp_syn_retries,
// TCP_TIMEOUT_INIT). Defaults: thresh = ilog2(120) = 6, (2^7 - 1) x 1 s = 127 s.
Duration syn_give_up(const TcpConfig& tcp);
// Idle time after which keepalive aborts a connection whose peer went silent
// before the first probe: keepalive_time + probes x intvl (7200 + 9 x 75 = 7875 s).
Duration keepalive_give_up(const TcpConfig& tcp);

}  // namespace drsim
