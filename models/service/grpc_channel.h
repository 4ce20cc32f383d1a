#pragma once
// Internal to models/service/: one calling pod's gRPC channel to one service
// (discovery grpc; settings in grpc_config.h). A channel holds long-lived
// HTTP/2 connections and sends every call on one of them; it learns nothing
// from a call's deadline passing. A connection breaks only when
//   - the pod resets it (its process is gone), at once;
//   - a keepalive ping goes unacknowledged for keepaliveTimeout (pings are
//     sent every keepaliveTime while calls are under way; off by default);
//   - data it sent stays unacknowledged: for keepaliveTimeout when keepalive
//     is on (TCP_USER_TIMEOUT), else until the kernel gives up (tcp_retries2,
//     924.6 s);
//   - the server closes it at maxConnectionAge (no call fails).
// Calls under way on a broken connection fail (UNAVAILABLE). The channel then
// reconnects (with gRPC's backoff after failed attempts) and asks for a
// re-resolution, which its resolver grants at most every
// minTimeBetweenResolutions: the only moment it learns of new pods.
//
// Target clusterIP: one connection, to the pod kube-proxy picks when it is
// opened. Target headless with pick_first: one connection, to the addresses
// of the last resolution in turn; with round_robin: one connection per
// address, calls rotating over the connected ones.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "models/service/grpc_config.h"
#include "models/topology/failure_domains.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace drsim {

class Service;
class Simulation;

class GrpcChannel {
 public:
  // Hears of a connection to `pod` breaking: the calls under way on it fail.
  using BreakListener = std::function<void(std::size_t pod)>;

  GrpcChannel(const GrpcConfig& config, Service& upstream, std::optional<ZoneIndex> local_zone, Simulation& sim,
              std::uint32_t host_component, RngStream& rng, BreakListener on_break);
  GrpcChannel(const GrpcChannel&) = delete;
  GrpcChannel& operator=(const GrpcChannel&) = delete;

  // The calling pod starts: the channel resolves and its connections are up
  // (opened before the pod took traffic), where the pods answer.
  void start();
  // The calling pod stops: its connections and timers are gone.
  void stop();
  bool running() const { return running_; }
  const GrpcConfig& settings() const { return config_; }

  // The pod for the next call: nullopt when no connection is ready (the
  // call fails at once with UNAVAILABLE: gRPC's default, not wait-for-ready).
  std::optional<std::size_t> pick();
  // A call went out on the connection to the pod / ended (answered or abandoned).
  void sent(std::size_t pod);
  void ended(std::size_t pod);
  // The caller gave up on a call (its deadline): the channel resets the
  // stream, which is data sent on the connection like any other.
  void abandoned(std::size_t pod);
  // Data sent to the pod got no acknowledgement (it was lost on the way):
  // the connection breaks when TCP gives up, unless the path recovers first.
  // Returns how long until then.
  Duration unacknowledged(std::size_t pod);
  // The pod reset the connection (a refused call): it breaks now.
  void reset(std::size_t pod);

  std::uint64_t breaks() const { return breaks_; }

 private:
  enum class State : std::uint8_t { kIdle, kConnecting, kReady, kBackoff };
  struct Connection {
    std::size_t address = 0;  // headless round_robin: the pod it is for
    std::size_t pod = 0;      // the pod it reached (or is trying)
    State state = State::kIdle;
    std::uint32_t active = 0;  // calls under way on it
    std::uint32_t failed_attempts = 0;
    Duration backoff{};
    std::uint32_t generation = 0;  // events of an earlier connection are ignored
    EventId attempt, ping, user_timeout, age;
    bool pinging = false;
    bool retired = false;  // its address left the resolution: no new calls, no reconnection
  };
  bool single() const { return !(headless_ && round_robin_); }
  // Opens the connection: to the pod kube-proxy picks (clusterIP), the next address (pick_first) or its own.
  void connect(std::size_t c, bool warm);
  void connected(std::size_t c, std::uint32_t generation);
  void connect_failed(std::size_t c, std::uint32_t generation);
  void broken(std::size_t c);
  void close(Connection& k);
  void schedule_ping(std::size_t c);
  void ping(std::size_t c, std::uint32_t generation);
  // Arms the TCP give-up for data the pod did not acknowledge, if not armed yet.
  Duration arm_user_timeout(std::size_t c);
  void request_resolution();
  void resolve();
  std::optional<std::size_t> connection_to(std::size_t pod) const;

  const GrpcConfig& config_;
  bool headless_;
  bool round_robin_;
  Service& upstream_;
  std::optional<ZoneIndex> local_zone_;
  Simulation& sim_;
  std::uint32_t host_component_;
  RngStream& rng_;
  BreakListener on_break_;
  bool running_ = false;
  std::vector<Connection> connections_;
  std::vector<std::size_t> addresses_;  // headless: the last resolution, in the order DNS gave them
  std::size_t next_address_ = 0;        // pick_first: where the next connection attempt goes
  std::size_t next_pick_ = 0;           // round_robin
  std::optional<SimTime> last_resolution_;
  EventId resolution_;
  std::uint64_t breaks_ = 0;
};

}  // namespace drsim
