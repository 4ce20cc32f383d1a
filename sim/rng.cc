#include "sim/rng.h"

#include <cmath>

#include "sim/errors.h"

namespace drsim {

RngStream::RngStream(std::uint64_t seed, std::string_view stream_name) {
  // Mix the seed and the name so that nearby seeds and similar names give
  // unrelated streams; splitmix64 is the seeding routine xoshiro's authors advise.
  std::uint64_t state = seed ^ rotl(stable_hash(stream_name), 17);
  state = splitmix64(state) ^ stable_hash(stream_name);
  for (auto& word : s_) word = splitmix64(state);
}

std::uint64_t RngStream::below(std::uint64_t n) {
  if (n == 0) throw SimulationError("RngStream::below(0): the range is empty");
  // Lemire's nearly-divisionless method.
  __extension__ using U128 = unsigned __int128;
  U128 m = static_cast<U128>(next_u64()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<U128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

double RngStream::exponential(double mean) { return -mean * std::log(uniform_open0()); }

double RngStream::standard_normal() {
  // Marsaglia's polar method; the second value is kept for the next call.
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return u * factor;
}

double RngStream::lognormal(double mu, double sigma) { return std::exp(mu + sigma * standard_normal()); }

}  // namespace drsim
