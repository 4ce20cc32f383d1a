#include "analysis/queueing.h"

#include <algorithm>
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

std::optional<GatedQueueMetrics> gated_queue_metrics(Rate gated_offered, Rate queued, Duration mean_service,
                                                     std::size_t servers, std::optional<std::size_t> waiting_room) {
  const double gated = gated_offered.per_second, others = queued.per_second;
  const double service_s = to_seconds(mean_service);
  if (servers == 0 || service_s <= 0 || !(gated >= 0) || !(others >= 0) || !std::isfinite(gated) ||
      !std::isfinite(others)) {
    throw std::invalid_argument("gated_queue_metrics: needs servers, a positive service time, finite rates >= 0");
  }
  const auto c = static_cast<double>(servers);
  const double rho = others * service_s / c;  // the chain's ratio from c on
  if (!waiting_room && rho >= 1) return std::nullopt;
  // log q_n, q_n = p_n / p_0, for n <= c; from c on q_{c+k} = q_c rho^k.
  // Logarithms, so that hundreds of servers at high load do not overflow.
  const double a = (gated + others) * service_s;
  std::vector<double> log_q(servers + 1, 0.0);
  for (std::size_t n = 1; n <= servers; ++n) {
    log_q[n] = a > 0 ? log_q[n - 1] + std::log(a / static_cast<double>(n)) : -INFINITY;
  }
  // The tail n >= c as multiples of q_c: mass sum rho^k, queue sum k rho^k,
  // and the last state's weight (rejections) when the room is bounded.
  double tail_mass = 0, tail_queue = 0, last = 0;
  if (!waiting_room) {
    tail_mass = 1.0 / (1.0 - rho);
    tail_queue = rho / ((1.0 - rho) * (1.0 - rho));
  } else {
    double term = 1;
    for (std::size_t k = 0; k <= *waiting_room; ++k) {
      tail_mass += term;
      tail_queue += static_cast<double>(k) * term;
      last = term;
      term *= rho;
    }
  }
  double top = log_q[servers];
  for (double l : log_q) top = std::max(top, l);
  double below = 0, busy_below = 0;  // sum over n < c of p_n and n p_n (unnormalised)
  for (std::size_t n = 0; n < servers; ++n) {
    const double w = std::exp(log_q[n] - top);
    below += w;
    busy_below += static_cast<double>(n) * w;
  }
  const double at_c = std::exp(log_q[servers] - top);
  const double total = below + at_c * tail_mass;

  GatedQueueMetrics out;
  out.overflow = at_c * tail_mass / total;
  const double full = at_c * last / total;  // the queued stream is rejected here
  const double in_queue = at_c * tail_queue / total;
  const double busy = busy_below / total + c * out.overflow;
  QueueMetrics& m = out.queue;
  const double admitted_gated = gated * (1.0 - out.overflow);
  m.throughput_per_s = admitted_gated + others * (1.0 - full);
  const double arrivals = admitted_gated + others;
  m.blocking_probability = arrivals > 0 ? others * full / arrivals : 0.0;
  m.utilization = busy / c;
  m.mean_queue_length = in_queue;
  m.mean_in_system = busy + in_queue;
  if (m.throughput_per_s > 0) {
    // Only the queued stream waits, when it finds every server busy.
    m.wait_probability = others * (out.overflow - full) / m.throughput_per_s;
    m.mean_wait = seconds(in_queue / m.throughput_per_s);
    m.mean_response = seconds(m.mean_in_system / m.throughput_per_s);
  }
  return out;
}

}  // namespace drsim
