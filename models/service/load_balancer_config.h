#pragma once
// Settings of a cloud load balancer in front of a service
// (models/service/cloud_load_balancer.h), with the documented defaults of
// AWS Elastic Load Balancing (CreateTargetGroup API reference; "Health checks
// for your target groups" of the Application and Network Load Balancer
// guides; "Cross-zone load balancing"):
//
//                         alb (HTTP)   nlb (TCP)
//   interval              30 s         30 s
//   timeout               5 s          10 s
//   healthyThreshold      5            5
//   unhealthyThreshold    2            2
//   crossZone             on           off
//   DNS record TTL        60 s         60 s
//
// How fast the balancer's own DNS stops answering with the address of a node
// in a lost zone is not published; it is modelled as a health check of the
// node with Route 53's fast settings (every 10 s, 3 failures), and the
// settings are exposed so that a study can take a range.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "sim/fields.h"
#include "sim/time.h"

namespace drsim {

// Every setting with a value: LoadBalancerConfig::resolved().
struct LoadBalancerSettings {
  Duration interval{};
  Duration timeout{};
  std::uint32_t healthy_threshold = 0;
  std::uint32_t unhealthy_threshold = 0;
  bool cross_zone = true;
  Duration dns_ttl{};
  Duration node_check_interval{};
  std::uint32_t node_failure_threshold = 0;
};

struct LoadBalancerConfig {
  std::string type = "alb";  // alb | nlb: which defaults apply
  std::optional<Duration> interval;
  std::optional<Duration> timeout;
  std::optional<std::uint32_t> healthy_threshold;
  std::optional<std::uint32_t> unhealthy_threshold;
  std::optional<bool> cross_zone;
  Duration dns_ttl = std::chrono::seconds(60);
  Duration node_check_interval = std::chrono::seconds(10);
  std::uint32_t node_failure_threshold = 3;

  static constexpr std::string_view kTypeName = "LoadBalancer";
  static constexpr auto fields() {
    return std::tuple{
        field("type", &LoadBalancerConfig::type,
              "alb (Application Load Balancer, HTTP health checks) or nlb (Network Load Balancer, TCP health "
              "checks): which documented defaults the settings left out take."),
        field("interval", &LoadBalancerConfig::interval,
              "Time between two health checks of one target (AWS: 30s for both). Each target's checks start at "
              "a phase drawn from the seed.",
              kPositive),
        field("timeout", &LoadBalancerConfig::timeout,
              "A health check not answered after this long fails (AWS: 5s for alb, 10s for nlb's TCP checks). "
              "Less than interval.",
              kPositive),
        field("healthyThreshold", &LoadBalancerConfig::healthy_threshold,
              "Consecutive passed checks before an unhealthy or newly registered target gets traffic (AWS: 5).",
              kPositive),
        field("unhealthyThreshold", &LoadBalancerConfig::unhealthy_threshold,
              "Consecutive failed checks before a healthy target stops getting traffic (AWS: 2).", kPositive),
        field("crossZone", &LoadBalancerConfig::cross_zone,
              "On: each node of the balancer sends to the healthy targets of every zone. Off: only to its own "
              "zone's, and a zone without a healthy target drops out of the balancer's DNS answer (AWS: on for "
              "alb, off for nlb)."),
        field("dnsTtl", &LoadBalancerConfig::dns_ttl,
              "TTL of the balancer's DNS records (AWS: 60s): a caller keeps using a node address it resolved up "
              "to this long after the address left the answer.",
              kPositive),
        field("nodeCheckInterval", &LoadBalancerConfig::node_check_interval,
              "Time between two checks of a balancer node by the balancer's DNS (not published by AWS; Route 53 "
              "fast health checks: 10s).",
              kPositive),
        field("nodeFailureThreshold", &LoadBalancerConfig::node_failure_threshold,
              "Consecutive failed node checks before the node's address leaves the DNS answer, and passed ones "
              "before it returns (Route 53's default: 3).",
              kPositive),
    };
  }

  // The settings with the type's defaults filled in.
  LoadBalancerSettings resolved() const;
  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim
