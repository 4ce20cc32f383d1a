#include "models/data/tcp_connection.h"

#include <algorithm>

namespace drsim {

const char* to_string(PeerState state) {
  switch (state) {
    case PeerState::kUp:
      return "up";
    case PeerState::kRefusing:
      return "refusing";
    case PeerState::kBlackholed:
      return "blackholed";
  }
  return "?";
}

const char* to_string(TcpError error) {
  switch (error) {
    case TcpError::kNone:
      return "none";
    case TcpError::kConnectRefused:
      return "connect-refused";
    case TcpError::kConnectTimeout:
      return "connect-timeout";
    case TcpError::kTooManyConnections:
      return "too-many-connections";
    case TcpError::kReset:
      return "reset";
    case TcpError::kSocketTimeout:
      return "socket-timeout";
    case TcpError::kRetransmitTimeout:
      return "retransmit-timeout";
    case TcpError::kKeepaliveTimeout:
      return "keepalive-timeout";
  }
  return "?";
}

bool TestEndpoint::open_connection() {
  if (open_ >= max_connections_) return false;
  ++open_;
  peak_ = std::max(peak_, open_);
  return true;
}

void TestEndpoint::close_connection(std::uint64_t) {
  if (open_ > 0) --open_;
}

TcpResult TcpConnection::connect(const TcpConfig& tcp, const PoolEndpoint& peer, Duration rtt,
                                 std::uint32_t round_trips, Duration connect_timeout) {
  switch (peer.peer_state()) {
    case PeerState::kUp: {
      const Duration setup = static_cast<std::int64_t>(round_trips) * rtt;
      if (connect_timeout > Duration::zero() && setup > connect_timeout) {
        return {connect_timeout, TcpError::kConnectTimeout};
      }
      return {setup, TcpError::kNone};
    }
    case PeerState::kRefusing:
      return {rtt, TcpError::kConnectRefused};
    case PeerState::kBlackholed: {
      Duration wait = syn_give_up(tcp);
      if (connect_timeout > Duration::zero()) wait = std::min(wait, connect_timeout);
      return {wait, TcpError::kConnectTimeout};
    }
  }
  return {rtt, TcpError::kConnectRefused};
}

PeerState TcpConnection::seen_state(const PoolEndpoint& peer) const {
  const PeerState state = peer.peer_state();
  // A restarted server has forgotten the connection: its next segment gets RST.
  if (state == PeerState::kUp && peer.incarnation() != incarnation_) return PeerState::kRefusing;
  return state;
}

TcpResult TcpConnection::failed_exchange(const TcpConfig& tcp, PeerState seen, Duration rtt,
                                         Duration read_timeout) const {
  if (seen == PeerState::kRefusing) return {rtt, TcpError::kReset};
  // Black-holed: the request is never acknowledged; the driver's read
  // timeout or the kernel's retransmission give-up ends the wait.
  const Duration give_up = retransmission_give_up(tcp);
  if (read_timeout > Duration::zero() && read_timeout < give_up) return {read_timeout, TcpError::kSocketTimeout};
  return {give_up, TcpError::kRetransmitTimeout};
}

SimTime TcpConnection::keepalive_abort_at(const TcpConfig& tcp, const PoolEndpoint& peer) const {
  if (!keepalive_) return kSimTimeMax;
  const PeerState seen = seen_state(peer);
  if (seen == PeerState::kUp) return kSimTimeMax;
  // Probes go out every keepalive_time of idleness while answered; the first
  // one after the failure is the first to go unanswered.
  const SimTime failed = std::max(peer.peer_state_since(), last_activity_);
  const Duration since_idle = failed - last_activity_;
  std::int64_t periods = since_idle / tcp.keepalive_time;
  if (periods * tcp.keepalive_time < since_idle || periods == 0) ++periods;  // ceil, at least one
  const SimTime first_unanswered = last_activity_ + periods * tcp.keepalive_time;
  if (seen == PeerState::kRefusing) return first_unanswered;  // the probe gets RST
  return first_unanswered + static_cast<std::int64_t>(tcp.keepalive_probes) * tcp.keepalive_intvl;
}

TcpResult TcpConnection::exchange(const TcpConfig& tcp, const PoolEndpoint& peer, SimTime now, Duration rtt,
                                  Duration server_time, Duration read_timeout) const {
  if (now >= keepalive_abort_at(tcp, peer)) return {Duration::zero(), TcpError::kKeepaliveTimeout};
  const PeerState seen = seen_state(peer);
  if (seen != PeerState::kUp) return failed_exchange(tcp, seen, rtt, read_timeout);
  const Duration answer = rtt + server_time;
  if (read_timeout > Duration::zero() && answer > read_timeout) return {read_timeout, TcpError::kSocketTimeout};
  return {answer, TcpError::kNone};
}

TcpResult TcpConnection::recheck(const TcpConfig& tcp, const PoolEndpoint& peer, SimTime sent, SimTime now,
                                 Duration rtt, Duration read_timeout) const {
  const PeerState seen = seen_state(peer);
  // Up (perhaps after a blip that healed: retransmission got the answer through).
  if (seen == PeerState::kUp) return {now - sent, TcpError::kNone};
  TcpResult r = failed_exchange(tcp, seen, rtt, read_timeout);
  r.after = std::max(r.after, now - sent);
  return r;
}

}  // namespace drsim
