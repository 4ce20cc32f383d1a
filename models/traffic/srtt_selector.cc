#include "models/traffic/srtt_selector.h"

#include <algorithm>
#include <numeric>

namespace drsim {

SrttSelector::SrttSelector(std::size_t servers, SrttParameters parameters, RngStream& rng)
    : parameters_(parameters) {
  srtt_s_.reserve(servers);
  // BIND starts every server at a small random SRTT (1-32 ms per NS1's summary).
  for (std::size_t s = 0; s < servers; ++s) srtt_s_.push_back(rng.uniform(0.001, 0.032));
}

std::vector<std::size_t> SrttSelector::order() const {
  std::vector<std::size_t> out(srtt_s_.size());
  std::iota(out.begin(), out.end(), std::size_t{0});
  std::stable_sort(out.begin(), out.end(), [this](std::size_t a, std::size_t b) { return srtt_s_[a] < srtt_s_[b]; });
  return out;
}

void SrttSelector::decay_others(std::size_t server) {
  for (std::size_t s = 0; s < srtt_s_.size(); ++s) {
    if (s != server) srtt_s_[s] *= parameters_.decay;
  }
}

void SrttSelector::answered(std::size_t server, Duration rtt) {
  srtt_s_[server] = parameters_.gain * to_seconds(rtt) + (1 - parameters_.gain) * srtt_s_[server];
  decay_others(server);
}

void SrttSelector::timed_out(std::size_t server) {
  srtt_s_[server] = std::min(srtt_s_[server] + to_seconds(parameters_.timeout_penalty), to_seconds(parameters_.max_srtt));
  decay_others(server);
}

}  // namespace drsim
