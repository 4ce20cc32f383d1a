#pragma once
// Random streams. One run seed; each component draws from its own stream,
// derived from (seed, component name), so adding a component never changes
// what the others draw. The generator (xoshiro256**) and every distribution
// are implemented here rather than taken from <random>, whose distributions
// differ between standard libraries: same seed, same bytes, on any platform.
#include <cstdint>
#include <string_view>

namespace drsim {

// FNV-1a, 64 bit: stable across platforms, unlike std::hash.
constexpr std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class RngStream {
 public:
  RngStream(std::uint64_t seed, std::string_view stream_name);

  // Inline, with uniform(): every draw of every distribution goes through them.
  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1]: safe to take the logarithm of.
  double uniform_open0() { return 1.0 - uniform(); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n), without modulo bias. Throws SimulationError if n == 0.
  std::uint64_t below(std::uint64_t n);
  bool bernoulli(double p) { return uniform() < p; }
  // Exponential with the given mean (> 0).
  double exponential(double mean);
  double standard_normal();
  double normal(double mean, double stddev) { return mean + stddev * standard_normal(); }
  // Log-normal whose logarithm has mean mu and standard deviation sigma.
  double lognormal(double mu, double sigma);

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t s_[4];
  double spare_normal_ = 0;
  bool has_spare_normal_ = false;
};

}  // namespace drsim
