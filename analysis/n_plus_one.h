#pragma once
// The N+1 capacity report behind `drsim check`: for the steady state and for
// every single zone failure and every single region failure, where the
// traffic goes under the routing rules and what that does to every service
// in every zone, solved in closed form (no simulation).
//
// Per failure case the model is the simulator's, as a network of stations
// (models/service/service.cc, models/traffic/client_population.cc):
//
// * A station is a service in a zone: its up pods, each an M/M/c queue with
//   c worker slots (M/M/c/K with a queue limit), sharing the zone's flow
//   evenly (analysis/capacity_check.h).
// * Populations send their peak rate to the entry service, split over its
//   zones by population_split() (analysis/population_routing.h). Every
//   request served makes the service's calls (ServiceConfig::calls;
//   consecutive parallel calls form one group), each routed by the callee's
//   balancer from the caller's zone (analysis/zone_routing.h); the traffic
//   equations of this network give every station's arrival rate.
// * Operations (ServiceConfig::operations): a station serves its service's
//   mix, the populations' weights carried down every operation's calls
//   (operation_shares, the same in every case and zone). Its mean service
//   time is the mixture's; each operation's calls are made on its share (a
//   sequential call's count scaled, a parallel group weighted), and a call
//   to one operation waits for that operation's own response: the callee's
//   wait, the operation's service time and its own calls, followed down the
//   graph (analysis/operation_latency.h; CallRoute::callee_time_delta,
//   iterated with the waits to a fixed point). The same gives a row per
//   population and operation of its mix (OperationRow). An event-loop
//   service (ServiceConfig::server) is a station whose threads the calls do
//   not hold; its in-flight limit is checked by Little's law on the solution.
// * A worker is held while its request's calls are out: its holding time is
//   the service time plus the calls' time (the mean network delay both ways,
//   analysis/expected_network_delay.h, plus the callee's response). The
//   utilisation lambda x holding / workers is exact by Little's law whenever
//   the station is stable; the wait is M/M/c's with that mean holding time,
//   an approximation (the holding time is not exponential).
// * Zone affinity: a same-zone request stays in its zone unless the zone has
//   no idle worker, and then goes by the weights. Such a zone is modelled as
//   one birth-death chain of its workers pooled (pods x concurrency
//   servers) in which the same-zone stream joins only while a worker is
//   idle and everything else the zone receives always joins and queues
//   (Erlang B's overflow, extended by the stream that queues:
//   gated_queue_metrics()); the chain gives both the spill-over probability
//   and the zone's waits. It approximates twice: the pods have separate
//   queues (a request may wait at a busy pod while another has an idle
//   worker; exact for one pod per zone), and the spill-over arriving from
//   other zones is burstier than the Poisson stream the chain assumes (the
//   zone's waits come out a little low). Spill-overs and rates are iterated
//   together to a fixed point.
// * Database calls (CallConfig::database; analysis/database_calls.h). Each
//   pod holds one connection pool per database it queries, shared by its
//   calls to it: a pool station per service x zone x database, each up pod
//   an M/G/c queue of borrowers with c = maximumPoolSize (HikariCP's 10 when
//   no call sets a pool). A call waits for a connection, then holds it for
//   its queries one after another: a validation ping first when the
//   connection has idled past aliveBypassWindow (approximated as
//   exp(-borrows per pod x window)), each read a round trip to the primary
//   plus the mean queryTime, each write the same in async mode, or a round
//   trip plus the commit wait for the replicas' acks (semi-sync: the first;
//   sync: the syncAcks-th; each one way + transmission + applyTime + one way
//   back). Reads go to the primary as in the simulator (the only member that
//   keeps client sessions). Round trips are the route's, without jitter or
//   loss, as the pools' (Database::member_round_trip). The caller's worker
//   waits for the borrow wait and the hold. The pool's wait is Erlang C's
//   scaled by (1 + scv) / 2, scv the hold's squared coefficient of variation
//   (mostly round trips: about half the M/M/c wait); its utilisation
//   (borrows x hold / connections) is exact by Little's law. Behind a
//   round-robin balancer a pod's borrows are smoother than Poisson and the
//   wait is an upper bound (the pile-up's north-shard pool at 80%: 12.3 ms
//   here, 0.7 ms simulated; utilisation 80.0% vs 80.5%). A pool at or
//   over 1 is unstable and so is its caller (workers held without bound).
//   Database servers have no capacity limit in the simulator: not stations.
//   Approximations: connections beyond minimumIdle are taken as open (their
//   connect time on demand is neglected), the replication stream's queueing
//   behind other writes is neglected, several calls to one database share
//   one mean hold (exact for sequential calls' total).
// * Databases in a failure case: the state the simulator settles in. A
//   primary whose zone is down (or that the health checks cannot reach) is
//   failed over when failover is automatic, to the replica the simulator
//   promotes (preferredZone, then preferredRegion, then the most up to date:
//   the one the writes reached first); with manual failover or no replica to
//   promote, there is no writable primary and every call to the database
//   fails (note; taken as failing at once, where the simulator's pools fail
//   after the driver's timeouts). A primary the caller's zone cannot reach
//   loses the calls (note; the caller is unstable), and so do sync writes
//   without enough connected replicas. Pods whose pools could open more
//   sessions than the database's maxConnections get a note.
//
// Stable cases at moderate load agree with the simulation: utilisation
// within 3% and mean latency within 10%, also with database calls, and
// after a failover once the pools have reconnected to the promoted replica
// (tests/analysis/n_plus_one_agreement_test.cc, docs/validation.md).
#include <cstdint>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include "models/data/database_config.h"
#include "models/load/rate_profile.h"
#include "models/service/service_config.h"
#include "models/topology/topology_config.h"
#include "models/traffic/client_population.h"
#include "sim/time.h"

namespace drsim {

// A mean time of the report: a finite value, unbounded (+infinity: a queue
// without a steady state on the way, or calls that never return), or none
// (nothing to measure: no pod, no traffic, no solution). It reads as
// std::optional<Duration> of the finite value (`if (t) use(*t)`). The text
// prints an unbounded time as "inf", the JSON as the string "inf".
class MeanTime {
 public:
  MeanTime() = default;
  MeanTime(Duration d) : value_(d) {}                  // NOLINT(google-explicit-constructor): reads as optional
  MeanTime(std::optional<Duration> d) : value_(d) {}   // NOLINT(google-explicit-constructor)
  static MeanTime unbounded() {
    MeanTime t;
    t.unbounded_ = true;
    return t;
  }
  explicit operator bool() const { return value_.has_value(); }
  bool has_value() const { return value_.has_value(); }
  const Duration& operator*() const { return *value_; }
  bool is_unbounded() const { return unbounded_; }
  // Seconds: +infinity when unbounded, NaN when none.
  double seconds() const;
  bool operator==(const MeanTime&) const = default;

 private:
  std::optional<Duration> value_;
  bool unbounded_ = false;
};

struct StationRow {
  std::string service;
  std::string zone;
  std::uint32_t up_pods = 0;
  double rate_per_s = 0;     // arriving at the zone
  // Offered load / workers of the zone's up pods, the workers held for the
  // calls included: rho, >= 1 when the station has no steady state (a lower
  // bound when holding_lower_bound; +infinity only when calls are lost and
  // never return).
  double utilization = 0;
  bool stable = true;
  // Extra load before utilization reaches the target: target / rho - 1
  // (< 0: over; +infinity when idle; NaN with no up pod).
  double headroom = 0;
  double blocking = 0;       // rejected fraction (queue limit)
  // Worker time per request: own service time plus calls; unbounded when
  // calls are lost, none with no up pod.
  MeanTime mean_holding;
  // The station holds its workers for calls to a station without a steady
  // state: mean_holding and utilization leave out the waits there (they
  // grow without bound), lower bounds; headroom is an upper bound.
  bool holding_lower_bound = false;
  // In the queue before a worker takes the request; unbounded without a
  // steady state.
  MeanTime mean_wait;
  // Requests waiting, over the zone's up pods: +infinity without a steady
  // state (a full queue limit when the workers are held without bound), NaN
  // with no up pod.
  double mean_queue_length = 0;
  // Wait + holding, from arrival at a pod to the answer leaving it, as the
  // simulator's service.response_mean_s; unbounded when it or a station it
  // waits for has no steady state.
  MeanTime mean_response;
  double spill = 0;          // zone affinity: same-zone requests that find no idle worker
  // CPU one pod uses on average: its accepted requests' CPU time (each operation's cpuTime, or cpu.perWorker
  // x its service time, over the service's mix) plus idle; as a share of requests.cpu, and of limits.cpu
  // (NaN without a limit). At or above 1 of the limit the CFS quota holds the pod back and its queue grows:
  // the row is overloaded (the waits above leave throttling out). NaN with no up pod.
  double cpu_cores = 0;
  double cpu_request_share = 0;
  double cpu_limit_share = 0;
  bool overloaded = false;   // utilization (or CPU against its limit) above the target, or unstable
};

struct PopulationRow {
  std::string population;
  double rate_per_s = 0;
  double unserved_rate_per_s = 0;         // no up pod anywhere, or an unreachable zone
  // End-to-end mean of the requests served: network both ways to the entry
  // zone and the entry station's response. Unbounded when some station it
  // uses has no finite response; none when nothing is served.
  MeanTime mean_latency;
};

// A population's requests for one operation of its mix (populations that send
// a mix of operations only).
struct OperationRow {
  std::string population;
  std::string operation;
  double rate_per_s = 0;  // the population's peak rate x the operation's weight
  // End-to-end mean of its requests served: network both ways to the entry
  // zone and the operation's own response there, its own calls followed down
  // the graph (analysis/operation_latency.h). Unbounded when a station on its
  // way has no finite response; none when nothing is served.
  MeanTime mean_latency;
};

// A pod's connection pool towards a database (all pods of the service in
// the zone alike): an M/M/c queue of borrowers with c = maximumPoolSize
// connections, each held for the call's queries (analysis/database_calls.h).
struct PoolRow {
  std::string service;
  std::string database;
  std::string zone;
  std::uint32_t up_pods = 0;
  std::uint32_t connections = 0;  // per pod: maximumPoolSize
  double rate_per_s = 0;          // borrows per second into the zone's pods
  // Borrow rate x mean hold / (pods x connections).
  double utilization = 0;
  // Connection time per borrow: validation ping, queries, commit waits;
  // none without borrows.
  MeanTime mean_hold;
  // Erlang C wait for a connection (HikariCP's borrow wait without the
  // validation); unbounded when unstable, none without borrows.
  MeanTime mean_wait;
  bool stable = true;
  bool overloaded = false;  // utilization above the target, or unstable
};

struct FailureCase {
  std::string name;  // "steady", "zone eu-west-1a down", "region eu-west-1 down"
  std::vector<StationRow> stations;
  std::vector<PopulationRow> populations;
  // Per population with a mix and operation of the mix, in the mix's order.
  std::vector<OperationRow> operations;
  // Per service x database x zone; empty when no service queries a database.
  std::vector<PoolRow> pools;
  // Some station or pool over the target utilisation or unstable, some population
  // unserved, or some calls that fail or never return.
  bool overloaded = false;
  std::string error;                // the traffic equations have no solution (an unbounded call cycle)
  // Calls without a target, calls to an unreachable zone, database calls
  // without a writable primary, pools beyond maxConnections.
  std::vector<std::string> notes;
  std::vector<std::string> blast_radius;  // what the failure takes with it (analysis/blast_radius.h)
};

// A service's worst case: of its stations over every case, the one with the
// highest utilisation (the first in report order on a tie: steady first,
// zones in the service's order).
struct ServiceWorstCase {
  std::string service;
  std::string case_name;
  std::string zone;
  double utilization = 0;
  double headroom = 0;
  bool holding_lower_bound = false;
  bool stable = true;
  bool overloaded = false;
  // In how many cases some station of the service is overloaded.
  std::size_t overloaded_cases = 0;
};

struct NPlusOneReport {
  double utilization_target = 0.8;
  std::vector<FailureCase> cases;

