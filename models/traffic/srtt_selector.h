#pragma once
// How a recursive resolver chooses among a zone's authoritative name servers
// (here: one per DNS provider), after BIND's smoothed-RTT selection, as
// described by Yu, Wessels, Larson and Zhang, "Authority Server Selection of
// DNS Caching Resolvers" (2012), and summarised in NS1's "SRTT and Recursive
// DNS Resolvers" (2017); BIND 8's constants ALPHA 0.7, GAMMA 0.98 are quoted
// on bind-users (2001-08, "Stupid question"). Taken from there, not from code:
//
//   start    every server gets a small random SRTT (1-32 ms), so that the
//            first choice among equals is random
//   choose   the server with the lowest SRTT is asked first
//   answer   its SRTT becomes gain x rtt + (1 - gain) x SRTT (BIND: 0.3 of
//            the new sample, 0.7 of the old)
//   timeout  its SRTT grows by the penalty (200 ms), capped (1 s): BIND 9
//            adds a fixed penalty, BIND 8 multiplied by 1.2
//   others   the servers not asked have their SRTT multiplied by the decay
//            (0.98), so a penalised server is tried again after enough queries
//            (ln(rtt / SRTT) / ln(0.98) of them: ~100 queries from 216 ms to 30 ms)
//
// Pure logic: no events. DnsCaches asks it which server to query and tells
// it what happened.
#include <cstddef>
#include <vector>

#include "sim/rng.h"
#include "sim/time.h"

namespace drsim {

struct SrttParameters {
  double gain = 0.3;
  Duration timeout_penalty = std::chrono::milliseconds(200);
  Duration max_srtt = std::chrono::seconds(1);
  double decay = 0.98;
};

class SrttSelector {
 public:
  // servers: how many; the initial SRTTs are drawn from rng.
  SrttSelector(std::size_t servers, SrttParameters parameters, RngStream& rng);

  // The servers in the order a resolution tries them: lowest SRTT first (ties: lower index).
  std::vector<std::size_t> order() const;
  // One query's outcome. Every other server's SRTT decays.
  void answered(std::size_t server, Duration rtt);
  void timed_out(std::size_t server);
  double srtt_s(std::size_t server) const { return srtt_s_[server]; }
  std::size_t size() const { return srtt_s_.size(); }

 private:
  void decay_others(std::size_t server);

  SrttParameters parameters_;
  std::vector<double> srtt_s_;  // seconds: a smoothed estimate, not a simulated time
};

}  // namespace drsim
