#pragma once
// A TCP connection from a pod to a database endpoint, and what happens to it
// when the endpoint vanishes. The endpoint is abstract (PoolEndpoint): where
// it is, whether it answers, refuses (RST: errors come back within a round
// trip) or black-holes (no answer at all: the connection stays ESTABLISHED),
// and how long a query takes. The database model implements it; TestEndpoint
// is a settable one for tests.
//
// The model is evaluated lazily, at the moments the pool touches a
// connection, so that an idle connection costs no events:
//  - connect to an answering peer: connect_round_trips x RTT; refusing: one
//    RTT (RST); black-holed: the driver's connect timeout or the kernel's SYN
//    give-up (127 s), whichever is first.
//  - an exchange (query or validation) on a connection: answering peer: RTT +
//    server time, unless that exceeds the read timeout; refusing peer, or a
//    peer restarted since the connection opened (new incarnation): RST after
//    one RTT; black-holed: the request sits unacknowledged, so the read
//    timeout or the kernel's retransmission give-up (924.6 s) ends it. If the
//    peer fails while the answer is under way, the answer is lost and the same
//    rules apply from the moment the request was sent (a simplification: the
//    server's own retransmissions are not modelled).
//  - an idle connection with SO_KEEPALIVE whose peer went silent is aborted
//    by the kernel keepalive_time + probes x intvl after it went idle (or
//    after the first probe following the failure); a later use then fails at
//    once. Only the endpoint's current failure episode is considered.
#include <cstdint>
#include <string>

#include "models/data/tcp_config.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace drsim {

enum class PeerState : std::uint8_t {
  kUp,          // answers
  kRefusing,    // resets connections (process down, host up; or a load balancer refusing)
  kBlackholed,  // silent: packets vanish (zone or region lost, partition)
};
const char* to_string(PeerState state);

// Hears when a write that had to wait for replicas (semi-sync, sync) commits
// or is discarded. A plain interface and a token, so that a write costs no
// allocation.
class CommitWaiter {
 public:
  virtual void on_commit(std::uint64_t token, bool committed) = 0;

 protected:
  ~CommitWaiter() = default;
};

struct CommitNotice {
  CommitWaiter* waiter = nullptr;
  std::uint64_t token = 0;
  explicit operator bool() const { return waiter != nullptr; }
  void operator()(bool committed) const {
    if (waiter != nullptr) waiter->on_commit(token, committed);
  }
};

// What the pool sees of a database. The pool calls it at the times it
// touches a connection; implementations answer for the current sim time.
//
// An endpoint may be a name in front of several servers (a DNS name, a
// proxy): resolve() gives the server a connection opened now reaches, and
// the connection keeps talking to that server for its whole life, whatever
// the name resolves to later. That is what leaves pooled connections stuck
// on a failed primary after the endpoint moved on (docs/sources.md section 5).
class PoolEndpoint {
 public:
  // The server a new connection reaches now; a plain server is itself.
  virtual PoolEndpoint& resolve() { return *this; }
  virtual const std::string& endpoint_name() const = 0;
  virtual PeerState peer_state() const = 0;
  // When peer_state() last changed, or the server restarted.
  virtual SimTime peer_state_since() const = 0;
  // Changes when the server restarts: connections opened before get RST.
  virtual std::uint64_t incarnation() const = 0;
  // Network round trip between a topology zone and the endpoint.
  virtual Duration round_trip(std::uint32_t from_zone) const = 0;
  // Server-side time of one query.
  virtual Duration query_time(RngStream& rng) = 0;
  // A connection is being opened; false refuses it (max_connections reached:
  // "Too many connections"). Every accepted one is closed exactly once, with
  // the incarnation it was opened in (a restarted server has forgotten the
  // connections of its earlier incarnations).
  virtual bool open_connection() = 0;
  virtual void close_connection(std::uint64_t incarnation) = 0;
  // A write statement reaches the server now. kCommitted: it answers after
  // query_time as any query; kFailed: it answers with an error (no writable
  // primary); kPending: it answers once `done` runs (true: committed; false:
  // discarded, an error), as a semi-synchronous or synchronous commit does.
  enum class WriteAnswer : std::uint8_t { kCommitted, kFailed, kPending };
  virtual WriteAnswer write(CommitNotice done) {
    (void)done;
    return WriteAnswer::kCommitted;
  }

 protected:
  ~PoolEndpoint() = default;
};

