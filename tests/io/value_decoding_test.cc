// The generic decoder, seen through load_scenario_text: shapes, scalars,
// flags, keys, and collecting several problems in one pass.
#include <gtest/gtest.h>

#include "io/value_codecs.h"
#include "tests/io/test_support.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using testing::load_error;
using testing::scenario_with;

// A scenario whose seed is the given YAML text (line 15).
std::string seed_error(std::string_view seed) {
  return load_error(scenario_with("  seed: " + std::string(seed) + "\n"));
}

TEST(DecodeIntegers, StrictDecimal) {
  EXPECT_EQ(load_scenario_text(scenario_with("  seed: 007\n")).spec.seed, 7u);
  EXPECT_EQ(load_scenario_text(scenario_with("  seed: 18446744073709551615\n")).spec.seed, 18446744073709551615u);
  for (const char* bad : {"1.0", "1e3", "0x10", "+1", "-1", "1_000", "one", "true", "~1"}) {
    EXPECT_EQ(seed_error(bad), "<text>:15:9: spec.seed: expected an unsigned integer, got \"" + std::string(bad) + "\"")
        << bad;
  }
  EXPECT_EQ(seed_error("18446744073709551616"),
            "<text>:15:9: spec.seed: expected an unsigned integer of at most 18446744073709551615, got "
            "\"18446744073709551616\"");
  // Tags are refused, even one that agrees with the field's type.
  EXPECT_EQ(seed_error("!!int 7"),
            "<text>:15:9: spec.seed: expected a value without a YAML tag (tags are not supported), got the tag "
            "!!int");
  EXPECT_EQ(seed_error("[7]"), "<text>:15:9: spec.seed: expected an unsigned integer, got a list");
  EXPECT_EQ(seed_error("{a: 1}"), "<text>:15:9: spec.seed: expected an unsigned integer, got a mapping");
  EXPECT_EQ(seed_error("null"), "<text>:15:3: spec.seed: expected an unsigned integer, got null");
  EXPECT_EQ(seed_error("~"), "<text>:15:3: spec.seed: expected an unsigned integer, got null");
}

TEST(DecodeCodecs, SignedIntegersAndNumbersAndBooleans) {
  // No scenario field has these types yet; the codecs are ready for models that will.
  EXPECT_EQ(ValueCodec<int>::parse("-42"), -42);
  EXPECT_THROW(ValueCodec<int>::parse("2147483648"), std::invalid_argument);
  try {
    ValueCodec<int>::parse("2147483648");
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "expected an integer between -2147483648 and 2147483647, got \"2147483648\"");
  }
  EXPECT_EQ(ValueCodec<double>::parse("1.5e3"), 1500.0);
  EXPECT_EQ(ValueCodec<double>::parse("-0.25"), -0.25);
  for (const char* bad : {"inf", "nan", "1.5x", "", "0x10"}) {
    EXPECT_THROW(ValueCodec<double>::parse(bad), std::invalid_argument) << bad;
  }
  EXPECT_EQ(ValueCodec<double>::format(0.1), "0.1");
  EXPECT_TRUE(ValueCodec<bool>::parse("true"));
  EXPECT_FALSE(ValueCodec<bool>::parse("false"));
  for (const char* bad : {"yes", "True", "on", "1"}) {
    try {
      ValueCodec<bool>::parse(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(e.what(), "expected true or false, got \"" + std::string(bad) + "\"");
    }
  }
}

