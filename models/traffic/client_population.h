#pragma once
// Clients that send requests to a service: an open arrival process (a rate
// profile, Poisson by default), geo routing to a region (optional), a
// connection set-up of some round trips before each request, a timeout over
// the whole request, retries (a per-attempt timeout, backoff, a budget), and
// the end-to-end accounting of every request: it succeeds, fails for a cause
// (timeout, rejected, no_target, refused, dependency: the last attempt's) or
// is still in flight, never vanishes. At stop it checks offered = succeeded +
// failed + in flight.
//
// Recorded per window, labelled population: client.offered,
// client.succeeded, client.failed (plus label cause), client.retries,
// client.latency_*_s, client.in_flight. KPIs: the same totals,
// client.retries_denied (by the budget), availability (succeeded / finished)
// and run latency quantiles.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/load/arrival_process.h"
#include "models/metrics/windowed_metrics.h"
#include "models/service/job.h"
#include "models/service/service.h"
#include "models/traffic/cdn_config.h"
#include "models/traffic/cdn_edges.h"
#include "models/traffic/connections_config.h"
#include "models/traffic/dns_caches.h"
#include "models/traffic/geo_router.h"
#include "models/traffic/routing_listeners.h"
#include "models/service/retry_budget.h"
#include "models/service/retry_policy.h"
#include "sim/component.h"
#include "sim/fields.h"

namespace drsim {

// One operation of the population's traffic mix: requests for it are `weight` out of the weights' total.
struct OperationShareConfig {
  std::string name;
  double weight = 1;

  static constexpr std::string_view kTypeName = "OperationShare";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &OperationShareConfig::name, "An operation of the entry service.", kRequired),
        field("weight", &OperationShareConfig::weight,
              "Its share of the requests, relative to the other operations' weights (default 1).", kPositive),
    };
  }
};

struct ClientPopulationConfig {
  std::string name;
  std::string service;  // entry service
  std::string zone;     // where the clients sit (for zone affinity); may be empty
  std::string affinity_zone;  // the zone their requests are coloured for; may be empty
  RateProfileConfig load;
  std::string arrivals = "poisson";  // poisson | deterministic
  std::optional<Duration> timeout;   // none: a black-holed request stays in flight
  std::uint32_t handshake_round_trips = 0;
  std::optional<GeoRoutingConfig> routing;
  RetryPolicyConfig retry;
  std::optional<CdnConfig> cdn;
  std::optional<ConnectionsConfig> connections;
  std::vector<OperationShareConfig> operations;

  static constexpr std::string_view kTypeName = "ClientPopulation";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &ClientPopulationConfig::name, "Population name, unique in the scenario.", kRequired),
        field("service", &ClientPopulationConfig::service, "The service its requests enter.", kRequired),
        field("zone", &ClientPopulationConfig::zone, "The zone the clients sit in, for zone affinity."),
        field("affinityZone", &ClientPopulationConfig::affinity_zone,
              "The zone the population's requests are coloured for (a gateway colouring users by id): the "
              "entry service and every hop after it prefer instances there while zoneAffinity allows. Unlike "
              "zone, the clients do not sit in it: losing that zone does not cut them off, its traffic "
              "spills to the other zones."),
        field("load", &ClientPopulationConfig::load, "Request rate over time.", kRequired),
        field("operations", &ClientPopulationConfig::operations,
              "The traffic mix: each request asks the entry service for one of these operations, drawn by "
              "weight; each gets its own counts and latencies (operation.* series and KPIs). Absent: every "
              "request asks for the entry service's default operation."),
        field("arrivals", &ClientPopulationConfig::arrivals,
              "Arrival process: poisson (default) or deterministic (evenly spaced)."),
        field("timeout", &ClientPopulationConfig::timeout,
              "Clients give up on a request after this long, retries included.", kPositive),
        field("handshakeRoundTrips", &ClientPopulationConfig::handshake_round_trips,
              "Round trips to the serving zone before each request is sent: 0 on a kept-alive connection, 1 "
              "for a new TCP connection, 3 for TCP + TLS 1.2, 2 for TCP + TLS 1.3."),
        field("routing", &ClientPopulationConfig::routing,
              "Geo routing to a region (absent: the entry service's balancer spreads requests over all its "
              "zones)."),
        field("retry", &ClientPopulationConfig::retry, "How failed attempts are retried (default: they are not)."),
        field("cdn", &ClientPopulationConfig::cdn,
              "The site is behind CDNs: requests go to the edge of the vendor the site's CNAME names (cached like "
              "any answer, see routing.dns), which serves hits and pulls misses from the origin regions "
              "(absent: requests go to the origin directly)."),
        field("connections", &ClientPopulationConfig::connections,
              "Long-lived connections: each is pinned to the region (and CDN vendor) resolved when it opened "
              "until it closes (lifetime, request count, or a failed request), so DNS changes reach them only "
              "then; handshakeRoundTrips is paid per new connection (absent: every request resolves and "
              "connects)."),
    };
  }

  std::vector<ConfigProblem> validate() const;
};

