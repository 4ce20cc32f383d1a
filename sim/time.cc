#include "sim/time.h"

#include <cstdio>
#include <cstdlib>

namespace drsim {

std::string format_clock(SimTime t) {
  const std::int64_t ns = to_ns(t);
  const char* sign = ns < 0 ? "-" : "";
  // The magnitude is taken in unsigned arithmetic so that SimTime::min() is safe.
  const std::uint64_t mag = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  const std::uint64_t total_ms = mag / 1'000'000;
  const std::uint64_t ms = total_ms % 1000;
  const std::uint64_t s = (total_ms / 1000) % 60;
  const std::uint64_t m = (total_ms / 60'000) % 60;
  const std::uint64_t h = total_ms / 3'600'000;
  char buf[64];
  if (ms != 0) {
    std::snprintf(buf, sizeof buf, "%s%02llu:%02llu:%02llu.%03llu", sign, static_cast<unsigned long long>(h),
                  static_cast<unsigned long long>(m), static_cast<unsigned long long>(s),
                  static_cast<unsigned long long>(ms));
  } else {
    std::snprintf(buf, sizeof buf, "%s%02llu:%02llu:%02llu", sign, static_cast<unsigned long long>(h),
                  static_cast<unsigned long long>(m), static_cast<unsigned long long>(s));
  }
  return buf;
}

std::string format_seconds(Duration d) {
  std::int64_t ns = d.count();
  std::string out;
  // The magnitude is taken in unsigned arithmetic so that Duration::min() is safe.
  std::uint64_t mag = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  if (ns < 0) out.push_back('-');
  out += std::to_string(mag / 1'000'000'000ULL);
  std::uint64_t frac = mag % 1'000'000'000ULL;
  if (frac != 0) {
    char digits[10];
    std::snprintf(digits, sizeof digits, "%09llu", static_cast<unsigned long long>(frac));
    std::string f(digits);
    while (!f.empty() && f.back() == '0') f.pop_back();
    out.push_back('.');
    out += f;
  }
  return out;
}

}  // namespace drsim
