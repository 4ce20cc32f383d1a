#pragma once
// Settings of a GSLB health check (models/traffic/health_checker.h), with
// Route 53's documented defaults (Route 53 Developer Guide, "Values that you
// specify when you create or update health checks" and "How Amazon Route 53
// determines whether a health check is healthy"):
//   requestInterval   30 s (standard) or 10 s (fast)
//   failureThreshold  3 consecutive results to change a checker's view
//   timeout           a TCP connection within 4 s and an HTTP 2xx/3xx within
//                     2 s after connecting: here one 6 s budget per probe
//   checkers          Route 53 uses checkers in 15+ locations by default; here
//                     a list of topology zones (a zone may appear twice)
//   healthyQuorum     an endpoint is healthy when more than 18% of the
//                     checkers report it healthy
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

struct HealthCheckConfig {
  Duration request_interval = std::chrono::seconds(30);
  std::uint32_t failure_threshold = 3;
  Duration timeout = std::chrono::seconds(6);
  std::vector<std::string> checkers;
  Ratio healthy_quorum{0.18};
  std::uint32_t handshake_round_trips = 1;
  std::string service;  // empty: the population's entry service

  static constexpr std::string_view kTypeName = "HealthCheck";
  static constexpr auto fields() {
    return std::tuple{
        field("requestInterval", &HealthCheckConfig::request_interval,
              "Time between two probes of one checker to one region's endpoint (Route 53: 30s, or 10s for fast "
              "health checks). Checkers are staggered: each starts at a random offset within the interval, drawn "
              "from the seed.",
              kPositive),
        field("failureThreshold", &HealthCheckConfig::failure_threshold,
              "Consecutive failed (or passed) probes for a checker to consider the endpoint unhealthy (or healthy "
              "again). Route 53 default 3.",
              kPositive),
        field("timeout", &HealthCheckConfig::timeout,
              "A probe that has not been answered after this long fails (Route 53: 4s to connect plus 2s to "
              "answer). Less than requestInterval.",
              kPositive),
        field("checkers", &HealthCheckConfig::checkers,
              "Topology zones the health checkers probe from, one checker per entry (Route 53 uses 15+ locations). "
              "A checker whose own zone is down reports nothing and is left out of the quorum.",
              kRequired),
        field("healthyQuorum", &HealthCheckConfig::healthy_quorum,
              "An endpoint is healthy while more than this share of the reporting checkers consider it healthy "
              "(Route 53: 18%)."),
        field("handshakeRoundTrips", &HealthCheckConfig::handshake_round_trips,
              "Round trips before each probe's request: 1 for HTTP (TCP connect), 3 for HTTPS with TLS 1.2."),
        field("service", &HealthCheckConfig::service,
              "The service the probes go to, in each region: a shallow health endpoint that answers without "
              "calling its dependencies (default: the population's entry service, whose calls then decide too)."),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim
