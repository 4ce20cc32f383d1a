#pragma once
// The contract between a caller and a service: a Job names its owner and an
// opaque token, and the service reports back through the owner exactly once
// if it serves or refuses the job after accepting it. A black-holed job is
// never reported: its owner's timeout is what ends it, as in real life.
#include <cstdint>

#include "sim/time.h"

namespace drsim {

enum class ServeOutcome : std::uint8_t {
  kServed,
  kRejected,  // every candidate pod's queue was full
  kNoTarget,  // no pod is up in any zone with traffic allowed
  kRefused,   // the pod's zone failed and connections were reset
  kDependencyFailed,  // a call to another service failed
};
const char* to_string(ServeOutcome outcome);

class JobOwner {
 public:
  virtual void on_served(std::uint64_t token, ServeOutcome outcome) = 0;

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
};

}  // namespace drsim
