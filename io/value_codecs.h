#pragma once
// How each leaf type of a field list is read from and written to scenario
// text, and how messages and generated docs name it. The decoder, the YAML
// writer, the docs/JSON Schema generators and the front ends (cli flags,
// the Python bindings' config values) all go through these, so a type's
// spelling is defined once: part of io/'s interface, not internal to it.
//
// A codec has:
//   kName      the type in docs and in flag messages ("duration": "expected a positive duration")
//   kExpected  what a message expects ("a duration with a unit, e.g. \"28ms\"")
//   kJsonType  the JSON Schema type
//   kQuotable  whether a quoted YAML scalar is accepted ('"7"' is a string in YAML,
//              so it is refused where an integer belongs)
//   parse(text) throws std::invalid_argument with a complete "expected ..., got ..." message
//   format(value) canonical text that parse() reads back to the same value
// and, for quantities, sign(value) for the kPositive / kNonNegative flags and
// units() / kExample / kCompound for the docs.
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/quote.h"
#include "sim/time.h"
#include "sim/units.h"

namespace drsim {

template <class T>
struct ValueCodec;

template <>
struct ValueCodec<std::string> {
  static constexpr std::string_view kName = "string";
  static constexpr std::string_view kExpected = "a string";
  static constexpr std::string_view kJsonType = "string";
  static constexpr bool kQuotable = true;
  static std::string parse(std::string_view text) { return std::string(text); }
  static std::string format(const std::string& value) { return value; }
};

template <>
struct ValueCodec<bool> {
  static constexpr std::string_view kName = "boolean";
  static constexpr std::string_view kExpected = "true or false";
  static constexpr std::string_view kJsonType = "boolean";
  static constexpr bool kQuotable = false;
  // Only YAML 1.2's spelling: "yes", "on" and "True" mean true in YAML 1.1,
  // and a file should not read differently depending on the parser.
  static bool parse(std::string_view text) {
    if (text == "true") return true;
    if (text == "false") return false;
    throw std::invalid_argument("expected true or false, got " + quote(text));
  }
  static std::string format(bool value) { return value ? "true" : "false"; }
};

template <class T>
requires std::integral<T> &&(!std::same_as<T, bool>)struct ValueCodec<T> {
  static constexpr std::string_view kName = std::is_signed_v<T> ? "integer" : "unsigned integer";
  static constexpr std::string_view kExpected = std::is_signed_v<T> ? "an integer" : "an unsigned integer";
  static constexpr std::string_view kJsonType = "integer";
  static constexpr bool kQuotable = false;
  // Decimal digits only: no "1.0", "1e3", "0x10", "+1" or "1_000".
  static T parse(std::string_view text) {
    T value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    const bool digits_only = !text.empty() && text.find_first_not_of("-0123456789") == std::string_view::npos;
    if (ec == std::errc::result_out_of_range && digits_only) {
      throw std::invalid_argument("expected " + std::string(kExpected) + range() + ", got " + quote(text));
    }
    if (ec != std::errc{} || end != text.data() + text.size()) {
      throw std::invalid_argument("expected " + std::string(kExpected) + ", got " + quote(text));
    }
    return value;
  }
  static std::string format(T value) { return std::to_string(value); }
  static int sign(T value) { return value < 0 ? -1 : value > 0 ? 1 : 0; }

 private:
  static std::string range() {
    if constexpr (std::is_signed_v<T>) {
      return " between " + std::to_string(std::numeric_limits<T>::min()) + " and " +
             std::to_string(std::numeric_limits<T>::max());
    } else {
      return " of at most " + std::to_string(std::numeric_limits<T>::max());
    }
  }
};

template <>
struct ValueCodec<double> {
  static constexpr std::string_view kName = "number";
  static constexpr std::string_view kExpected = "a number";
  static constexpr std::string_view kJsonType = "number";
  static constexpr bool kQuotable = false;
  static double parse(std::string_view text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
      throw std::invalid_argument("expected a finite number, got " + quote(text));
    }
    return value;
  }
  static std::string format(double value) {
    char buf[32];
    const auto result = std::to_chars(buf, buf + sizeof buf, value);
    return std::string(buf, result.ptr);
  }
  static int sign(double value) { return value < 0 ? -1 : value > 0 ? 1 : 0; }
};