// A settable endpoint: fixed round trip and query time, optional connection limit.
class TestEndpoint final : public PoolEndpoint {
 public:
  explicit TestEndpoint(std::string name = "db", Duration rtt = std::chrono::milliseconds(1),
                        Duration query = std::chrono::milliseconds(10))
      : name_(std::move(name)), rtt_(rtt), query_(query) {}

  void set_state(PeerState state, SimTime since) {
    state_ = state;
    since_ = since;
  }
  // The server restarts: up again, old connections reset.
  void restart(SimTime at) {
    ++incarnation_;
    set_state(PeerState::kUp, at);
  }
  void set_query_time(Duration d) { query_ = d; }
  void set_round_trip(Duration d) { rtt_ = d; }
  void set_max_connections(std::uint32_t n) { max_connections_ = n; }
  std::uint32_t open_connections() const { return open_; }
  std::uint32_t peak_connections() const { return peak_; }

  const std::string& endpoint_name() const override { return name_; }
  PeerState peer_state() const override { return state_; }
  SimTime peer_state_since() const override { return since_; }
  std::uint64_t incarnation() const override { return incarnation_; }
  Duration round_trip(std::uint32_t) const override { return rtt_; }
  Duration query_time(RngStream&) override { return query_; }
  bool open_connection() override;
  void close_connection(std::uint64_t incarnation) override;

 private:
  std::string name_;
  Duration rtt_;
  Duration query_;
  PeerState state_ = PeerState::kUp;
  SimTime since_{};
  std::uint64_t incarnation_ = 0;
  std::uint32_t max_connections_ = 0xFFFFFFFFu;
  std::uint32_t open_ = 0;
  std::uint32_t peak_ = 0;
};

enum class TcpError : std::uint8_t {
  kNone,
  kConnectRefused,      // connect() got RST: ECONNREFUSED
  kConnectTimeout,      // driver connect timeout or SYN retries exhausted
  kTooManyConnections,  // the server refused the session
  kReset,               // ECONNRESET on an established connection
  kSocketTimeout,       // the driver's read timeout (socketTimeout, or validationTimeout)
  kRetransmitTimeout,   // tcp_retries2 exhausted: ETIMEDOUT
  kKeepaliveTimeout,    // aborted by keepalive while idle: ETIMEDOUT at the next use
};
const char* to_string(TcpError error);

// When an operation ends, counted from its start, and how.
struct TcpResult {
  Duration after{};
  TcpError error = TcpError::kNone;
  bool ok() const { return error == TcpError::kNone; }
};

class TcpConnection {
 public:
  TcpConnection() = default;
  TcpConnection(SimTime established, std::uint64_t incarnation, bool keepalive)
      : established_(established), last_activity_(established), incarnation_(incarnation), keepalive_(keepalive) {}

  // Opening a connection to `peer` now. connect_timeout 0: the kernel decides.
  static TcpResult connect(const TcpConfig& tcp, const PoolEndpoint& peer, Duration rtt, std::uint32_t round_trips,
                           Duration connect_timeout);

  // A request sent at `now` that needs server_time at the peer, waiting at
  // most read_timeout (0: forever) for the answer.
  TcpResult exchange(const TcpConfig& tcp, const PoolEndpoint& peer, SimTime now, Duration rtt, Duration server_time,
                     Duration read_timeout) const;
  // An answer computed as ok at send time is due now: if the peer failed in
  // between, the corrected result (counted from `sent`); otherwise ok.
  TcpResult recheck(const TcpConfig& tcp, const PoolEndpoint& peer, SimTime sent, SimTime now, Duration rtt,
                    Duration read_timeout) const;
  // When the kernel aborts this connection if it stays idle (keepalive), given
  // the peer's current state; kSimTimeMax if never.
  SimTime keepalive_abort_at(const TcpConfig& tcp, const PoolEndpoint& peer) const;

  void touch(SimTime t) { last_activity_ = t; }
  SimTime established() const { return established_; }
  SimTime last_activity() const { return last_activity_; }
  std::uint64_t incarnation() const { return incarnation_; }
  bool keepalive() const { return keepalive_; }

 private:
  // The peer as this connection sees it now: answering, resetting, or silent.
  PeerState seen_state(const PoolEndpoint& peer) const;
  TcpResult failed_exchange(const TcpConfig& tcp, PeerState seen, Duration rtt, Duration read_timeout) const;

  SimTime established_{};
  SimTime last_activity_{};
  std::uint64_t incarnation_ = 0;
  bool keepalive_ = false;
};

}  // namespace drsim
