// The pieces messages are built from: diagnostics, source locations, suggestions.
#include "io/source_map.h"

#include <gtest/gtest.h>

#include "sim/quote.h"
#include "io/suggest.h"

namespace drsim {
namespace {

TEST(Diagnostic, LeavesOutWhatIsUnknown) {
  EXPECT_EQ((Diagnostic{"a.yaml", 3, 7, "spec.seed", "bad"}).to_string(), "a.yaml:3:7: spec.seed: bad");
  EXPECT_EQ((Diagnostic{"a.yaml", 3, 0, "spec.seed", "bad"}).to_string(), "a.yaml:3: spec.seed: bad");
  EXPECT_EQ((Diagnostic{"a.yaml", 0, 0, "spec.seed", "bad"}).to_string(), "a.yaml: spec.seed: bad");
  EXPECT_EQ((Diagnostic{"a.yaml", 1, 1, "", "bad"}).to_string(), "a.yaml:1:1: bad");
  EXPECT_EQ((Diagnostic{"", 0, 0, "", "bad"}).to_string(), "bad");
}

TEST(ScenarioError, WhatListsEveryDiagnostic) {
  const ScenarioError e({Diagnostic{"a", 1, 2, "x", "one"}, Diagnostic{"b", 3, 4, "y", "two"}});
  EXPECT_STREQ(e.what(), "a:1:2: x: one\nb:3:4: y: two");
  EXPECT_EQ(e.diagnostics().size(), 2u);
}

TEST(Paths, PrefixesStopAtComponentBoundaries) {
  EXPECT_TRUE(is_path_prefix("spec.timeline", "spec.timeline[0].at"));
  EXPECT_TRUE(is_path_prefix("spec.timeline", "spec.timeline"));
  EXPECT_TRUE(is_path_prefix("", "spec"));
  EXPECT_FALSE(is_path_prefix("spec.timeline", "spec.timelines"));
  EXPECT_FALSE(is_path_prefix("spec.timeline[1]", "spec.timeline[10]"));
  EXPECT_EQ(parent_path("spec.timeline[2].at"), "spec.timeline[2]");
  EXPECT_EQ(parent_path("spec.timeline[2]"), "spec.timeline");
  EXPECT_EQ(parent_path("spec"), "");
}

TEST(SourceMap, FindsTheNearestRecordedAncestor) {
  SourceMap map;
  const std::uint32_t topo = map.add_source("topo.yaml", "spec", "spec.topology");
  map.record("spec.topology", topo, 7, 1);
  map.record("spec.topology.regions[0].name", topo, 9, 15);
  map.record("spec.topology.regions[0].name", topo, 10, 15);  // recorded again: the later one wins
  EXPECT_THROW(map.find("spec"), std::logic_error);
  map.seal();
  const SourceLocation exact = map.find("spec.topology.regions[0].name");
  EXPECT_EQ(exact.line, 10);
  EXPECT_EQ(exact.path, "spec.regions[0].name");
  // The unrecorded tail keeps its spelling after the translated ancestor.
  const SourceLocation tail = map.find("spec.topology.links[0].rtt");
  EXPECT_EQ(tail.file, "topo.yaml");
  EXPECT_EQ(tail.line, 7);
  EXPECT_EQ(tail.path, "spec.links[0].rtt");
  const SourceLocation none = map.find("metadata.name");
  EXPECT_EQ(none.file, "");
  EXPECT_EQ(none.line, 0);
  EXPECT_EQ(none.path, "metadata.name");
  EXPECT_EQ(map.at("spec.topology.regions[0].name", "bad").to_string(), "topo.yaml:10:15: spec.regions[0].name: bad");
}

TEST(Suggest, ClosestMatchWithinATypo) {
  const std::vector<std::string_view> keys{"topology", "duration", "seed", "guards", "timeline"};
  EXPECT_EQ(closest_match("durattion", keys), "duration");
  EXPECT_EQ(closest_match("tiemline", keys), "timeline");  // a transposition counts once
  EXPECT_EQ(closest_match("Seed", keys), "seed");
  EXPECT_EQ(closest_match("colour", keys), std::nullopt);
  EXPECT_EQ(closest_match("x", {}), std::nullopt);
}

TEST(Suggest, UnknownNameMessageCutsLongLists) {
  std::vector<std::string> names;
  for (int i = 0; i < 25; ++i) names.push_back("zone-" + std::to_string(i));
  const std::vector<std::string_view> views(names.begin(), names.end());
  EXPECT_EQ(unknown_name_message("zone", "zone-99", views, "zones"),
            "unknown zone \"zone-99\", did you mean \"zone-9\"? (zones: zone-0, zone-1, zone-2, zone-3, zone-4, "
            "zone-5, zone-6, zone-7, zone-8, zone-9, zone-10, zone-11, zone-12, zone-13, zone-14, zone-15, zone-16, "
            "zone-17, zone-18, zone-19, ... 5 more)");
  EXPECT_EQ(unknown_name_message("zone", "q", {}, "zones"), "unknown zone \"q\" (zones: none)");
}

TEST(Quote, EscapesWhatWouldGarbleAMessage) {
  EXPECT_EQ(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(quote(std::string_view("\0\x1b\x7f", 3)), "\"\\x00\\x1b\\x7f\"");
  EXPECT_EQ(quote("µs"), "\"µs\"");
}

}  // namespace
}  // namespace drsim
