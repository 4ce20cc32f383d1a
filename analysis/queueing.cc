#include "analysis/queueing.h"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace drsim {

namespace {
Duration seconds(double s) { return Duration{static_cast<std::int64_t>(std::llround(s * 1e9))}; }

// Sums over k = 0..m of r^k (mass) and k r^k (moment), for 0 <= r <= 1 and
// any m (a queue limit of billions): closed forms, with a Taylor expansion
// in log r where they cancel (r^m near 1).
struct GeometricSums {
  double mass = 0;
  double moment = 0;
};

GeometricSums geometric_sums(double r, double m) {
  if (r <= 0) return {1.0, 0.0};
  const double eps = std::log(r);  // <= 0
  if ((m + 1) * -eps < 1e-3) {
    // sum_k k^p e^{k eps} = S_p + eps S_{p+1} + eps^2 S_{p+2} / 2 + eps^3 S_{p+3} / 6 + ...
    // with S_p = sum_{k=0}^m k^p; the next term is below 1e-13 of the sum.
    const double s0 = m + 1, s1 = m * (m + 1) / 2, s2 = m * (m + 1) * (2 * m + 1) / 6, s3 = s1 * s1;
    const double s4 = m * (m + 1) * (2 * m + 1) * (3 * m * m + 3 * m - 1) / 30;
    return {s0 + eps * s1 + eps * eps * s2 / 2 + eps * eps * eps * s3 / 6,
            s1 + eps * s2 + eps * eps * s3 / 2 + eps * eps * eps * s4 / 6};
  }
  const double one_minus_r = 1.0 - r;  // exact for r >= 1/2 (Sterbenz)
  const double r_m = std::exp(m * eps);
  const double mass = -std::expm1((m + 1) * eps) / one_minus_r;
  // sum k r^k = r (G_{m-1} - m r^m) / (1 - r), G_{m-1} = (1 - r^m) / (1 - r):
  // this form loses at most a factor 2 / (m |log r|) <= 2000 to cancellation.
  const double below = -std::expm1(m * eps) / one_minus_r;
  return {mass, std::max(0.0, r * (below - m * r_m) / one_minus_r)};
}

// The stationary distribution of a birth-death chain on c servers: births
// at rate lambda below c (offered load a = lambda / mu), deaths min(n, c)
// mu, and from c on a geometric tail with ratio rho (births there / c mu),
// `room` states beyond c (none: unbounded, needs rho < 1). Below c the
// chain is the truncated Poisson of Erlang B: p_n / p_c sums to 1 / B - 1
// and n p_n / p_c to a / B - a - c over n < c, so the sums cost O(1)
// instead of a term per state. Normalised moments:
struct ChainMoments {
  double below = 0;       // P(n < c)
  double busy_below = 0;  // E[n; n < c]
  double at_least_c = 0;  // P(n >= c)
  double queue = 0;       // E[n - c; n >= c]
  double last = 0;        // P(n = c + room), 0 when unbounded
};

ChainMoments chain_moments(double a, std::size_t servers, double rho, std::optional<double> room) {
  const auto c = static_cast<double>(servers);
  const double b = erlang_b(servers, a);
  // Weights scaled by B / p_c, or, with a bounded room and rho > 1 (where
  // rho^room may overflow), by B / p_last.
  double below = 1.0 - b;
  double busy_below = std::max(0.0, a * (1.0 - b) - c * b);
  double tail_mass = 0, tail_queue = 0, last = 0;
  if (!room) {
    tail_mass = b / (1.0 - rho);
    tail_queue = b * rho / ((1.0 - rho) * (1.0 - rho));
  } else if (rho <= 1) {
    const GeometricSums g = geometric_sums(rho, *room);
    tail_mass = b * g.mass;
    tail_queue = b * g.moment;
    last = b * (rho > 0 ? std::exp(*room * std::log(rho)) : (*room == 0 ? 1.0 : 0.0));
  } else {
    // p_{c+k} / p_last = sigma^(room - k), sigma = 1 / rho.
    const double sigma = 1.0 / rho;
    const GeometricSums g = geometric_sums(sigma, *room);
    const double sigma_room = std::exp(*room * std::log(sigma));
    below *= sigma_room;
    busy_below *= sigma_room;
    tail_mass = b * g.mass;
    tail_queue = b * std::max(0.0, *room * g.mass - g.moment);
    last = b;
  }
  const double total = below + tail_mass;
  return {below / total, busy_below / total, tail_mass / total, tail_queue / total, last / total};
}
}  // namespace

