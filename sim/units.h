#pragma once
// Quantities with units. In scenario text every quantity carries its unit
// ("28ms", "10Gbps", "800rps", "10%", "64MiB"); a bare number where a unit is
// needed is an error (CPU, counted in cores as Kubernetes does, is the exception). These types keep the unit's meaning in C++ too.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/time.h"

namespace drsim {

struct Bandwidth {
  double bits_per_second = 0;
  friend constexpr bool operator==(Bandwidth, Bandwidth) = default;
  friend constexpr auto operator<=>(Bandwidth, Bandwidth) = default;
};
struct Rate {
  double per_second = 0;
  friend constexpr bool operator==(Rate, Rate) = default;
  friend constexpr auto operator<=>(Rate, Rate) = default;
};
// A fraction written as a percentage: "10%" is 0.1.
struct Ratio {
  double value = 0;
  friend constexpr bool operator==(Ratio, Ratio) = default;
  friend constexpr auto operator<=>(Ratio, Ratio) = default;
};
struct ByteSize {
  std::int64_t bytes = 0;
  friend constexpr bool operator==(ByteSize, ByteSize) = default;
  friend constexpr auto operator<=>(ByteSize, ByteSize) = default;
};
// CPU as Kubernetes counts it: in millicores, exact ("500m" is half a core).
struct CpuQuantity {
  std::int64_t millicores = 0;
  constexpr double cores() const { return static_cast<double>(millicores) / 1000.0; }
  friend constexpr bool operator==(CpuQuantity, CpuQuantity) = default;
  friend constexpr auto operator<=>(CpuQuantity, CpuQuantity) = default;
};

// What an error expects where each quantity belongs, and a typical value:
// one spelling shared by the parsers' messages and the generated docs.
inline constexpr std::string_view kDurationExpected = "a duration with a unit, e.g. \"28ms\"";
inline constexpr std::string_view kDurationExample = "28ms";
inline constexpr std::string_view kBandwidthExpected = "a bandwidth with a unit, e.g. \"10Gbps\"";
inline constexpr std::string_view kBandwidthExample = "10Gbps";
inline constexpr std::string_view kRateExpected = "a rate with a unit, e.g. \"800rps\"";
inline constexpr std::string_view kRateExample = "800rps";
inline constexpr std::string_view kRatioExpected = "a percentage, e.g. \"10%\"";
inline constexpr std::string_view kRatioExample = "10%";
inline constexpr std::string_view kByteSizeExpected = "a size with a unit, e.g. \"64MiB\"";
inline constexpr std::string_view kByteSizeExample = "64MiB";
inline constexpr std::string_view kCpuExpected = "a CPU quantity, e.g. \"500m\" or \"2\"";
inline constexpr std::string_view kCpuExample = "500m";

// Thrown by the parsers with the "expected ..." half of a message; the
// scenario decoder adds file:line:col and the YAML path.
class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Durations: an optionally signed sequence of <number><unit> with units
// ns, us (or µs), ms, s, m, h, d: "250ms", "1.5s", "1h30m". Exact to the
// nanosecond (decimal arithmetic, no floating point); finer input is an error.
Duration parse_duration(std::string_view text);
// Bandwidth: <number><unit>, units bps, kbps, Mbps, Gbps, Tbps (decimal, bits)
// and B/s, kB/s, MB/s, GB/s (bytes): "10Gbps", "125MB/s".
Bandwidth parse_bandwidth(std::string_view text);
// Rate: <number><unit>, units rps (per second), rpm (per minute), rph (per hour),
// also "/s", "/min", "/h": "800rps", "1200/min".
Rate parse_rate(std::string_view text);
// Ratio: <number>%: "10%", "0.5%".
Ratio parse_ratio(std::string_view text);
// Sizes: <number><unit>, units B, kB, MB, GB, TB (decimal) and KiB, MiB, GiB, TiB.
ByteSize parse_byte_size(std::string_view text);
// CPU: <number>m (millicores) or a bare <number> of cores, as Kubernetes
// manifests write it ("500m", "2", "1.5"): the one quantity where a bare
// number is accepted, so that resources can be pasted from a manifest.
// Exact to the millicore; finer input is an error.
CpuQuantity parse_cpu(std::string_view text);

// Canonical text that parses back to the same value: "1h30m", "250ms", "10Gbps",
// "800rps", "10%", "64MiB". Used by the resolved-scenario writer.
std::string format_duration(Duration d);
std::string format_bandwidth(Bandwidth b);
std::string format_rate(Rate r);
std::string format_ratio(Ratio r);
std::string format_byte_size(ByteSize s);
std::string format_cpu(CpuQuantity c);  // "2" for whole cores, else "1500m"

// The unit suffixes each parser accepts, in the order the docs list them. The
// scenario reference and JSON Schema are generated from these, so they cannot
// drift from the parsers.
std::span<const std::string_view> duration_units();
std::span<const std::string_view> bandwidth_units();
std::span<const std::string_view> rate_units();
std::span<const std::string_view> ratio_units();
std::span<const std::string_view> byte_size_units();
std::span<const std::string_view> cpu_units();  // "m" and "" (cores)

}  // namespace drsim
