#pragma once
// A cloud load balancer in front of a service (ServiceConfig::discovery
// loadBalancer), as AWS Elastic Load Balancing works, with the settings and
// defaults of models/service/load_balancer_config.h. It is the path by which
// the service's callers learn that pods or a zone died:
//
//   targets  every pod is a target. The balancer checks each one every
//            interval, at a phase drawn from the seed (a new pod from when it
//            is registered). A check passes at once when the pod answers
//            (present, zone up, process alive, ready) and fails `timeout`
//            after it was sent otherwise. unhealthyThreshold failures in a
//            row take a healthy target out of the callers' view
//            (Service::set_pod_listed), healthyThreshold passes put an
//            unhealthy or new one back in. The pods of the starting state are
//            registered healthy. When no target in scope is healthy, the
//            balancer sends to all of them (fail open, ZoneBalancer).
//   nodes    the balancer has a node in each of the service's zones, and its
//            DNS answers with their addresses. A node dies with its zone; the
//            DNS learns it through checks of the node (nodeCheckInterval,
//            nodeFailureThreshold, a 4 s connect timeout) and drops the
//            address, and puts it back after as many passed checks. With
//            crossZone off a zone whose targets are all unhealthy is dropped
//            too.
//   callers  a caller holds the answer it resolved last and resolves again
//            when the TTL runs out; callers resolve at times spread evenly,
//            so a request carries the answer of an instant drawn uniformly
//            in the last TTL, and enters one node of that answer at random.
//            A request entering a dead node is lost there (or refused, with
//            zoneFailure refuse). With crossZone on a live node sends to the
//            healthy targets of every zone of its region (the service's
//            balancing); off, to its own zone's only.
//   regions  a cloud load balancer is regional: a service with pods in
//            several regions has one balancer per region, and a request is
//            served in the region of the node it enters. Which region's
//            balancer a request goes to: the one the caller's routing chose
//            (a GSLB), else the caller's own region when the service has
//            zones there (the regional endpoint), else the region of a node
//            drawn from the answer (the service's name answering with every
//            region's nodes). Failing open is per region too: a region whose
//            targets are all unhealthy sends to them rather than elsewhere.
//
// Events: lb.settings at the start, lb.target_unhealthy / lb.target_healthy
// and lb.node_removed / lb.node_restored (service_event_kinds.h). KPIs, per
// service: lb.targets_marked_unhealthy, lb.node_removals.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/service/entry_nodes.h"
#include "models/service/load_balancer_config.h"
#include "models/topology/failure_domains.h"
#include "sim/component.h"
#include "sim/event_queue.h"

namespace drsim {

class Service;

class CloudLoadBalancer : public Component, public EntryNodes {
 public:
  // Puts itself in front of the service (Service::use_load_balancer).
  // domains may be null for a service outside any topology: its nodes then never die.
  CloudLoadBalancer(Service& service, const LoadBalancerSettings& settings, FailureDomains* domains);

  std::optional<Entry> pick_entry(std::optional<RegionIndex> region) override;
  bool zonal() const override { return !settings_.cross_zone; }

  const LoadBalancerSettings& settings() const { return settings_; }
  // The balancer's view of a target (a pod id of the service).
  bool target_healthy(std::size_t pod) const { return pod < targets_.size() && targets_[pod].healthy; }
  // Whether the DNS answer holds the node of the service's zone z now.
  bool node_answered(std::size_t z) const { return nodes_[z].answered; }

  // Connect timeout of the DNS's check of a node (Route 53: 4 s to connect).
  static constexpr Duration kNodeCheckTimeout = std::chrono::seconds(4);

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Target {
    bool registered = false;
    bool healthy = false;
    std::uint32_t streak = 0;  // checks in a row that disagree with `healthy`
  };
  struct Node {
    bool alive = true;          // its zone is up
    bool check_healthy = true;  // the DNS's checks of the node, after the threshold
    std::uint32_t streak = 0;   // node checks in a row that disagree with check_healthy
    bool answered = true;       // in the DNS answer now
    // Changes of `answered`, oldest first, kept while a caller may hold an answer from before them.
    std::vector<std::pair<SimTime, bool>> changes;
  };

  void register_target(std::size_t pod, bool healthy, Duration first_check);
  void check_target(std::size_t pod);
  void target_result(std::size_t pod, bool passed);
  void check_node(std::size_t z);
  void update_answer(std::size_t z);
  bool answered_at(const Node& node, SimTime t) const;
  void on_topology_change();
  // Whether some node in any scope may take requests and is dead: only then
  // does the entry of a request matter with crossZone on.
  void refresh_risk();
  // Whether the service's zones lie in more than one region.
  bool spans_regions() const;
  std::string zone_label(std::size_t z) const;

  Service& service_;
  LoadBalancerSettings settings_;
  FailureDomains* domains_;
  std::vector<Target> targets_;  // per pod id
  std::vector<Node> nodes_;      // per service zone
  bool dead_node_answered_ = false;
  bool spans_regions_ = false;
  SimTime risk_until_{};  // a dead node left the answer: callers may hold it until then
  std::uint32_t marked_unhealthy_ = 0, node_removals_ = 0;
  std::vector<std::size_t> scratch_;
};

}  // namespace drsim
