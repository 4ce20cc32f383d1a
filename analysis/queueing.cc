#include "analysis/queueing.h"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace drsim {

namespace {
Duration seconds(double s) { return Duration{static_cast<std::int64_t>(std::llround(s * 1e9))}; }
}  // namespace

double erlang_b(std::size_t servers, double a) {
  if (a < 0) throw std::invalid_argument("erlang_b: negative offered load");
  // B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)): no factorials, no overflow.
  double b = 1.0;
  for (std::size_t k = 1; k <= servers; ++k) b = a * b / (static_cast<double>(k) + a * b);
  return b;
}

double erlang_c(std::size_t servers, double a) {
  const auto c = static_cast<double>(servers);
  if (servers == 0 || a >= c) throw std::invalid_argument("erlang_c: needs offered load below the server count");
  const double b = erlang_b(servers, a);
  return c * b / (c - a * (1.0 - b));
}

std::optional<QueueMetrics> mmc_metrics(Rate arrivals, Duration mean_service, std::size_t servers) {
  const double lambda = arrivals.per_second;
  const double service_s = to_seconds(mean_service);
  const double a = lambda * service_s;
  const auto c = static_cast<double>(servers);
  if (servers == 0 || service_s <= 0 || a >= c) return std::nullopt;
  const double mu = 1.0 / service_s;
  QueueMetrics m;
  m.utilization = a / c;
  m.wait_probability = erlang_c(servers, a);
  m.throughput_per_s = lambda;
  const double wq = m.wait_probability / (c * mu - lambda);
  m.mean_wait = seconds(wq);
  m.mean_response = seconds(wq + service_s);
  m.mean_queue_length = lambda * wq;
  m.mean_in_system = lambda * (wq + service_s);
  return m;
}

QueueMetrics mmck_metrics(Rate arrivals, Duration mean_service, std::size_t servers, std::size_t capacity) {
  if (servers == 0 || capacity < servers) throw std::invalid_argument("mmck_metrics: need 0 < c <= K");
  const double lambda = arrivals.per_second;
  const double service_s = to_seconds(mean_service);
  const double a = lambda * service_s;
  const auto c = static_cast<double>(servers);
  // Unnormalised stationary probabilities p_n / p_0 of the birth-death chain,
  // built by ratios so that large c or K does not overflow.
  std::vector<double> p(capacity + 1);
  p[0] = 1.0;
  for (std::size_t n = 1; n <= capacity; ++n) {
    p[n] = p[n - 1] * a / std::min(static_cast<double>(n), c);
  }
  double total = 0;
  for (double v : p) total += v;
  for (double& v : p) v /= total;

  QueueMetrics m;
  m.blocking_probability = p[capacity];
  m.throughput_per_s = lambda * (1.0 - p[capacity]);
  double in_system = 0, in_queue = 0, waiting_mass = 0;
  for (std::size_t n = 0; n <= capacity; ++n) {
    in_system += static_cast<double>(n) * p[n];
    if (static_cast<double>(n) > c) in_queue += (static_cast<double>(n) - c) * p[n];
    if (static_cast<double>(n) >= c && n < capacity) waiting_mass += p[n];
  }
  m.mean_in_system = in_system;
  m.mean_queue_length = in_queue;
  m.utilization = m.throughput_per_s * service_s / c;
  // An accepted arrival waits when it finds c or more (but fewer than K) present.
  m.wait_probability = waiting_mass / (1.0 - p[capacity]);
  if (m.throughput_per_s > 0) {
    m.mean_wait = seconds(in_queue / m.throughput_per_s);
    m.mean_response = seconds(in_system / m.throughput_per_s);
  }
  return m;
}

}  // namespace drsim
