#pragma once
// Settings of the gRPC channels a service's callers hold towards it
// (ServiceConfig::discovery grpc; models/service/grpc_channel.h), named and
// defaulted as gRPC documents them (gRPC core channel arguments; "gRPC
// Connection Backoff Protocol"; proposals A8 client-side keepalive and A18
// TCP_USER_TIMEOUT):
//
//   target                 clusterIP (the Service's virtual IP: kube-proxy
//                          picks one pod per connection) | headless (DNS
//                          answers with every ready pod's address)
//   lbPolicy               pick_first (gRPC's default) | round_robin
//   keepaliveTime          none: clients send no keepalive pings by default
//   keepaliveTimeout       20 s; with keepalive on it is also the socket's
//                          TCP_USER_TIMEOUT (A18)
//   connectTimeout         20 s (MIN_CONNECT_TIMEOUT)
//   reconnect backoff      1 s, x 1.6, jitter 0.2, at most 120 s
//   minTimeBetweenResolutions  30 s (GRPC_ARG_DNS_MIN_TIME_BETWEEN_RESOLUTIONS_MS)
//   maxConnectionAge       none (a server setting: GOAWAY after this long)
//
// A channel re-resolves only when one of its connections breaks (or is
// closed by maxConnectionAge), never on a timer: pods added later are found
// then and only then.
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"

namespace drsim {

struct GrpcConfig {
  std::string target = "clusterIP";  // clusterIP | headless
  std::string lb_policy = "pick_first";  // pick_first | round_robin
  std::optional<Duration> keepalive_time;
  Duration keepalive_timeout = std::chrono::seconds(20);
  Duration connect_timeout = std::chrono::seconds(20);
  Duration initial_backoff = std::chrono::seconds(1);
  double backoff_multiplier = 1.6;
  double backoff_jitter = 0.2;
  Duration max_backoff = std::chrono::seconds(120);
  Duration min_time_between_resolutions = std::chrono::seconds(30);
  std::optional<Duration> max_connection_age;

  static constexpr std::string_view kTypeName = "Grpc";
  static constexpr auto fields() {
    return std::tuple{
        field("target", &GrpcConfig::target,
              "clusterIP: the channel resolves the Service's virtual IP and kube-proxy picks one pod for each "
              "connection it opens, so all of a channel's calls go to that pod while the connection lives. "
              "headless: DNS answers with every ready pod's address and the channel connects to each."),
        field("lbPolicy", &GrpcConfig::lb_policy,
              "pick_first (gRPC's default): every call on the first connected address. round_robin: the calls "
              "rotate over the connected addresses."),
        field("keepaliveTime", &GrpcConfig::keepalive_time,
              "A channel with calls under way pings each connection this often (GRPC_ARG_KEEPALIVE_TIME_MS). "
              "Absent (gRPC's client default): no pings, and a connection to a dead pod breaks only when the "
              "kernel gives up on unacknowledged data (tcp_retries2: 924.6 s).",
              kPositive),
        field("keepaliveTimeout", &GrpcConfig::keepalive_timeout,
              "A ping not acknowledged within this long breaks the connection; with keepalive on it is also the "
              "socket's TCP_USER_TIMEOUT, so unacknowledged calls break it as soon (gRPC: 20s).",
              kPositive),
        field("connectTimeout", &GrpcConfig::connect_timeout,
              "A connection attempt that gets no answer fails after this long (gRPC's minimum: 20s).", kPositive),
        field("initialBackoff", &GrpcConfig::initial_backoff,
              "Wait before the first reconnection after a failure (gRPC: 1s).", kPositive),
        field("backoffMultiplier", &GrpcConfig::backoff_multiplier,
              "Each further failed attempt multiplies the wait by this (gRPC: 1.6).", kPositive),
        field("backoffJitter", &GrpcConfig::backoff_jitter,
              "The wait varies by up to this fraction either way (gRPC: 0.2).", kNonNegative),
        field("maxBackoff", &GrpcConfig::max_backoff, "Ceiling of the wait (gRPC: 120s).", kPositive),
        field("minTimeBetweenResolutions", &GrpcConfig::min_time_between_resolutions,
              "A re-resolution asked for sooner after the last one waits until this long has passed (gRPC's DNS "
              "resolver: 30s).",
              kNonNegative),
        field("maxConnectionAge", &GrpcConfig::max_connection_age,
              "The server closes a connection this long after it opened (with GOAWAY: no call fails), so the "
              "channel reconnects and re-resolves (absent: never, gRPC's default).",
              kPositive),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim
