#include "sim/units.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace drsim {
namespace {

using namespace std::chrono_literals;

// The message a parser throws for text, or "" when it parses.
template <class Parse>
std::string error_of(Parse parse, std::string_view text) {
  try {
    parse(text);
  } catch (const UnitError& e) {
    return e.what();
  }
  return "";
}

std::string duration_error(std::string_view text) { return error_of(parse_duration, text); }

// ---- durations ------------------------------------------------------------------

TEST(ParseDuration, EveryUnit) {
  EXPECT_EQ(parse_duration("7ns"), 7ns);
  EXPECT_EQ(parse_duration("7us"), 7us);
  EXPECT_EQ(parse_duration("7µs"), 7us);
  EXPECT_EQ(parse_duration("7ms"), 7ms);
  EXPECT_EQ(parse_duration("7s"), 7s);
  EXPECT_EQ(parse_duration("7m"), 7min);
  EXPECT_EQ(parse_duration("7h"), 7h);
  EXPECT_EQ(parse_duration("7d"), 7 * 24h);
}

TEST(ParseDuration, DecimalsAreExact) {
  EXPECT_EQ(parse_duration("1.5s").count(), 1'500'000'000);
  EXPECT_EQ(parse_duration("0.000000001s").count(), 1);
  EXPECT_EQ(parse_duration("0.1s").count(), 100'000'000);  // no 0.1 binary rounding
  EXPECT_EQ(parse_duration("2.5us").count(), 2'500);
  EXPECT_EQ(parse_duration("1.0000000000000000000000s").count(), 1'000'000'000);  // trailing zeros are fine
  EXPECT_EQ(parse_duration("0.5d"), 12h);
  EXPECT_EQ(parse_duration("007s"), 7s);
}

TEST(ParseDuration, CompoundAndSigned) {
  EXPECT_EQ(parse_duration("1h30m"), 90min);
  EXPECT_EQ(parse_duration("1d2h3m4s5ms6us7ns"), 24h + 2h + 3min + 4s + 5ms + 6us + 7ns);
  EXPECT_EQ(parse_duration("1m1.5s"), 61500ms);
  EXPECT_EQ(parse_duration("-1h30m"), -90min);
  EXPECT_EQ(parse_duration("+250ms"), 250ms);
  EXPECT_EQ(parse_duration("0s"), 0s);
  EXPECT_EQ(parse_duration("-0s"), 0s);
}

TEST(ParseDuration, Limits) {
  EXPECT_EQ(parse_duration("9223372036854775807ns"), Duration::max());
  EXPECT_EQ(parse_duration("-9223372036854775808ns"), Duration::min());
  EXPECT_EQ(parse_duration("106751d23h47m16.854775807s"), Duration::max());
  const std::string range =
      "expected a duration between -106751d23h47m16.854775808s and 106751d23h47m16.854775807s, got ";
  EXPECT_EQ(duration_error("9223372036854775808ns"), range + "\"9223372036854775808ns\"");
  EXPECT_EQ(duration_error("106752d"), range + "\"106752d\"");
  EXPECT_EQ(duration_error("106751d23h47m16.854775808s"), range + "\"106751d23h47m16.854775808s\"");
  EXPECT_EQ(duration_error("99999999999999999999999999h"), range + "\"99999999999999999999999999h\"");
}

TEST(ParseDuration, BareNumberNamesTheMistake) {
  EXPECT_EQ(duration_error("30"), "expected a duration with a unit, e.g. \"28ms\", got \"30\"");
  EXPECT_EQ(duration_error("1.5"), "expected a duration with a unit, e.g. \"28ms\", got \"1.5\"");
  EXPECT_EQ(duration_error("-3"), "expected a duration with a unit, e.g. \"28ms\", got \"-3\"");
  EXPECT_EQ(duration_error(""), "expected a duration with a unit, e.g. \"28ms\", got \"\"");
  EXPECT_EQ(duration_error("-"), "expected a duration with a unit, e.g. \"28ms\", got \"-\"");
}

TEST(ParseDuration, MalformedTextListsTheUnits) {
  const std::string usage =
      "expected a duration such as \"250ms\" or \"1h30m\" (units: ns, us, µs, ms, s, m, h, d), got ";
  for (const char* text : {"30sec", "30S", "1h30", "ms", "inf", "nan", "infs", "1e3s", ".5s", "5.s", "1..5s", "1h-30m",
                           "--1s", "0x10s", "1,5s", "1_000ms"}) {
    EXPECT_EQ(duration_error(text), usage + "\"" + text + "\"") << text;
  }
}

TEST(ParseDuration, FinerThanANanosecond) {
  EXPECT_EQ(duration_error("0.1ns"), "expected a duration in whole nanoseconds, got \"0.1ns\"");
  EXPECT_EQ(duration_error("1.0000000001s"), "expected a duration in whole nanoseconds, got \"1.0000000001s\"");
  EXPECT_EQ(duration_error("0.00000000000000000000001d"),
            "expected a duration in whole nanoseconds, got \"0.00000000000000000000001d\"");
}

TEST(ParseDuration, SpacesAreRefused) {
  EXPECT_EQ(duration_error("10 ms"), "expected a duration without spaces, e.g. \"28ms\", got \"10 ms\"");
  EXPECT_EQ(duration_error("1h 30m"), "expected a duration without spaces, e.g. \"28ms\", got \"1h 30m\"");
  EXPECT_EQ(duration_error(" 10ms"), "expected a duration without spaces, e.g. \"28ms\", got \" 10ms\"");
  EXPECT_EQ(duration_error("10ms\t"), "expected a duration without spaces, e.g. \"28ms\", got \"10ms\\x09\"");
}

TEST(ParseDuration, ControlCharactersAreEscapedInMessages) {
  EXPECT_EQ(duration_error(std::string_view("1\0s", 3)),
            "expected a duration such as \"250ms\" or \"1h30m\" (units: ns, us, µs, ms, s, m, h, d), got "
            "\"1\\x00s\"");
  EXPECT_EQ(duration_error("\"x\\"),
            "expected a duration such as \"250ms\" or \"1h30m\" (units: ns, us, µs, ms, s, m, h, d), got "
            "\"\\\"x\\\\\"");
}

TEST(FormatDuration, CanonicalText) {
  EXPECT_EQ(format_duration(0s), "0s");
  EXPECT_EQ(format_duration(1ns), "1ns");
  EXPECT_EQ(format_duration(999ns), "999ns");
  EXPECT_EQ(format_duration(1500ns), "1.5us");
  EXPECT_EQ(format_duration(250us), "250us");
  EXPECT_EQ(format_duration(250ms), "250ms");
  EXPECT_EQ(format_duration(1234567ns), "1.234567ms");
  EXPECT_EQ(format_duration(1s), "1s");
  EXPECT_EQ(format_duration(1500ms), "1.5s");
  EXPECT_EQ(format_duration(90s), "1m30s");
  EXPECT_EQ(format_duration(90min), "1h30m");
  EXPECT_EQ(format_duration(24h), "1d");
  EXPECT_EQ(format_duration(26h + 1ns), "1d2h0.000000001s");
  EXPECT_EQ(format_duration(-90min), "-1h30m");
  EXPECT_EQ(format_duration(-250ms), "-250ms");
  EXPECT_EQ(format_duration(Duration::max()), "106751d23h47m16.854775807s");
  EXPECT_EQ(format_duration(Duration::min()), "-106751d23h47m16.854775808s");
}

TEST(FormatDuration, RoundTripsRandomValues) {
  std::mt19937_64 rng(12345);
  // Mixed magnitudes: uniform over the full range is almost always huge.
  std::uniform_int_distribution<int> bits(0, 63);
  for (int i = 0; i < 20000; ++i) {
    const int b = bits(rng);
    std::int64_t v = static_cast<std::int64_t>(rng() >> 1) >> (62 - b % 63);
    if (rng() & 1) v = -v;
    const Duration d{v};
    const std::string text = format_duration(d);
    ASSERT_EQ(parse_duration(text), d) << text;
  }
  for (Duration d : {Duration::max(), Duration::min(), Duration{1}, Duration{-1}}) {
    EXPECT_EQ(parse_duration(format_duration(d)), d);
  }
}

// ---- bandwidth -------------------------------------------------------------------

TEST(ParseBandwidth, EveryUnit) {
  EXPECT_EQ(parse_bandwidth("5bps").bits_per_second, 5);
  EXPECT_EQ(parse_bandwidth("5kbps").bits_per_second, 5e3);
  EXPECT_EQ(parse_bandwidth("5Mbps").bits_per_second, 5e6);
  EXPECT_EQ(parse_bandwidth("10Gbps").bits_per_second, 1e10);
  EXPECT_EQ(parse_bandwidth("5Tbps").bits_per_second, 5e12);
  EXPECT_EQ(parse_bandwidth("5B/s").bits_per_second, 40);
  EXPECT_EQ(parse_bandwidth("5kB/s").bits_per_second, 4e4);
  EXPECT_EQ(parse_bandwidth("125MB/s").bits_per_second, 1e9);
  EXPECT_EQ(parse_bandwidth("5GB/s").bits_per_second, 4e10);
  EXPECT_EQ(parse_bandwidth("0.1Gbps").bits_per_second, 1e8);
  EXPECT_EQ(parse_bandwidth("-1Mbps").bits_per_second, -1e6);
}

TEST(ParseBandwidth, Errors) {
  auto err = [](std::string_view t) { return error_of(parse_bandwidth, t); };
  EXPECT_EQ(err("10"), "expected a bandwidth with a unit, e.g. \"10Gbps\", got \"10\"");
  const std::string usage =
      "expected a bandwidth such as \"10Gbps\" or \"125MB/s\" (units: bps, kbps, Mbps, Gbps, Tbps, B/s, kB/s, "
      "MB/s, GB/s), got ";
  EXPECT_EQ(err("10gbps"), usage + "\"10gbps\"");
  EXPECT_EQ(err("10Gb"), usage + "\"10Gb\"");
  EXPECT_EQ(err("infGbps"), usage + "\"infGbps\"");
  EXPECT_EQ(err("nanbps"), usage + "\"nanbps\"");
  EXPECT_EQ(err("1e9bps"), usage + "\"1e9bps\"");
  EXPECT_EQ(err(""), usage + "\"\"");
  EXPECT_EQ(err("10 Gbps"), "expected a bandwidth without spaces, e.g. \"10Gbps\", got \"10 Gbps\"");
  const std::string huge(400, '9');
  EXPECT_EQ(err(huge + "bps"),
            "expected a bandwidth such as \"10Gbps\" or \"125MB/s\" within the range of a "
            "double, got \"" +
                huge + "bps\"");
}

TEST(FormatBandwidth, CanonicalText) {
  EXPECT_EQ(format_bandwidth({1e10}), "10Gbps");
  EXPECT_EQ(format_bandwidth({1.25e9}), "1.25Gbps");
  EXPECT_EQ(format_bandwidth({1e9}), "1Gbps");  // "125MB/s" in; bits out
  EXPECT_EQ(format_bandwidth({0}), "0bps");
  EXPECT_EQ(format_bandwidth({999}), "999bps");
  EXPECT_EQ(format_bandwidth({1500}), "1.5kbps");
  EXPECT_EQ(format_bandwidth({0.5}), "0.5bps");
  EXPECT_EQ(format_bandwidth({-2e6}), "-2Mbps");
  EXPECT_EQ(format_bandwidth({1e15}), "1000Tbps");
}

// ---- rate --------------------------------------------------------------------------

TEST(ParseRate, EveryUnit) {
  EXPECT_EQ(parse_rate("800rps").per_second, 800);
  EXPECT_EQ(parse_rate("800/s").per_second, 800);
  EXPECT_EQ(parse_rate("1200rpm").per_second, 20);
  EXPECT_EQ(parse_rate("1200/min").per_second, 20);
  EXPECT_EQ(parse_rate("7200rph").per_second, 2);
  EXPECT_EQ(parse_rate("7200/h").per_second, 2);
  EXPECT_EQ(parse_rate("0.5rps").per_second, 0.5);
}

TEST(ParseRate, Errors) {
  auto err = [](std::string_view t) { return error_of(parse_rate, t); };
  EXPECT_EQ(err("800"), "expected a rate with a unit, e.g. \"800rps\", got \"800\"");
  EXPECT_EQ(err("800qps"),
            "expected a rate such as \"800rps\" or \"1200/min\" (units: rps, rpm, rph, /s, /min, "
            "/h), got \"800qps\"");
  EXPECT_EQ(err("800 rps"), "expected a rate without spaces, e.g. \"800rps\", got \"800 rps\"");
}

TEST(FormatRate, CanonicalText) {
  EXPECT_EQ(format_rate({800}), "800rps");
  EXPECT_EQ(format_rate({20}), "20rps");
  EXPECT_EQ(format_rate({1.0 / 60}), "1rpm");
  EXPECT_EQ(format_rate({1.0 / 3600}), "1rph");
  EXPECT_EQ(format_rate({0.5}), "30rpm");
  EXPECT_EQ(format_rate({0}), "0rps");
}

// ---- ratio ---------------------------------------------------------------------------

TEST(ParseRatio, Percentages) {
  EXPECT_EQ(parse_ratio("10%").value, 0.1);
  EXPECT_EQ(parse_ratio("0.5%").value, 0.005);
  EXPECT_EQ(parse_ratio("100%").value, 1.0);
  EXPECT_EQ(parse_ratio("150%").value, 1.5);  // callers check kAtMostOne
  EXPECT_EQ(parse_ratio("7%").value, 0.07);   // the double nearest 0.07, not 7 * 0.01
  EXPECT_EQ(parse_ratio("-1%").value, -0.01);
}

TEST(ParseRatio, Errors) {
  auto err = [](std::string_view t) { return error_of(parse_ratio, t); };
  EXPECT_EQ(err("0.1"), "expected a percentage, e.g. \"10%\", got \"0.1\"");
  EXPECT_EQ(err("10 %"), "expected a percentage without spaces, e.g. \"10%\", got \"10 %\"");
  EXPECT_EQ(err("10pct"), "expected a percentage such as \"10%\" or \"0.5%\", got \"10pct\"");
  EXPECT_EQ(err("%"), "expected a percentage such as \"10%\" or \"0.5%\", got \"%\"");
}

TEST(FormatRatio, CanonicalText) {
  EXPECT_EQ(format_ratio({0.1}), "10%");
  EXPECT_EQ(format_ratio({0.07}), "7%");
  EXPECT_EQ(format_ratio({0.005}), "0.5%");
  EXPECT_EQ(format_ratio({1}), "100%");
  EXPECT_EQ(format_ratio({0}), "0%");
  EXPECT_EQ(format_ratio({1.0 / 3}), "33.33333333333333%");
}

// ---- sizes -------------------------------------------------------------------------------

TEST(ParseByteSize, EveryUnit) {
  EXPECT_EQ(parse_byte_size("5B").bytes, 5);
  EXPECT_EQ(parse_byte_size("5kB").bytes, 5'000);
  EXPECT_EQ(parse_byte_size("5MB").bytes, 5'000'000);
  EXPECT_EQ(parse_byte_size("5GB").bytes, 5'000'000'000);
  EXPECT_EQ(parse_byte_size("5TB").bytes, 5'000'000'000'000);
  EXPECT_EQ(parse_byte_size("5KiB").bytes, 5 << 10);
  EXPECT_EQ(parse_byte_size("64MiB").bytes, 64 << 20);
  EXPECT_EQ(parse_byte_size("5GiB").bytes, 5ll << 30);
  EXPECT_EQ(parse_byte_size("5TiB").bytes, 5ll << 40);
  EXPECT_EQ(parse_byte_size("1.5KiB").bytes, 1536);
  EXPECT_EQ(parse_byte_size("1.5GB").bytes, 1'500'000'000);
  EXPECT_EQ(parse_byte_size("-1kB").bytes, -1000);
}

TEST(ParseByteSize, Errors) {
  auto err = [](std::string_view t) { return error_of(parse_byte_size, t); };
  EXPECT_EQ(err("64"), "expected a size with a unit, e.g. \"64MiB\", got \"64\"");
  EXPECT_EQ(err("64mb"),
            "expected a size such as \"64MiB\" or \"1.5GB\" (units: B, kB, MB, GB, TB, KiB, MiB, GiB, "
            "TiB), got \"64mb\"");
  EXPECT_EQ(err("1.5B"), "expected a whole number of bytes, got \"1.5B\"");
  EXPECT_EQ(err("0.0001kB"), "expected a whole number of bytes, got \"0.0001kB\"");
  EXPECT_EQ(err("64 MiB"), "expected a size without spaces, e.g. \"64MiB\", got \"64 MiB\"");
  EXPECT_EQ(err("9000000TiB"),
            "expected a size between -8388608TiB and 9223372036854775807B, got "
            "\"9000000TiB\"");
}

TEST(FormatByteSize, CanonicalText) {
  EXPECT_EQ(format_byte_size({0}), "0B");
  EXPECT_EQ(format_byte_size({64 << 20}), "64MiB");
  EXPECT_EQ(format_byte_size({1000}), "1kB");
  EXPECT_EQ(format_byte_size({1024}), "1KiB");
  EXPECT_EQ(format_byte_size({1536}), "1536B");
  EXPECT_EQ(format_byte_size({1'500'000'000}), "1.5GB");
  EXPECT_EQ(format_byte_size({-2048}), "-2KiB");
}

TEST(FormatByteSize, RoundTripsRandomValues) {
  std::mt19937_64 rng(777);
  for (int i = 0; i < 20000; ++i) {
    std::int64_t v = static_cast<std::int64_t>(rng() >> 1) >> (rng() % 63);
    if (rng() & 1) v = -v;
    if (i % 3 == 0) v = (v % 100000) << (10 * (i % 5));  // whole units of KiB, MiB, ...
    const std::string text = format_byte_size({v});
    ASSERT_EQ(parse_byte_size(text).bytes, v) << text;
  }
  for (std::int64_t v : {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
    EXPECT_EQ(parse_byte_size(format_byte_size({v})).bytes, v);
  }
}

// ---- floating-point round trips ------------------------------------------------------------

// Doubles over many magnitudes, plus the "nice" values people write.
std::vector<double> sample_doubles() {
  std::mt19937_64 rng(4242);
  std::vector<double> out;
  std::uniform_real_distribution<double> mantissa(0, 10);
  std::uniform_int_distribution<int> exponent(-12, 15);
  for (int i = 0; i < 5000; ++i) out.push_back(mantissa(rng) * std::pow(10.0, exponent(rng)));
  for (int i = 0; i < 2000; ++i) out.push_back(static_cast<double>(rng() % 100000) / 100);
  for (int i = 0; i < 500; ++i) {
    // Arbitrary bit patterns that are finite.
    double d = std::bit_cast<double>(rng());
    if (std::isfinite(d)) out.push_back(d);
  }
  for (double d : {std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                   std::numeric_limits<double>::denorm_min(), 1.0 / 3, 2.0 / 3, 0.1, 0.7}) {
    out.push_back(d);
    out.push_back(-d);
  }
  return out;
}

TEST(FormatFloatQuantities, RoundTripRandomValues) {
  for (double v : sample_doubles()) {
    const std::string b = format_bandwidth({v});
    ASSERT_EQ(parse_bandwidth(b).bits_per_second, v) << b;
    const std::string r = format_rate({v});
    ASSERT_EQ(parse_rate(r).per_second, v) << r;
    const std::string p = format_ratio({v});
    ASSERT_EQ(parse_ratio(p).value, v) << p;
  }
}

TEST(FormatFloatQuantities, RoundTripParsedText) {
  // Text a user writes comes back canonical and parses to the same value.
  for (const char* text : {"125MB/s", "0.1Gbps", "3.3Mbps", "1200/min", "45rph", "33.3%", "0.01%"}) {
    const std::string_view t(text);
    if (t.ends_with("s") && (t.find("bps") != t.npos || t.find("B/s") != t.npos)) {
      const Bandwidth b = parse_bandwidth(t);
      EXPECT_EQ(parse_bandwidth(format_bandwidth(b)), b) << text;
    } else if (t.ends_with("%")) {
      const Ratio r = parse_ratio(t);
      EXPECT_EQ(parse_ratio(format_ratio(r)), r) << text;
    } else {
      const Rate r = parse_rate(t);
      EXPECT_EQ(parse_rate(format_rate(r)), r) << text;
    }
  }
}

// ---- unit lists --------------------------------------------------------------------------

TEST(UnitLists, EveryListedUnitParses) {
  for (std::string_view u : duration_units()) EXPECT_EQ(parse_duration("2" + std::string(u)) > 0s, true) << u;
  for (std::string_view u : bandwidth_units()) EXPECT_GT(parse_bandwidth("2" + std::string(u)).bits_per_second, 0);
  for (std::string_view u : rate_units()) EXPECT_GT(parse_rate("2" + std::string(u)).per_second, 0);
  for (std::string_view u : ratio_units()) EXPECT_GT(parse_ratio("2" + std::string(u)).value, 0);
  for (std::string_view u : byte_size_units()) EXPECT_GT(parse_byte_size("2" + std::string(u)).bytes, 0);
}

// ---- CPU ---------------------------------------------------------------------------------

TEST(ParseCpu, MillicoresAndBareCoresAsKubernetesWritesThem) {
  EXPECT_EQ(parse_cpu("500m").millicores, 500);
  EXPECT_EQ(parse_cpu("2").millicores, 2000);
  EXPECT_EQ(parse_cpu("1.5").millicores, 1500);
  EXPECT_EQ(parse_cpu("0.001").millicores, 1);
  EXPECT_EQ(parse_cpu("0").millicores, 0);
  EXPECT_EQ(parse_cpu("-250m").millicores, -250);
  EXPECT_DOUBLE_EQ(parse_cpu("250m").cores(), 0.25);
}

TEST(ParseCpu, Errors) {
  auto err = [](std::string_view t) { return error_of(parse_cpu, t); };
  EXPECT_EQ(err("0.5m"), "expected a whole number of millicores (Kubernetes' finest CPU unit), got \"0.5m\"");
  EXPECT_EQ(err("0.0001"), "expected a whole number of millicores (Kubernetes' finest CPU unit), got \"0.0001\"");
  EXPECT_EQ(err("500 m"), "expected a CPU quantity without spaces, e.g. \"500m\", got \"500 m\"");
  EXPECT_EQ(err("2cores"), "expected a CPU quantity such as \"500m\" or \"2\" (units: m, none), got \"2cores\"");
  EXPECT_EQ(err("m"), "expected a CPU quantity such as \"500m\" or \"2\" (units: m, none), got \"m\"");
}

TEST(FormatCpu, WholeCoresBareTheRestInMillicores) {
  EXPECT_EQ(format_cpu({2000}), "2");
  EXPECT_EQ(format_cpu({1500}), "1500m");
  EXPECT_EQ(format_cpu({0}), "0");
  EXPECT_EQ(format_cpu({-250}), "-250m");
  for (std::int64_t m : {1, 999, 1000, 123456789}) EXPECT_EQ(parse_cpu(format_cpu({m})).millicores, m);
}

}  // namespace
}  // namespace drsim
