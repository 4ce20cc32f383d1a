#include "models/data/replication.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/topology/network_model.h"

namespace drsim {

FifoReplicationTransport::FifoReplicationTransport(const FailureDomains& domains, std::optional<Bandwidth> bandwidth,
                                                   double share)
    : domains_(domains), bandwidth_(bandwidth), share_(share) {}

double FifoReplicationTransport::bandwidth_bps(ZoneIndex from, ZoneIndex to) const {
  if (bandwidth_) return bandwidth_->bits_per_second;
  const std::size_t zones = domains_.topology().zone_count();
  if (route_bandwidth_.size() != zones * zones) route_bandwidth_.assign(zones * zones, std::nullopt);
  std::optional<double>& cached = route_bandwidth_[from * zones + to];
  if (!cached) {
    double narrowest = std::numeric_limits<double>::infinity();
    if (auto route = domains_.topology().route(from, to, domains_.state())) {
      for (LinkIndex l : route->links) narrowest = std::min(narrowest, domains_.link_bandwidth(l).bits_per_second);
    }
    cached = std::isinf(narrowest) ? 0.0 : narrowest * share_;
  }
  return *cached;
}

bool FifoReplicationTransport::send(std::size_t channel, ZoneIndex from, ZoneIndex to, std::int64_t bytes, SimTime now,
                                    Delivered delivered) {
  const NetworkPath& path = domains_.network().path(from, to);
  if (!path.reachable) return false;
  if (free_at_.size() <= channel) free_at_.resize(channel + 1, kSimStart);
  const double bps = bandwidth_bps(from, to);
  Duration transmit{0};
  if (bps > 0) {
    transmit = Duration{static_cast<std::int64_t>(std::llround(static_cast<double>(bytes) * 8.0 / bps * 1e9))};
  }
  const SimTime departs = std::max(now, free_at_[channel]) + transmit;
  free_at_[channel] = departs;
  delivered(departs + path.one_way);
  return true;
}

void FifoReplicationTransport::reset(std::size_t channel) {
  if (channel < free_at_.size()) free_at_[channel] = kSimStart;
}

SimTime FifoReplicationTransport::drained_at(std::size_t channel) const {
  return channel < free_at_.size() ? free_at_[channel] : kSimStart;
}

}  // namespace drsim
