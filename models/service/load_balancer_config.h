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
//
// Nothing waits forever behind a balancer: an alb answers 504 for a target
// it cannot connect to within 10 s, or that stops answering for its 60 s
// idle timeout, and 502 for one that resets; a caller connecting to a dead
// node (or through an nlb to a dead target) gives up when its operating
// system does (Linux: 127 s).
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
  bool proxy = true;  // alb: ends the callers' connections and answers for its targets
  Duration target_connect_timeout{};
  Duration idle_timeout{};
  Duration client_connect_timeout{};
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
  Duration target_connect_timeout = std::chrono::seconds(10);
  Duration idle_timeout = std::chrono::seconds(60);
  Duration client_connect_timeout = std::chrono::seconds(127);

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
        field("targetConnectTimeout", &LoadBalancerConfig::target_connect_timeout,
              "alb: a request sent to a target that does not accept the connection within this long is answered "
              "504 (AWS: 10s); a target that resets it, 502 at once. nlb passes connections through: the caller's "
              "own connect times out instead.",
              kPositive),
        field("idleTimeout", &LoadBalancerConfig::idle_timeout,
              "alb: a request whose target stops answering (its zone died while it held the request) is answered "
              "504 after this long (AWS: 60s). nlb answers nothing: the caller's own timeout ends it.",
              kPositive),
        field("clientConnectTimeout", &LoadBalancerConfig::client_connect_timeout,
              "How long a caller's operating system tries to connect to an address that does not answer before it "
              "gives up (Linux: 6 SYN retries, 127s): a dead node of the balancer, or a dead target behind an nlb. "
              "A caller's own shorter timeout ends the request first.",
              kPositive),
    };
  }

  // The settings with the type's defaults filled in.
  LoadBalancerSettings resolved() const;
  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim
