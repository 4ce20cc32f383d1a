#pragma once
// Closed-form results of classical queueing theory, the ground truth that the
// simulated services are checked against and that `drsim check` uses for
// instant capacity answers.
//
// Notation: arrival rate lambda, service rate per server mu, c servers,
// offered load a = lambda / mu (Erlangs), utilisation rho = a / c.
#include <cstddef>
#include <optional>

#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

// Erlang B: probability that an arrival finds all c servers busy in an
// M/M/c/c loss system. Up to kRecurrenceServers servers the stable
// recurrence (a step per server); beyond, the incomplete gamma form, whose
// cost does not grow with c (a service's concurrency may be 4 billion).
double erlang_b(std::size_t servers, double offered_load);
// Erlang C: probability that an arrival waits in an M/M/c queue. Requires a < c.
double erlang_c(std::size_t servers, double offered_load);

struct QueueMetrics {
  double utilization = 0;          // mean fraction of servers busy
  double wait_probability = 0;     // P(an accepted arrival waits)
  double blocking_probability = 0; // P(an arrival is rejected), finite capacity only
  double throughput_per_s = 0;     // accepted arrivals per second
  Duration mean_wait{};            // in queue, of accepted arrivals
  Duration mean_response{};        // wait + service
  double mean_queue_length = 0;
  double mean_in_system = 0;
};

// M/M/c with an unbounded queue; nullopt when unstable (lambda >= c mu).
std::optional<QueueMetrics> mmc_metrics(Rate arrivals, Duration mean_service, std::size_t servers);
// M/M/c/K: at most `capacity` requests in the system (c in service + queue).
// Below kDirectStates states a sum over the states; beyond, closed forms
// (the truncated Poisson below c through Erlang B, geometric sums above),
// O(1) in c and K.
QueueMetrics mmck_metrics(Rate arrivals, Duration mean_service, std::size_t servers, std::size_t capacity);

// A queue shared by two streams (zone affinity): one joins only while a
// server is idle and overflows elsewhere otherwise ("stay in my zone while
// it has an idle worker"); the other always joins and waits, at most
// `waiting_room` of it waiting (none: unbounded), the rest rejected. Poisson
// streams, exponential service with the common mean, c servers: the
// birth-death chain with births gated + queued below c and queued alone from
// c on. With no queued stream the overflow is Erlang B; with no gated stream
// the metrics are M/M/c's (M/M/c/K's).
struct GatedQueueMetrics {
  // Over the requests that join (the gated stream's admitted part and the
  // queued stream): throughput, waits, lengths; blocking_probability is the
  // queued stream's rejections as a fraction of all that arrive (admitted
  // gated + queued), so that arrivals x (1 - blocking) = throughput.
  QueueMetrics queue;
  // Probability that a gated arrival finds every server busy (PASTA).
  double overflow = 0;
};
// nullopt when the queued stream alone saturates an unbounded waiting room.
// Below kDirectStates states a sum over the states, closed forms beyond (as
// mmck_metrics).
std::optional<GatedQueueMetrics> gated_queue_metrics(Rate gated_offered, Rate queued, Duration mean_service,
                                                     std::size_t servers, std::optional<std::size_t> waiting_room);

// Where the methods change. The two sides agree to 1e-9 relative at the
// crossover (tests/analysis/queueing_test.cc); below it the results are the
// ones drsim check always gave.
inline constexpr std::size_t kRecurrenceServers = 4096;
inline constexpr std::size_t kDirectStates = 4096;

// The methods on either side, for the tests that compare them.
namespace queueing_detail {
double erlang_b_by_recurrence(std::size_t servers, double offered_load);
double erlang_b_by_incomplete_gamma(std::size_t servers, double offered_load);
QueueMetrics mmck_metrics_by_states(Rate arrivals, Duration mean_service, std::size_t servers, std::size_t capacity);
QueueMetrics mmck_metrics_closed_form(Rate arrivals, Duration mean_service, std::size_t servers, std::size_t capacity);
std::optional<GatedQueueMetrics> gated_queue_metrics_by_states(Rate gated_offered, Rate queued, Duration mean_service,
                                                               std::size_t servers,
                                                               std::optional<std::size_t> waiting_room);
std::optional<GatedQueueMetrics> gated_queue_metrics_closed_form(Rate gated_offered, Rate queued, Duration mean_service,
                                                                 std::size_t servers,
                                                                 std::optional<std::size_t> waiting_room);
}  // namespace queueing_detail

}  // namespace drsim