class ClientPopulation : public Component, public JobOwner {
 public:
  // A failed request's cause is its last attempt's failure.
  using Cause = AttemptFailure;
  static const char* to_string(Cause cause) { return drsim::to_string(cause); }

  // router: the geo router built from config.routing (absent: no geo
  // routing).
  ClientPopulation(ClientPopulationConfig config, Service& target, std::optional<ZoneIndex> zone,
                   Duration metrics_window = std::chrono::seconds(1), std::optional<GeoRouter> router = std::nullopt);

  const ClientPopulationConfig& config() const { return config_; }
  // For operator actions (routing:weight) and, later, health checks.
  GeoRouter* router() { return router_ ? &*router_ : nullptr; }
  // With routing.dns: requests route by a client's cached answer instead of the live router.
  void use_dns(DnsCaches* dns) { dns_ = dns; }
  // Told the region of every routed attempt (a traffic scheduler counts them per region).
  void on_routed(RoutedListener& listener) { routed_ = &listener; }
  // Also record client.latency_p99_window_s: the p99 of the trailing `length`
  // (a whole number of metrics windows), for a latency objective over a
  // window. Before the run starts.
  void track_trailing_p99(Duration length) { trailing_p99_ = length; }
  // config.affinityZone resolved: requests prefer that zone (Service::submit's preferred_zone).
  void set_affinity_zone(std::optional<ZoneIndex> zone) { affinity_zone_ = zone; }
  // With cdn: requests go to the edges, which answer through on_served.
  void use_cdn(CdnEdges* cdn) { cdn_ = cdn; }

  void on_served(std::uint64_t token, ServeOutcome outcome) override;

  std::uint64_t offered() const { return offered_; }
  std::uint64_t succeeded() const { return succeeded_; }
  std::uint64_t failed(Cause cause) const { return failed_[static_cast<std::size_t>(cause)]; }
  std::uint64_t failed_total() const;
  std::uint64_t in_flight() const { return in_flight_; }
  std::uint64_t retries() const { return retries_; }
  std::uint64_t retries_denied() const { return retries_denied_; }
  // Per entry of config().operations.
  std::uint64_t operation_offered(std::size_t i) const { return operations_.at(i).offered; }
  std::uint64_t operation_succeeded(std::size_t i) const { return operations_.at(i).succeeded; }

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  // One request in flight, reused once it ends. Answers carry the
  // generation of the attempt they answer: an attempt that timed out or was
  // given up on bumps it, so its late answer is ignored.
  struct Slot {
    std::uint32_t generation = 0;
    bool in_flight = false;
    bool attempt_outstanding = false;  // false while backing off
    std::uint32_t attempt = 0;         // 1 for the first
    std::uint32_t dns_client = 0;      // with routing.dns: the client the attempt came from
    SimTime started{};
    // When the client gives up on the attempt (the request's timeout, or the attempt's per-try timeout, the
    // earlier): the deadline the attempt carries to the service.
    SimTime attempt_deadline = kSimTimeMax;
    EventId timeout;        // the whole request
    EventId attempt_timer;  // the attempt's timeout, or the backoff wait
    EventId dns_wait;       // the attempt waits for its client's resolver
    bool dns_waiting = false;
    // With connections: the one the request uses (kept for its retries) and the incarnation the
    // attempt was sent on (connected: it was).
    std::uint32_t connection = 0;
    std::uint32_t connection_generation = 0;
    bool connected = false;
    std::uint32_t next_free = 0;
    std::uint16_t mix = 0;  // its entry of config().operations (0 without a mix)
    std::uint32_t span = 0;  // the request's root CLIENT span when it is traced (0: not traced)
  };
  // An entry of the mix: the entry service's operation, the cumulative weight that picks it, its counts.
  struct OperationStats {
    std::uint16_t operation = 0;
    double cumulative_weight = 0;
    std::uint64_t offered = 0, succeeded = 0;
    std::array<std::uint64_t, static_cast<std::size_t>(AttemptFailure::kCount)> failed{};
    CounterId offered_counter, succeeded_counter;
    std::array<CounterId, static_cast<std::size_t>(AttemptFailure::kCount)> failed_counters{};
    LatencyId latency;
  };
  // The entry of the mix a new request asks for.
  std::uint16_t draw_operation();
  // A request of the mix offered, succeeded (after `latency`) or failed: its operation's counts. Kept out of
  // line (noinline) so that a population without a mix keeps its own counting inlined on the hot path.
  [[gnu::noinline]] void operation_offered(Slot& slot, SimTime t);
  [[gnu::noinline]] void operation_succeeded(const Slot& slot, SimTime t);
  [[gnu::noinline]] void operation_failed(const Slot& slot, Cause cause, SimTime t);

