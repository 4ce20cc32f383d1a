#include "analysis/expected_network_delay.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "models/topology/network_model.h"

namespace drsim {

std::optional<Duration> expected_one_way_delay(const Topology& topology, const TopologyState& state, ZoneIndex from,
                                               ZoneIndex to) {
  const auto route = topology.route(from, to, state);
  if (!route) return std::nullopt;
  // The path as NetworkModel::refresh() builds it: link jitters add in
  // variance, losses compound.
  NetworkPath path;
  path.reachable = true;
  path.one_way = route->rtt / 2;
  double variance = 0, delivered = 1;
  for (LinkIndex l : route->links) {
    const LinkConfig& link = topology.config().links[l];
    const double j = to_seconds(link.jitter);
    variance += j * j;
    delivered *= 1.0 - link.loss.value;
  }
  path.jitter = Duration{static_cast<std::int64_t>(std::sqrt(variance) * 1e9)};
  path.loss = 1.0 - delivered;
  path.initial_rto = std::max(NetworkModel::kMinRto, route->rtt + 4 * path.jitter);

  // A sample is max(d / 2, d + sigma Z), Z standard normal: its mean is
  // d / 2 + E[(d / 2 + sigma Z)^+] = d / 2 + (d / 2) Phi(k) + sigma phi(k), k = d / (2 sigma).
  const double d = to_seconds(path.one_way);
  const double sigma = to_seconds(path.jitter);
  double mean = d;
  if (sigma > 0) {
    const double k = d / (2 * sigma);
    const double phi = std::exp(-0.5 * k * k) / std::sqrt(2 * std::numbers::pi);
    const double cdf = 0.5 * std::erfc(-k / std::numbers::sqrt2);
    mean = d / 2 + (d / 2) * cdf + sigma * phi;
  }
  mean += to_seconds(NetworkModel::expected_loss_delay(path));
  return Duration{static_cast<std::int64_t>(std::llround(mean * 1e9))};
}

std::optional<Duration> expected_round_trip(const Topology& topology, const TopologyState& state, ZoneIndex from,
                                            ZoneIndex to) {
  const auto there = expected_one_way_delay(topology, state, from, to);
  const auto back = expected_one_way_delay(topology, state, to, from);
  if (!there || !back) return std::nullopt;
  return *there + *back;
}

}  // namespace drsim
