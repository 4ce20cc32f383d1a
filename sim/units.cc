#include "sim/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "sim/quote.h"

namespace drsim {

namespace {

// ---- the grammars ----------------------------------------------------------

// How a type's errors describe what was expected.
struct Grammar {
  std::string_view bare;    // for a number without a unit: "a duration with a unit, e.g. \"28ms\""
  std::string_view spaced;  // for text with spaces: "a duration without spaces, e.g. \"28ms\""
  std::string_view usage;   // for any other malformed text; the units list is appended
  std::span<const std::string_view> units;
};

// A unit of a floating-point quantity: value = number * 10^exp10 * mul / div.
struct FloatUnit {
  std::string_view suffix;
  int exp10;
  double mul;
  double div;
  bool canonical;  // format_* may choose it
};

// A unit of an exact integer quantity (durations in ns, sizes in bytes).
struct IntUnit {
  std::string_view suffix;
  std::uint64_t factor;
};

constexpr std::uint64_t kNsPerSecond = 1'000'000'000;
constexpr std::array<IntUnit, 8> kDurationUnits{{
    {"ns", 1},
    {"us", 1'000},
    {"µs", 1'000},
    {"ms", 1'000'000},
    {"s", kNsPerSecond},
    {"m", 60 * kNsPerSecond},
    {"h", 3600 * kNsPerSecond},
    {"d", 86400 * kNsPerSecond},
}};

// Canonical text is in bits: "10Gbps" rather than "1.25GB/s".
constexpr std::array<FloatUnit, 9> kBandwidthUnits{{
    {"bps", 0, 1, 1, true},
    {"kbps", 3, 1, 1, true},
    {"Mbps", 6, 1, 1, true},
    {"Gbps", 9, 1, 1, true},
    {"Tbps", 12, 1, 1, true},
    {"B/s", 0, 8, 1, false},
    {"kB/s", 3, 8, 1, false},
    {"MB/s", 6, 8, 1, false},
    {"GB/s", 9, 8, 1, false},
}};

constexpr std::array<FloatUnit, 6> kRateUnits{{
    {"rps", 0, 1, 1, true},
    {"rpm", 0, 1, 60, true},
    {"rph", 0, 1, 3600, true},
    {"/s", 0, 1, 1, false},
    {"/min", 0, 1, 60, false},
    {"/h", 0, 1, 3600, false},
}};

constexpr std::array<FloatUnit, 1> kRatioUnits{{{"%", -2, 1, 1, true}}};

constexpr std::array<IntUnit, 9> kByteSizeUnits{{
    {"B", 1},
    {"kB", 1'000},
    {"MB", 1'000'000},
    {"GB", 1'000'000'000},
    {"TB", 1'000'000'000'000},
    {"KiB", 1ull << 10},
    {"MiB", 1ull << 20},
    {"GiB", 1ull << 30},
    {"TiB", 1ull << 40},
}};

// Bare numbers are cores, as in Kubernetes manifests.
constexpr std::array<IntUnit, 2> kCpuUnits{{
    {"m", 1},
    {"", 1'000},
}};

// The accepted unit names, in table order: derived so that they cannot differ
// from what the parsers accept.
template <class Unit, std::size_t N>
constexpr std::array<std::string_view, N> suffixes_of(const std::array<Unit, N>& units) {
  std::array<std::string_view, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = units[i].suffix;
  return out;
}
constexpr auto kDurationUnitNames = suffixes_of(kDurationUnits);
constexpr auto kBandwidthUnitNames = suffixes_of(kBandwidthUnits);
constexpr auto kRateUnitNames = suffixes_of(kRateUnits);
constexpr auto kRatioUnitNames = suffixes_of(kRatioUnits);
constexpr auto kByteSizeUnitNames = suffixes_of(kByteSizeUnits);
constexpr auto kCpuUnitNames = suffixes_of(kCpuUnits);

constexpr Grammar kDurationGrammar{kDurationExpected, "a duration without spaces, e.g. \"28ms\"",
                                   "a duration such as \"250ms\" or \"1h30m\"", kDurationUnitNames};
constexpr Grammar kBandwidthGrammar{kBandwidthExpected,
                                    "a bandwidth without spaces, e.g. \"10Gbps\"",
                                    "a bandwidth such as \"10Gbps\" or \"125MB/s\"", kBandwidthUnitNames};
constexpr Grammar kRateGrammar{kRateExpected, "a rate without spaces, e.g. \"800rps\"",
                               "a rate such as \"800rps\" or \"1200/min\"", kRateUnitNames};
constexpr Grammar kRatioGrammar{kRatioExpected, "a percentage without spaces, e.g. \"10%\"",
                                "a percentage such as \"10%\" or \"0.5%\"", kRatioUnitNames};
constexpr Grammar kCpuGrammar{kCpuExpected, "a CPU quantity without spaces, e.g. \"500m\"",
                              "a CPU quantity such as \"500m\" or \"2\"", kCpuUnitNames};
constexpr Grammar kByteSizeGrammar{kByteSizeExpected, "a size without spaces, e.g. \"64MiB\"",
                                   "a size such as \"64MiB\" or \"1.5GB\"", kByteSizeUnitNames};

// ---- messages --------------------------------------------------------------


[[noreturn]] void fail(std::string_view expected, std::string_view text) {
  throw UnitError("expected " + std::string(expected) + ", got " + quote(text));
}

[[noreturn]] void fail_usage(const Grammar& g, std::string_view text) {
  std::string expected(g.usage);
  if (g.units.size() > 1) {
    expected += " (units: ";
    for (std::size_t i = 0; i < g.units.size(); ++i) {
      if (i > 0) expected += ", ";
      expected += g.units[i].empty() ? std::string_view("none") : g.units[i];  // a bare number (CPU cores)
    }
    expected += ")";
  }
  fail(expected, text);
}

// Spaces inside a quantity ("10 ms") are refused rather than guessed around:
// the YAML value then reads the same to a human and to drsim.
void reject_spaces(const Grammar& g, std::string_view text) {
  if (text.find_first_of(" \t\r\n") != std::string_view::npos) fail(g.spaced, text);
}

// ---- lexing ----------------------------------------------------------------

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// <digits>[.<digits>]: a decimal number without sign or exponent.
struct Number {
  std::string_view int_digits;
  std::string_view frac_digits;
};

// Reads a number at pos; false when there is none (a fraction needs digits on
// both sides of the point: ".5" and "5." are refused).
bool read_number(std::string_view text, std::size_t& pos, Number& out) {
  const std::size_t start = pos;
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  if (pos == start) return false;
  out.int_digits = text.substr(start, pos - start);
  out.frac_digits = {};
  if (pos < text.size() && text[pos] == '.') {
    const std::size_t frac_start = ++pos;
    while (pos < text.size() && is_digit(text[pos])) ++pos;
    if (pos == frac_start) return false;
    out.frac_digits = text.substr(frac_start, pos - frac_start);
  }
  return true;
}

// Reads an optional sign; returns true for '-'.
bool read_sign(std::string_view text, std::size_t& pos) {
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) return text[pos++] == '-';
  return false;
}

// ---- exact decimal arithmetic -----------------------------------------------

enum class Exactness { kExact, kFractional, kOverflow };

// number * factor as an exact integer; kFractional when it is not one.
Exactness scale_exact(const Number& n, std::uint64_t factor, std::uint64_t& out) {
  std::string_view int_digits = n.int_digits;
  while (int_digits.size() > 1 && int_digits.front() == '0') int_digits.remove_prefix(1);
  std::uint64_t whole = 0;
  for (char c : int_digits) {
    if (__builtin_mul_overflow(whole, 10u, &whole) || __builtin_add_overflow(whole, unsigned(c - '0'), &whole)) {
      return Exactness::kOverflow;
    }
  }
  if (__builtin_mul_overflow(whole, factor, &out)) return Exactness::kOverflow;

  std::string_view frac_digits = n.frac_digits;
  while (!frac_digits.empty() && frac_digits.back() == '0') frac_digits.remove_suffix(1);
  if (frac_digits.empty()) return Exactness::kExact;
  // frac / 10^len * factor is whole only if 10^len / gcd(10^len, factor)
  // divides frac; 19 digits keep 10^len within 64 bits, and no factor here
  // makes a longer fraction whole except absurd spellings of a few bytes.
  if (frac_digits.size() > 19) return Exactness::kFractional;
  std::uint64_t frac = 0;
  std::uint64_t scale = 1;
  for (char c : frac_digits) {
    frac = frac * 10 + unsigned(c - '0');
    scale *= 10;
  }
  std::uint64_t a = scale;
  std::uint64_t b = factor;
  while (b != 0) {
    const std::uint64_t t = a % b;
    a = b;
    b = t;
  }
  const std::uint64_t denominator = scale / a;
  if (frac % denominator != 0) return Exactness::kFractional;
  // (frac / denominator) * (factor / gcd) < factor: cannot overflow.
  if (__builtin_add_overflow(out, (frac / denominator) * (factor / a), &out)) return Exactness::kOverflow;
  return Exactness::kExact;
}

// value / factor as exact decimal text ("1.5"); always terminates because
// every factor here is a product of 2s and 5s.
std::string exact_decimal(std::uint64_t value, std::uint64_t factor) {
  std::string out = std::to_string(value / factor);
  std::uint64_t rem = value % factor;
  if (rem != 0) out += '.';
  while (rem != 0) {
    rem *= 10;  // rem < factor <= 2^47, so this stays within 64 bits
    out += char('0' + rem / factor);
    rem %= factor;
  }
  return out;
}

std::uint64_t magnitude(std::int64_t v) {
  // Unsigned arithmetic, so that INT64_MIN is safe.
  return v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

// Applies a sign to a magnitude; false when it does not fit in int64.
bool to_signed(std::uint64_t mag, bool negative, std::int64_t& out) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (mag > kMax + (negative ? 1 : 0)) return false;
  out = negative ? static_cast<std::int64_t>(0 - mag) : static_cast<std::int64_t>(mag);
  return true;
}

template <std::size_t N>
const IntUnit* find_unit(const std::array<IntUnit, N>& units, std::string_view suffix) {
  for (const IntUnit& u : units) {
    if (u.suffix == suffix) return &u;
  }
  return nullptr;
}

// ---- floating-point quantities ----------------------------------------------

template <std::size_t N>
double parse_float_quantity(std::string_view text, const Grammar& g, const std::array<FloatUnit, N>& units) {
  reject_spaces(g, text);
  std::size_t pos = 0;
  const bool negative = read_sign(text, pos);
  Number n;
  if (!read_number(text, pos, n)) fail_usage(g, text);
  const std::string_view suffix = text.substr(pos);
  if (suffix.empty()) fail(g.bare, text);
  const FloatUnit* unit = nullptr;
  for (const FloatUnit& u : units) {
    if (u.suffix == suffix) unit = &u;
  }
  if (unit == nullptr) fail_usage(g, text);

  // The power of ten goes into the text so that "0.1Gbps" is the double
  // nearest to 1e8, not 0.1 * 1e9 with two roundings.
  std::string decimal(n.int_digits);
  if (!n.frac_digits.empty()) decimal.append(".").append(n.frac_digits);
  decimal += "e" + std::to_string(unit->exp10);
  double value = 0;
  const auto [end, ec] = std::from_chars(decimal.data(), decimal.data() + decimal.size(), value);
  if (ec != std::errc{} || end != decimal.data() + decimal.size()) {
    fail(std::string(g.usage) + " within the range of a double", text);
  }
  value = value * unit->mul / unit->div;
  if (!std::isfinite(value)) fail(std::string(g.usage) + " within the range of a double", text);
  return negative ? -value : value;
}

// A finite double as digits * 10^exponent, from its shortest round-trip text.
struct Decimal {
  bool negative = false;
  std::string digits;  // no leading zeros unless the value is 0
  int exponent = 0;
};

Decimal shortest_decimal(double v) {
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string_view text(buf, static_cast<std::size_t>(result.ptr - buf));  // "-1.25e+09"
  Decimal d;
  std::size_t pos = 0;
  if (text[pos] == '-') {
    d.negative = true;
    ++pos;
  }
  const std::size_t e = text.find('e');
  int fraction_digits = 0;
  bool after_point = false;
  for (; pos < e; ++pos) {
    if (text[pos] == '.') {
      after_point = true;
      continue;
    }
    d.digits += text[pos];
    if (after_point) ++fraction_digits;
  }
  int exp = 0;
  std::string_view exp_text = text.substr(e + 1);
  if (exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp);
  d.exponent = exp - fraction_digits;
  while (d.digits.size() > 1 && d.digits.back() == '0') {
    d.digits.pop_back();
    ++d.exponent;
  }
  return d;
}

// digits * 10^(exponent + shift) in plain notation, without the sign.
std::string plain_decimal(const Decimal& d, int shift) {
  const int exp = d.exponent + shift;
  if (exp >= 0) return d.digits == "0" ? "0" : d.digits + std::string(static_cast<std::size_t>(exp), '0');
  const auto frac_len = static_cast<std::size_t>(-exp);
  if (d.digits.size() > frac_len) {
    return d.digits.substr(0, d.digits.size() - frac_len) + "." + d.digits.substr(d.digits.size() - frac_len);
  }
  return "0." + std::string(frac_len - d.digits.size(), '0') + d.digits;
}

// The shortest text among the canonical units that parses back to exactly v;
// on a tie the larger unit wins ("1.25Gbps", not "1250Mbps").
template <std::size_t N, class Parse>
std::string format_float_quantity(double v, const std::array<FloatUnit, N>& units, Parse parse) {
  if (!std::isfinite(v)) {
    // Not representable in scenario text; only reachable from C++.
    return (std::isnan(v) ? "nan" : v < 0 ? "-inf" : "inf") + std::string(units[0].suffix);
  }
  if (v == 0) return "0" + std::string(units[0].suffix);
  std::string best;
  double best_scale = 0;
  for (const FloatUnit& u : units) {
    const double number = v * u.div / u.mul;
    if (!u.canonical || !std::isfinite(number)) continue;
    const Decimal d = shortest_decimal(number);
    std::string text = (d.negative ? "-" : "") + plain_decimal(d, -u.exp10) + std::string(u.suffix);
    if (parse(text) != v) continue;
    const double scale = std::pow(10.0, u.exp10) * u.mul / u.div;
    if (best.empty() || text.size() < best.size() || (text.size() == best.size() && scale > best_scale)) {
      best = std::move(text);
      best_scale = scale;
    }
  }
  return best;
}

}  // namespace

// ---- durations ---------------------------------------------------------------

Duration parse_duration(std::string_view text) {
  const Grammar& g = kDurationGrammar;
  reject_spaces(g, text);
  std::size_t pos = 0;
  const bool negative = read_sign(text, pos);
  if (pos == text.size()) fail(g.bare, text);
  std::uint64_t total = 0;
  bool overflow = false;
  for (bool first = true; pos < text.size(); first = false) {
    Number n;
    if (!read_number(text, pos, n)) fail_usage(g, text);
    const std::size_t unit_start = pos;
    while (pos < text.size() && !is_digit(text[pos]) && text[pos] != '.') ++pos;
    const std::string_view suffix = text.substr(unit_start, pos - unit_start);
    if (suffix.empty()) {
      // "30" alone is the common mistake; "1h30" is a malformed compound.
      if (first && unit_start == text.size()) fail(g.bare, text);
      fail_usage(g, text);
    }
    const IntUnit* unit = find_unit(kDurationUnits, suffix);
    if (unit == nullptr) fail_usage(g, text);
    std::uint64_t ns = 0;
    switch (scale_exact(n, unit->factor, ns)) {
      case Exactness::kExact:
        break;
      case Exactness::kFractional:
        fail("a duration in whole nanoseconds", text);
      case Exactness::kOverflow:
        overflow = true;
        break;
    }
    if (overflow || __builtin_add_overflow(total, ns, &total)) {
      overflow = true;
      break;
    }
  }
  std::int64_t count = 0;
  if (overflow || !to_signed(total, negative, count)) {
    fail("a duration between " + format_duration(Duration::min()) + " and " + format_duration(Duration::max()), text);
  }
  return Duration{count};
}

std::string format_duration(Duration d) {
  const std::int64_t ns = d.count();
  if (ns == 0) return "0s";
  std::string out = ns < 0 ? "-" : "";
  std::uint64_t rest = magnitude(ns);
  if (rest < kNsPerSecond) {
    // Below a second: the largest unit that keeps a whole part ("1.5ms", "250us").
    const std::uint64_t factor = rest >= 1'000'000 ? 1'000'000 : rest >= 1'000 ? 1'000 : 1;
    const std::string_view suffix = factor == 1'000'000 ? "ms" : factor == 1'000 ? "us" : "ns";
    return out + exact_decimal(rest, factor) + std::string(suffix);
  }
  // Days, hours and minutes as whole components, then the seconds exactly:
  // "1d2h", "1h30m", "1m30.5s".
  for (const auto& [suffix, factor] :
       {std::pair{"d", 86400 * kNsPerSecond}, std::pair{"h", 3600 * kNsPerSecond}, std::pair{"m", 60 * kNsPerSecond}}) {
    if (rest >= factor) {
      out += std::to_string(rest / factor) + suffix;
      rest %= factor;
    }
  }
  if (rest != 0) out += exact_decimal(rest, kNsPerSecond) + "s";
  return out;
}

// ---- bandwidth, rate, ratio ----------------------------------------------------

Bandwidth parse_bandwidth(std::string_view text) {
  return Bandwidth{parse_float_quantity(text, kBandwidthGrammar, kBandwidthUnits)};
}

Rate parse_rate(std::string_view text) { return Rate{parse_float_quantity(text, kRateGrammar, kRateUnits)}; }

Ratio parse_ratio(std::string_view text) { return Ratio{parse_float_quantity(text, kRatioGrammar, kRatioUnits)}; }

std::string format_bandwidth(Bandwidth b) {
  return format_float_quantity(b.bits_per_second, kBandwidthUnits,
                               [](std::string_view t) { return parse_bandwidth(t).bits_per_second; });
}

std::string format_rate(Rate r) {
  return format_float_quantity(r.per_second, kRateUnits, [](std::string_view t) { return parse_rate(t).per_second; });
}

std::string format_ratio(Ratio r) {
  return format_float_quantity(r.value, kRatioUnits, [](std::string_view t) { return parse_ratio(t).value; });
}

// ---- sizes -------------------------------------------------------------------

ByteSize parse_byte_size(std::string_view text) {
  const Grammar& g = kByteSizeGrammar;
  reject_spaces(g, text);
  std::size_t pos = 0;
  const bool negative = read_sign(text, pos);
  Number n;
  if (!read_number(text, pos, n)) fail_usage(g, text);
  const std::string_view suffix = text.substr(pos);
  if (suffix.empty()) fail(g.bare, text);
  const IntUnit* unit = find_unit(kByteSizeUnits, suffix);
  if (unit == nullptr) fail_usage(g, text);
  std::uint64_t bytes = 0;
  std::int64_t count = 0;
  switch (scale_exact(n, unit->factor, bytes)) {
    case Exactness::kExact:
      break;
    case Exactness::kFractional:
      fail("a whole number of bytes", text);
    case Exactness::kOverflow:
      bytes = std::numeric_limits<std::uint64_t>::max();
      break;
  }
  if (!to_signed(bytes, negative, count)) {
    fail("a size between " + format_byte_size(ByteSize{std::numeric_limits<std::int64_t>::min()}) + " and " +
             format_byte_size(ByteSize{std::numeric_limits<std::int64_t>::max()}),
         text);
  }
  return ByteSize{count};
}

// The shortest exact text; on a tie the larger unit wins ("1KiB", "1kB").
std::string format_byte_size(ByteSize s) {
  const std::uint64_t mag = magnitude(s.bytes);
  std::string best;
  std::uint64_t best_factor = 0;
  for (const IntUnit& u : kByteSizeUnits) {
    std::string text = exact_decimal(mag, u.factor) + std::string(u.suffix);
    if (best.empty() || text.size() < best.size() || (text.size() == best.size() && u.factor > best_factor)) {
      best = std::move(text);
      best_factor = u.factor;
    }
  }
  return (s.bytes < 0 ? "-" : "") + best;
}

// ---- CPU -----------------------------------------------------------------------

CpuQuantity parse_cpu(std::string_view text) {
  const Grammar& g = kCpuGrammar;
  reject_spaces(g, text);
  std::size_t pos = 0;
  const bool negative = read_sign(text, pos);
  Number n;
  if (!read_number(text, pos, n)) fail_usage(g, text);
  const IntUnit* unit = find_unit(kCpuUnits, text.substr(pos));
  if (unit == nullptr) fail_usage(g, text);
  std::uint64_t milli = 0;
  std::int64_t count = 0;
  switch (scale_exact(n, unit->factor, milli)) {
    case Exactness::kExact:
      break;
    case Exactness::kFractional:
      fail("a whole number of millicores (Kubernetes' finest CPU unit)", text);
    case Exactness::kOverflow:
      milli = std::numeric_limits<std::uint64_t>::max();
      break;
  }
  if (!to_signed(milli, negative, count)) fail("a CPU quantity that fits in 64 bits of millicores", text);
  return CpuQuantity{count};
}

std::string format_cpu(CpuQuantity c) {
  const std::uint64_t mag = magnitude(c.millicores);
  const std::string sign = c.millicores < 0 ? "-" : "";
  if (mag % 1000 == 0) return sign + std::to_string(mag / 1000);
  return sign + std::to_string(mag) + "m";
}

// ---- unit lists ----------------------------------------------------------------

std::span<const std::string_view> duration_units() { return kDurationUnitNames; }
std::span<const std::string_view> bandwidth_units() { return kBandwidthUnitNames; }
std::span<const std::string_view> rate_units() { return kRateUnitNames; }
std::span<const std::string_view> ratio_units() { return kRatioUnitNames; }
std::span<const std::string_view> byte_size_units() { return kByteSizeUnitNames; }
std::span<const std::string_view> cpu_units() { return kCpuUnitNames; }

}  // namespace drsim
