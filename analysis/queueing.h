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
// M/M/c/c loss system (computed with the stable recurrence).
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
QueueMetrics mmck_metrics(Rate arrivals, Duration mean_service, std::size_t servers, std::size_t capacity);

}  // namespace drsim
