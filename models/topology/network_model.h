#pragma once
// How long a message takes from one zone to another: half the round trip
// over the shortest route that is up, plus jitter, plus the retransmission
// delay that packet loss on the route causes. Requests pay this on every
// hop, so a degraded or lossy line shows up in latency, not only in drops.
//
// Loss follows TCP: a lost segment is resent after the retransmission
// timeout, which starts at max(200 ms, RTT + 4 x jitter) (Linux's RTO floor
// and RFC 6298's estimate) and doubles on every further loss; after
// kMaxRetransmissions (tcp_retries2 = 15) the sender gives up.
#include <cstdint>
#include <optional>
#include <vector>

#include "models/topology/failure_domains.h"
#include "sim/rng.h"

namespace drsim {

struct NetworkPath {
  bool reachable = false;
  Duration one_way{};   // half the route's round-trip time
  Duration jitter{};    // standard deviation of the one-way delay
  double loss = 0;      // probability that one transmission is lost
  Duration initial_rto{};
};

class NetworkModel {
 public:
  static constexpr int kMaxRetransmissions = 15;
  static constexpr Duration kMinRto = std::chrono::milliseconds(200);

  // Reads the topology's current state; call refresh() when it changes
  // (FailureDomains::on_change).
  explicit NetworkModel(const FailureDomains& domains);
  void refresh();

  const NetworkPath& path(ZoneIndex from, ZoneIndex to) const { return paths_[from * zones_ + to]; }

  // One delivery's delay, or nullopt when the destination is unreachable or
  // the sender gives up after kMaxRetransmissions losses.
  std::optional<Duration> sample_one_way(ZoneIndex from, ZoneIndex to, RngStream& rng) const {
    const Duration delay = sample_delay(from, to, rng);
    if (delay == kUndelivered) return std::nullopt;
    return delay;
  }
  // The same draw, with kUndelivered in place of nullopt: for the request
  // path, which samples a delay on every hop. GCC 12 passes a returned
  // std::optional<Duration> through the stack, writing the flag as a byte
  // and reading it back as part of a wider load, which stalls store
  // forwarding (10-15 cycles) at every function boundary it crosses; a plain
  // integer comes back in a register.
  static constexpr Duration kUndelivered = Duration::max();
  Duration sample_delay(ZoneIndex from, ZoneIndex to, RngStream& rng) const;

  // The expected extra delay that loss adds to one delivery (for checks).
  static Duration expected_loss_delay(const NetworkPath& path);

 private:
  const FailureDomains& domains_;
  std::size_t zones_ = 0;
  std::vector<NetworkPath> paths_;  // zones_ x zones_
};

}  // namespace drsim
