#include "models/topology/network_model.h"

#include <algorithm>
#include <cmath>

namespace drsim {

NetworkModel::NetworkModel(const FailureDomains& domains) : domains_(domains) { refresh(); }

void NetworkModel::refresh() {
  const Topology& topo = domains_.topology();
  const TopologyState& state = domains_.state();
  zones_ = topo.zone_count();
  paths_.assign(zones_ * zones_, NetworkPath{});
  for (ZoneIndex a = 0; a < zones_; ++a) {
    for (ZoneIndex b = 0; b < zones_; ++b) {
      const auto route = topo.route(a, b, state);
      if (!route) continue;
      NetworkPath& p = paths_[a * zones_ + b];
      p.reachable = true;
      p.one_way = route->rtt / 2;
      // Independent link jitters add in variance; losses compound.
      double variance = 0, delivered = 1;
      for (LinkIndex l : route->links) {
        const double j = to_seconds(topo.config().links[l].jitter);
        variance += j * j;
        delivered *= 1.0 - domains_.link_loss(l).value;
      }
      p.jitter = Duration{static_cast<std::int64_t>(std::sqrt(variance) * 1e9)};
      p.loss = 1.0 - delivered;
      p.initial_rto = std::max(kMinRto, route->rtt + 4 * p.jitter);
    }
  }
}

Duration NetworkModel::sample_delay(ZoneIndex from, ZoneIndex to, RngStream& rng) const {
  const NetworkPath& p = path(from, to);
  if (!p.reachable) return kUndelivered;
  Duration delay = p.one_way;
  if (p.jitter > Duration::zero()) {
    // Normal jitter, floored at half the base delay: light cannot be early.
    const auto noise = static_cast<std::int64_t>(rng.standard_normal() * static_cast<double>(p.jitter.count()));
    delay = std::max(p.one_way / 2, p.one_way + Duration{noise});
  }
  if (p.loss > 0) {
    Duration rto = p.initial_rto;
    int losses = 0;
    while (rng.bernoulli(p.loss)) {
      if (++losses > kMaxRetransmissions) return kUndelivered;
      delay += rto;
      rto *= 2;
    }
  }
  return delay;
}

Duration NetworkModel::expected_loss_delay(const NetworkPath& path) {
  // E = sum over k of P(at least k+1 losses) x RTO_k = sum p^(k+1) RTO_0 2^k.
  double expected = 0, p_k = path.loss;
  double rto = to_seconds(path.initial_rto);
  for (int k = 0; k < kMaxRetransmissions; ++k) {
    expected += p_k * rto;
    p_k *= path.loss;
    rto *= 2;
  }
  return Duration{static_cast<std::int64_t>(expected * 1e9)};
}

}  // namespace drsim