  bool any_overloaded() const;
  // One row per service, in the services' order (the steady case's rows).
  std::vector<ServiceWorstCase> worst_per_service() const;
};

// The highest rate a profile reaches.
Rate peak_rate(const RateProfileConfig& profile);

// Throws std::invalid_argument when a service or population names a zone or
// service that does not exist (the scenario loader reports those first).
// `databases`: the ones the services' database calls name (also throws
// std::invalid_argument for an unknown one). `scenario_has_kubernetes`
// settles each service's discovery auto (ServiceConfig::discovery_path): a
// service behind a cloud load balancer is served by regional balancers.
// A scenario drsim check cannot answer in closed form yet (operations, parallel calls made with a probability
// below 1): n_plus_one throws it with what and why, rather than answer wrongly.
class CheckUnsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

NPlusOneReport n_plus_one(const TopologyConfig& topology, const std::vector<ServiceConfig>& services,
                          const std::vector<ClientPopulationConfig>& load, double utilization_target = 0.8,
                          const std::vector<DatabaseConfig>& databases = {}, bool scenario_has_kubernetes = false);

// The report as fixed-width text: the worst case per service first, then
// per failure case the service x zone rows and the populations' end-to-end
// latency. Infinite values print as "inf"; ">=" marks a lower bound.
std::string format_report(const NPlusOneReport& report);
// The same as a JSON document (for CI): times in seconds; an infinite number
// (an unbounded wait or response, a utilisation whose calls never return, an
// idle station's headroom) is the string "inf" ("-inf"), since JSON has no
// infinity; null means none (nothing to measure: no pod, no traffic).
// Deterministic: the same report gives the same bytes.
std::string format_report_json(const NPlusOneReport& report);

}  // namespace drsim
