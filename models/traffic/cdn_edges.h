#pragma once
// A population's CDN: the site's name is a CNAME to one vendor's edge, and
// the edges serve from cache or pull from the origin.
//
//   CNAME    the live record names the first vendor the monitor considers
//            healthy (preference order of vendors); clients see it through
//            the population's DNS caches (routing.dns: its recordTtl is the
//            CNAME's TTL, plus the clients' own caches), so a switch reaches
//            all of them within recordTtl + clientCacheTtl of the decision
//   monitor  with checkInterval, one monitor probes every vendor's edge each
//            interval (its first probe at an offset drawn in the interval);
//            a probe fails while the edge's zone is down or unreachable from
//            the population; its view of a vendor flips after
//            failureThreshold consecutive disagreeing results. Chosen over
//            the Route 53 checker of the origin (health_checker.h) because
//            multi-CDN switching services monitor from one vantage point per
//            geography; the flip rule is the same
//   edge     a request reaches the vendor its client's cached CNAME names.
//            An edge that is down (its zone failed) or unreachable refuses
//            the connection (cause refused). Otherwise, after the handshake
//            round trips to the edge, a hit (hitRatio, drawn per request) is
//            answered after edgeTime + one round trip; a miss is pulled from
//            the origin: the entry service in the region the population's
//            live routing picks (its health checks included), sent from the
//            edge's zone, and the answer relayed back
//   backup   origin pulls go to the static backup while the vendor's cached
//            copy of the origin's failover A record says so: the record
//            answers the backup when the population's health check finds
//            every origin region unhealthy, and each vendor re-reads it every
//            backup.recordTtl (from its own offset). At the backup a pull for
//            static content (staticShare, drawn) is served after the round
//            trip edge-backup + serviceTime; a dynamic one fails (no_target)
//
// Series (label population, and vendor where said): cdn.requests{vendor}
// (requests that reached the vendor), cdn.hits{vendor}, cdn.origin_pulls,
// cdn.refused{vendor}, cdn.backup_served, cdn.backup_failed,
// cdn.cname{vendor} (gauge 0/1: the live CNAME), cdn.vendor_healthy{vendor}
// (gauge 0/1, the monitor's view), cdn.backup_active{vendor} (gauge 0/1: the
// vendor's cached origin record). Events: the cdn.* kinds
// (models/traffic/traffic_event_kinds.h).
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/metrics/windowed_metrics.h"
#include "models/service/job.h"
#include "models/topology/failure_domains.h"
#include "models/traffic/cdn_config.h"
#include "models/traffic/geo_router.h"
#include "models/traffic/routing_listeners.h"
#include "sim/component.h"

namespace drsim {

class HealthChecker;
class Service;

class CdnEdges : public Component, public JobOwner, public CnameSource {
 public:
  // clients: who the edges answer (the population). client_zone: where the
  // population sits. router: the origin routing (null: the service's
  // balancer). health: the origin's health checker (null: no backup switch).
  CdnEdges(std::string label, CdnConfig config, FailureDomains& domains, ZoneIndex client_zone, Service& origin,
           const GeoRouter* router, const HealthChecker* health, JobOwner& clients,
           Duration metrics_window = std::chrono::seconds(1));

  // The vendor the live CNAME names.
  std::size_t cname() const override { return cname_; }
  const std::string& vendor_name(std::size_t v) const { return config_.vendors[v].name; }
  bool backup_active(std::size_t vendor) const { return vendors_[vendor].backup; }
  // The timeline's cdn:fail: the vendor's edges are down in this geography too (false: back). Unknown
  // vendors are ignored (they serve other populations).
  void set_vendor_down(const std::string& vendor, bool down);

  // A request (the population's token) reaches `vendor`'s edge. The outcome
  // goes back to the population's on_served.
  void serve(std::uint64_t token, std::size_t vendor, std::uint32_t handshake_round_trips);

  // An origin pull's answer.
  void on_served(std::uint64_t token, ServeOutcome outcome) override;

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Vendor {
    ZoneIndex zone = 0;
    bool down = false;  // cdn:fail
    bool healthy_view = true;
    std::uint32_t disagreeing = 0;
    bool backup = false;  // the vendor's cached origin record points at the backup
    CounterId requests, hits, refused;
    GaugeId cname, healthy, backup_gauge;
  };
  std::optional<Duration> rtt_to(ZoneIndex zone) const;
  bool edge_up(const Vendor& vendor) const;
  void probe();
  void choose_cname();
  void refresh_origin_record(std::size_t vendor);
  bool every_origin_region_unhealthy() const;
  void answer(std::uint64_t token, Duration after, ServeOutcome outcome);

  std::string label_;
  CdnConfig config_;
  FailureDomains& domains_;
  ZoneIndex client_zone_;
  Service& origin_;
  const GeoRouter* router_;
  const HealthChecker* health_;
  JobOwner& clients_;
  Duration metrics_window_;
  std::vector<Vendor> vendors_;
  std::optional<ZoneIndex> backup_zone_;
  // Origin pulls in flight: the leg from the edge back to the client. A
  // black-holed pull stays here (its client's timeout ends the request).
  std::unordered_map<std::uint64_t, Duration> return_legs_;
  std::size_t cname_ = 0;
  std::uint32_t switches_ = 0;
  std::optional<WindowedMetrics> metrics_;
  CounterId origin_pulls_, backup_served_, backup_failed_;
};

}  // namespace drsim