  void arrive();
  void schedule_next_arrival();
  std::uint32_t allocate();
  void release(std::uint32_t index);
  void start_attempt(std::uint32_t index);
  // Looks the target up (a kept-alive connection, DNS, geo routing) and sends the attempt.
  void dispatch(std::uint32_t index);
  void send(std::uint64_t token, std::optional<RegionIndex> region, std::size_t vendor,
            std::uint32_t handshake_round_trips);

  // A long-lived connection (config.connections).
  struct Connection {
    bool open = false;
    std::optional<RegionIndex> region;
    std::size_t vendor = 0;
    SimTime opened{};
    std::uint32_t requests = 0;
    std::uint32_t generation = 0;
  };
  void close_connection(Connection& connection, bool reset);
  void attempt_failed(std::uint32_t index, AttemptFailure failure);
  void fail(std::uint32_t index, Cause cause);

  ClientPopulationConfig config_;
  Service& target_;
  std::optional<ZoneIndex> zone_;
  std::optional<ZoneIndex> affinity_zone_;
  std::optional<GeoRouter> router_;
  DnsCaches* dns_ = nullptr;
  RoutedListener* routed_ = nullptr;
  CdnEdges* cdn_ = nullptr;
  RetryPolicy retry_;
  std::optional<RetryBudget> budget_;
  ArrivalProcess arrivals_;
  Duration metrics_window_;
  std::optional<Duration> trailing_p99_;
  std::vector<Slot> slots_;
  std::vector<Connection> connections_;
  std::uint64_t connections_opened_ = 0;
  std::uint64_t connection_resets_ = 0;
  std::uint32_t free_head_ = 0;  // 1-based, 0: none
  std::vector<OperationStats> operations_;  // one per entry of config().operations

  std::uint64_t offered_ = 0;
  // Traced requests (sim/span_recorder.h): which are traced follows (population, request number), not the rng.
  std::uint64_t span_source_ = 0;
  std::uint32_t span_client_ = 0;               // the population's name in spans
  std::vector<std::uint32_t> span_operations_;  // per entry of the mix (or the default operation)
  std::uint64_t succeeded_ = 0;
  std::array<std::uint64_t, static_cast<std::size_t>(Cause::kCount)> failed_{};
  std::uint64_t in_flight_ = 0;
  std::uint64_t retries_ = 0;
  std::uint64_t retries_denied_ = 0;

  std::optional<WindowedMetrics> metrics_;
  CounterId offered_counter_, succeeded_counter_, retries_counter_;
  CounterId connections_opened_counter_, connection_resets_counter_;
  std::array<CounterId, static_cast<std::size_t>(Cause::kCount)> failed_counters_{};
  LatencyId latency_;
  GaugeId in_flight_gauge_;
};

}  // namespace drsim