namespace queueing_detail {

double erlang_b_by_recurrence(std::size_t servers, double a) {
  // B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)): no factorials, no overflow.
  double b = 1.0;
  for (std::size_t k = 1; k <= servers; ++k) b = a * b / (static_cast<double>(k) + a * b);
  return b;
}

double erlang_b_by_incomplete_gamma(std::size_t servers, double a) {
  if (servers == 0) return 1.0;
  if (a <= 0) return 0.0;
  if (std::isinf(a)) return 1.0;
  // B = P(X = c) / P(X <= c) for X Poisson(a): the Poisson mass is
  // gamma_p_derivative(c + 1, a) = a^c e^-a / c!, the distribution function
  // the regularised upper incomplete gamma Q(c + 1, a); Boost evaluates both
  // to near double precision in O(1) for any c (Temme's uniform expansion
  // near a = c, series and continued fractions elsewhere). Where a << c the
  // mass underflows and B is 0 to double precision, rightly.
  const double s = static_cast<double>(servers) + 1.0;
  const double q = boost::math::gamma_q(s, a);
  if (q > 1e-280) return boost::math::gamma_p_derivative(s, a) / q;
  // Q underflows only well above a = c: then 1 / B = sum_j c! / ((c - j)! a^j),
  // whose terms fall by (c - j) / a < 1 each, and fast: fewer than
  // 9 sqrt(c) terms (68,000 at c = 2^32) even at the edge of this branch,
  // far fewer beyond it.
  const auto c = static_cast<double>(servers);
  double term = 1.0, sum = 1.0;
  for (double j = 0; j < c; ++j) {
    term *= (c - j) / a;
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return 1.0 / sum;
}

QueueMetrics mmck_metrics_by_states(Rate arrivals, Duration mean_service, std::size_t servers, std::size_t capacity) {
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

QueueMetrics mmck_metrics_closed_form(Rate arrivals, Duration mean_service, std::size_t servers, std::size_t capacity) {
  const double lambda = arrivals.per_second;
  const double service_s = to_seconds(mean_service);
  const double a = lambda * service_s;
  const auto c = static_cast<double>(servers);
  const ChainMoments p = chain_moments(a, servers, a / c, static_cast<double>(capacity - servers));
  QueueMetrics m;
  m.blocking_probability = p.last;
  m.throughput_per_s = lambda * (1.0 - p.last);
  m.mean_queue_length = p.queue;
  m.mean_in_system = p.busy_below + c * p.at_least_c + p.queue;
  m.utilization = m.throughput_per_s * service_s / c;
  m.wait_probability = std::max(0.0, p.at_least_c - p.last) / (1.0 - p.last);
  if (m.throughput_per_s > 0) {
    m.mean_wait = seconds(m.mean_queue_length / m.throughput_per_s);
    m.mean_response = seconds(m.mean_in_system / m.throughput_per_s);
  }
  return m;
}

}  // namespace queueing_detail

double erlang_b(std::size_t servers, double a) {
  if (!(a >= 0)) throw std::invalid_argument("erlang_b: negative offered load");
  // The recurrence costs a step per server: exact enough (rounding grows like
  // c x 1e-16) and cheap up to a few thousand; beyond, the incomplete gamma
  // form costs the same for 5,000 servers as for 4 billion.
  if (servers <= kRecurrenceServers) return queueing_detail::erlang_b_by_recurrence(servers, a);
  return queueing_detail::erlang_b_by_incomplete_gamma(servers, a);
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
  // A term per state up to a few thousand states (the sums as they always
  // were), closed forms beyond: a vector of K doubles at K = 2^32 is 32 GB.
  // The state sums also overflow where their largest term p_n / p_0 does
  // (a^n / n! at n = min(a, c), times rho^(K - c) above c): past ~700
  // Erlangs, or a long queue over capacity, they gave NaN.
  const double a = arrivals.per_second * to_seconds(mean_service);
  const auto c = static_cast<double>(servers);
  const double peak = std::min(std::floor(a), c);
  const double log_largest = (a > 0 ? peak * std::log(a) - std::lgamma(peak + 1) : 0.0) +
                             (a > c ? static_cast<double>(capacity - servers) * std::log(a / c) : 0.0);
  if (capacity < kDirectStates && log_largest < 700) {
    return queueing_detail::mmck_metrics_by_states(arrivals, mean_service, servers, capacity);
  }
  return queueing_detail::mmck_metrics_closed_form(arrivals, mean_service, servers, capacity);
}

namespace queueing_detail {

namespace {

// The gated queue's state, normalised: P(n >= c), P(the last state), the
// busy servers below c and the mean queue.
struct GatedQueueState {
  double overflow = 0;
  double full = 0;  // the queued stream is rejected here
  double busy_below = 0;
  double in_queue = 0;
  bool clamp_wait = false;  // wait probability floored at 0
};

// The metrics of a gated queue from its state, whichever way it was summed.
GatedQueueMetrics gated_metrics_from(double gated, double others, double c, const GatedQueueState& q) {
  GatedQueueMetrics out;
  out.overflow = q.overflow;
  const double busy = q.busy_below + c * q.overflow;
  QueueMetrics& m = out.queue;
  const double admitted_gated = gated * (1.0 - q.overflow);
  m.throughput_per_s = admitted_gated + others * (1.0 - q.full);
  const double arrivals = admitted_gated + others;
  m.blocking_probability = arrivals > 0 ? others * q.full / arrivals : 0.0;
  m.utilization = busy / c;
  m.mean_queue_length = q.in_queue;
  m.mean_in_system = busy + q.in_queue;
  if (m.throughput_per_s > 0) {
    // Only the queued stream waits, when it finds every server busy.
    const double waiting = q.overflow - q.full;
    m.wait_probability = others * (q.clamp_wait ? std::max(0.0, waiting) : waiting) / m.throughput_per_s;
    m.mean_wait = seconds(q.in_queue / m.throughput_per_s);
    m.mean_response = seconds(m.mean_in_system / m.throughput_per_s);
  }
  return out;
}

}  // namespace

std::optional<GatedQueueMetrics> gated_queue_metrics_by_states(Rate gated_offered, Rate queued, Duration mean_service,
                                                               std::size_t servers,
                                                               std::optional<std::size_t> waiting_room) {
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

  return gated_metrics_from(gated, others, c,
                            GatedQueueState{.overflow = at_c * tail_mass / total,
                                            .full = at_c * last / total,
                                            .busy_below = busy_below / total,
                                            .in_queue = at_c * tail_queue / total});
}

std::optional<GatedQueueMetrics> gated_queue_metrics_closed_form(Rate gated_offered, Rate queued, Duration mean_service,
                                                                 std::size_t servers,
                                                                 std::optional<std::size_t> waiting_room) {
  const double gated = gated_offered.per_second, others = queued.per_second;
  const double service_s = to_seconds(mean_service);
  const auto c = static_cast<double>(servers);
  const double rho = others * service_s / c;  // the chain's ratio from c on
  if (!waiting_room && rho >= 1) return std::nullopt;
  std::optional<double> room;
  if (waiting_room) room = static_cast<double>(*waiting_room);
  const ChainMoments p = chain_moments((gated + others) * service_s, servers, rho, room);
  // Rounding in the closed forms can put overflow a hair below full.
  return gated_metrics_from(gated, others, c,
                            GatedQueueState{.overflow = p.at_least_c,
                                            .full = p.last,
                                            .busy_below = p.busy_below,
                                            .in_queue = p.queue,
                                            .clamp_wait = true});
}

}  // namespace queueing_detail

std::optional<GatedQueueMetrics> gated_queue_metrics(Rate gated_offered, Rate queued, Duration mean_service,
                                                     std::size_t servers, std::optional<std::size_t> waiting_room) {
  const double gated = gated_offered.per_second, others = queued.per_second;
  if (servers == 0 || to_seconds(mean_service) <= 0 || !(gated >= 0) || !(others >= 0) || !std::isfinite(gated) ||
      !std::isfinite(others)) {
    throw std::invalid_argument("gated_queue_metrics: needs servers, a positive service time, finite rates >= 0");
  }
  // A term per state up to a few thousand states, closed forms beyond (as
  // mmck_metrics); the state sums' tail overflows where rho^room does.
  const double rho = others * to_seconds(mean_service) / static_cast<double>(servers);
  const bool tail_fits = !waiting_room || rho <= 1 || static_cast<double>(*waiting_room) * std::log(rho) < 700;
  if (servers < kDirectStates && waiting_room.value_or(0) < kDirectStates - servers && tail_fits) {
    return queueing_detail::gated_queue_metrics_by_states(gated_offered, queued, mean_service, servers, waiting_room);
  }
  return queueing_detail::gated_queue_metrics_closed_form(gated_offered, queued, mean_service, servers, waiting_room);
}

}  // namespace drsim
