#pragma once
// The contract between a caller and a service: a Job names its owner and an
// opaque token, and the service reports back through the owner exactly once
// if it serves or refuses the job after accepting it. A black-holed job is
// never reported: its owner's timeout is what ends it, as in real life.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/service/ring_queue.h"
#include "sim/time.h"

namespace drsim {

enum class ServeOutcome : std::uint8_t {
  kServed,
  kRejected,  // every candidate pod's queue was full
  kNoTarget,  // no pod is up in any zone with traffic allowed
  kRefused,   // the pod's zone failed and connections were reset
  kDependencyFailed,  // a call to another service failed
  // A load balancer in front answered for a target: 502 (the target reset
  // the connection) or 504 (no connection within its connect timeout, or no
  // answer within its idle timeout). The caller sees a 5xx, as for kDependencyFailed.
  kGatewayError,
  // The caller's kernel gave up (ETIMEDOUT): its connection attempt got no
  // answer within its SYN retries (a dead balancer node, a dead target behind
  // a balancer that passes connections through, a new connection into a dead
  // zone), or its request on a kept-alive connection was never acknowledged
  // within tcp_retries2. The caller sees a timeout.
  kConnectTimeout,
  // The request's deadline passed before the service was done with it, and
  // the service honours deadlines (ServiceConfig::deadlines propagate): gRPC's
  // DEADLINE_EXCEEDED. The caller sees a timeout.
  kDeadlineExceeded,
};
const char* to_string(ServeOutcome outcome);

class JobOwner {
 public:
  virtual void on_served(std::uint64_t token, ServeOutcome outcome) = 0;
  // How long the caller's side of a request that nothing will ever
  // acknowledge (swallowed by a dead zone or a cut path) tries before its
  // connection gives up, and the service answers kConnectTimeout for it;
  // new_connection: the request was opening one. By default the Linux
  // kernel's: SYN retries (127 s) or tcp_retries2 (924.6 s)
  // (models/data/tcp_config.h). A caller's own shorter timeout ends it first.
  virtual Duration unacknowledged_give_up(std::uint64_t token, bool new_connection);
  // The Linux kernel's give-up, the default above.
  static Duration kernel_give_up(bool new_connection);

 protected:
  ~JobOwner() = default;
};

inline constexpr std::uint32_t kNoCallerZone = 0xFFFFFFFFu;

struct Job {
  JobOwner* owner = nullptr;
  std::uint64_t token = 0;
  SimTime arrived{};  // at the service
  // The caller's topology zone: the answer travels back there. kNoCallerZone
  // for callers outside the topology (no network delay).
  std::uint32_t caller_zone = kNoCallerZone;
  // Round trips to the chosen zone before the request itself is sent (a new
  // TCP connection: 1; with TLS 1.2: 3), each paying the network's delay.
  std::uint8_t setup_round_trips = 0;
  // A health check's probe, not a user's request: it still takes a worker,
  // but one lost in a dead zone is not counted as traffic sent there (what
  // the `switched` figure of a fault watches for).
  bool probe = false;
  // The operation asked for, an index into the service's operations (ServiceConfig::operation_index): 0 is
  // its default operation.
  std::uint16_t operation = 0;
  // When the caller gives up on it (its timeout, or the deadline it was
  // given, the earlier): a service that honours deadlines drops a queued job
  // past it and cancels one in service at it. kSimTimeMax: none.
  SimTime deadline = kSimTimeMax;
  // The caller's span when the request is traced (sim/span_recorder.h): the service's own span is its child.
  // 0: not traced.
  std::uint32_t trace_parent = 0;
};

// Jobs waiting for a worker, first in first out (models/service/ring_queue.h).
using JobQueue = RingQueue<Job>;

}  // namespace drsim