// The quantities of sim/units.h: the parsers there write the messages.
template <class T, auto Parse, auto Format, auto Units>
struct QuantityCodec {
  static constexpr std::string_view kJsonType = "string";
  static constexpr bool kQuotable = true;
  static T parse(std::string_view text) { return Parse(text); }
  static std::string format(T value) { return Format(value); }
  static int sign(T value) { return value < T{} ? -1 : T{} < value ? 1 : 0; }
  static std::span<const std::string_view> units() { return Units(); }
};

// The longest time a scenario may name: any one duration, the horizon, an
// action's start and end. 20000 days (about 55 years) is far beyond any drill,
// and it keeps every "now + duration" a model computes (at most twice this)
// inside the event queue's range (2^62 ns, about 53375 days): a value the
// loader accepts can never overflow the clock later.
inline constexpr Duration kLongestScenarioTime = std::chrono::hours(24 * 20000);

// Scenario durations stay within kLongestScenarioTime, so that no sum a model
// forms from them can leave the clock's range.
inline Duration parse_scenario_duration(std::string_view text) {
  const Duration d = parse_duration(text);
  if (d > kLongestScenarioTime || d < -kLongestScenarioTime) {
    throw std::invalid_argument("expected a duration of at most " + format_duration(kLongestScenarioTime) +
                                " (about 55 years), got " + quote(text));
  }
  return d;
}

template <>
struct ValueCodec<Duration> : QuantityCodec<Duration, parse_scenario_duration, format_duration, duration_units> {
  static constexpr std::string_view kName = "duration";
  static constexpr std::string_view kExpected = kDurationExpected;
  static constexpr std::string_view kExample = kDurationExample;
  static constexpr bool kCompound = true;  // "1h30m"
};

template <>
struct ValueCodec<Bandwidth> : QuantityCodec<Bandwidth, parse_bandwidth, format_bandwidth, bandwidth_units> {
  static constexpr std::string_view kName = "bandwidth";
  static constexpr std::string_view kExpected = kBandwidthExpected;
  static constexpr std::string_view kExample = kBandwidthExample;
  static constexpr bool kCompound = false;
};

template <>
struct ValueCodec<Rate> : QuantityCodec<Rate, parse_rate, format_rate, rate_units> {
  static constexpr std::string_view kName = "rate";
  static constexpr std::string_view kExpected = kRateExpected;
  static constexpr std::string_view kExample = kRateExample;
  static constexpr bool kCompound = false;
};

template <>
struct ValueCodec<Ratio> : QuantityCodec<Ratio, parse_ratio, format_ratio, ratio_units> {
  static constexpr std::string_view kName = "percentage";
  static constexpr std::string_view kExpected = kRatioExpected;
  static constexpr std::string_view kExample = kRatioExample;
  static constexpr bool kCompound = false;
  // kAtMostOne: "100%" is the largest ratio.
  static bool above_one(Ratio r) { return r.value > 1.0; }
};

template <>
struct ValueCodec<ByteSize> : QuantityCodec<ByteSize, parse_byte_size, format_byte_size, byte_size_units> {
  static constexpr std::string_view kName = "size";
  static constexpr std::string_view kExpected = kByteSizeExpected;
  static constexpr std::string_view kExample = kByteSizeExample;
  static constexpr bool kCompound = false;
};

template <>
struct ValueCodec<CpuQuantity> : QuantityCodec<CpuQuantity, parse_cpu, format_cpu, cpu_units> {
  static constexpr std::string_view kName = "cpu";
  static constexpr std::string_view kExpected = kCpuExpected;
  static constexpr std::string_view kExample = kCpuExample;
  static constexpr bool kCompound = false;
};

// A type whose values are one YAML scalar.
template <class T>
concept Leaf = requires(std::string_view text) {
  { ValueCodec<T>::parse(text) } -> std::convertible_to<T>;
};

// A leaf whose values have a sign, so kPositive / kNonNegative apply.
template <class T>
concept Signed = Leaf<T> && requires(T v) {
  ValueCodec<T>::sign(v);
};

}  // namespace drsim