TEST(DecodeStrings, AnyScalarIsAString) {
  const Scenario s = load_scenario_text(scenario_with(R"(  timeline:
    - {name: 123, action: zone:fail, at: 0s, target: {zone: eu-west-1a}}
    - {name: "true", action: zone:fail, at: 0s, target: {zone: eu-west-1a}}
    - {name: 'x: y', action: zone:fail, at: 0s, target: {zone: eu-west-1a}}
)"));
  EXPECT_EQ(s.spec.timeline[0].name, "123");
  EXPECT_EQ(s.spec.timeline[1].name, "true");
  EXPECT_EQ(s.spec.timeline[2].name, "x: y");
  EXPECT_EQ(
      load_error(scenario_with("  timeline: [{name: [a], action: zone:fail, at: 0s, target: {zone: eu-west-1a}}]\n")),
      "<text>:15:21: spec.timeline[0].name: expected a string, got a list");
}

TEST(DecodeShapes, WrongShapesAndNulls) {
  EXPECT_EQ(load_error(scenario_with("  timeline: {a: 1}\n")),
            "<text>:15:13: spec.timeline: expected a list, got a mapping");
  EXPECT_EQ(load_error(scenario_with("  timeline:\n    -\n")),
            "<text>:16:5: spec.timeline[0]: expected a mapping (Action), got null");
  EXPECT_EQ(load_error(scenario_with("  guards:\n")),
            "<text>:15:3: spec.guards: expected a mapping (Guards), got null");
  EXPECT_EQ(load_error("- a\n- b\n"), "<text>:1:1: expected a mapping (Scenario), got a list");
  EXPECT_EQ(load_error("just text\n"), "<text>:1:1: expected a mapping (Scenario), got \"just text\"");
  EXPECT_EQ(load_error("~\n"), "<text>:1:1: expected a Scenario document, got an empty document");
  EXPECT_EQ(load_error(scenario_with("  {a: 1}: 2\n")), "<text>:15:3: spec: expected a key, got a mapping");
}

TEST(DecodeFlags, PositiveNonNegativeAtMostOne) {
  EXPECT_EQ(load_error(scenario_with("  guards: {maxWallTime: -1s}\n")),
            "<text>:15:25: spec.guards.maxWallTime: expected a non-negative duration, got \"-1s\"");
  std::string zero_duration = scenario_with("");
  zero_duration.replace(zero_duration.find("duration: 1h"), 12, "duration: 0s");
  EXPECT_EQ(load_error(zero_duration), "<text>:6:13: spec.duration: expected a positive duration, got \"0s\"");
  EXPECT_EQ(load_error(scenario_with(R"(  timeline:
    - {name: d, action: link:degrade, at: 0s, target: {link: eu-us}, bandwidth: 0bps, loss: -1%, latency: -1ms}
)")),
            "<text>:16:81: spec.timeline[0].bandwidth: expected a positive bandwidth, got \"0bps\"\n"
            "<text>:16:93: spec.timeline[0].loss: expected a non-negative percentage, got \"-1%\"\n"
            "<text>:16:107: spec.timeline[0].latency: expected a non-negative duration, got \"-1ms\"");
  // The bounds themselves are fine.
  const Scenario s = load_scenario_text(scenario_with(R"(  timeline:
    - {name: d, action: link:degrade, at: 0s, target: {link: eu-us}, loss: 100%, latency: 0s}
)"));
  EXPECT_EQ(s.spec.timeline[0].loss, Ratio{1.0});
}

TEST(DecodeKeys, UnknownKeysEverywhere) {
  EXPECT_EQ(load_error(scenario_with("  timeline: [{name: a, action: zone:fail, at: 0s, target: {zone: eu-west-1a}, "
                                     "startafter: [b]}]\n")),
            "<text>:15:79: spec.timeline[0].startafter: unknown key \"startafter\", did you mean \"startAfter\"? "
            "(valid keys: name, action, at, startAfter, delay, duration, target, latency, loss, bandwidth, ratio, "
            "replicas, count, percent, factor, weight, policy, to, size, toRegions, ... 2 more)");
  EXPECT_EQ(load_error(scenario_with("  colour: blue\n")),
            "<text>:15:3: spec.colour: unknown key \"colour\" (valid keys: topology, duration, seed, guards, load, "
            "metricsWindow, podMetrics, timeline, objectives, kubernetes, network, traces)");
}

TEST(DecodeKeys, RepeatedUnknownKeysAreEachUnknown) {
  EXPECT_EQ(load_error(scenario_with("  x: 1\n  x: 2\n")),
            "<text>:15:3: spec.x: unknown key \"x\" (valid keys: topology, duration, seed, guards, load, "
            "metricsWindow, podMetrics, timeline, objectives, kubernetes, network, traces)\n"
            "<text>:16:3: spec.x: unknown key \"x\" (valid keys: topology, duration, seed, guards, load, "
            "metricsWindow, podMetrics, timeline, objectives, kubernetes, network, traces)");
}

TEST(DecodeCollects, ManyProblemsInOnePass) {
  EXPECT_EQ(load_error(R"(apiVersion: drsim/v1alpha1
kind: Scenario
metadata: {}
spec:
  topology: {regions: [{zones: [{name: a}], interZoneRtt: 5}]}
  duration: 30
  seed: x
  timeline: [{name: t, action: zone:fail, at: 5}]
)"),
            "<text>:3:11: metadata: missing required key \"name\"\n"
            "<text>:5:59: spec.topology.regions[0].interZoneRtt: expected a duration with a unit, e.g. \"28ms\", got "
            "\"5\"\n"
            "<text>:5:24: spec.topology.regions[0]: missing required key \"name\"\n"
            "<text>:6:13: spec.duration: expected a duration with a unit, e.g. \"28ms\", got \"30\"\n"
            "<text>:7:9: spec.seed: expected an unsigned integer, got \"x\"\n"
            "<text>:8:47: spec.timeline[0].at: expected a duration with a unit, e.g. \"28ms\", got \"5\"\n"
            "<text>:8:14: spec.timeline[0]: missing required key \"target\"");
}

}  // namespace
}  // namespace drsim
