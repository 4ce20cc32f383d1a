#include "sim/recorder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/errors.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// ---------------------------------------------------------------- metric names

TEST(Recorder, AcceptsDottedLowercaseNames) {
  for (const char* name : {"zone.up", "service.latency_p99_s", "a.b", "a.b.c.d", "k8s.pod_count", "zone.2nd",
                           "db.replication_lag_s", "x1.y_", "zone._internal"}) {
    EXPECT_NO_THROW(Recorder::check_metric_name(name)) << name;
  }
}

TEST(Recorder, RejectsOtherNames) {
  for (const char* name : {"", "zone", "Zone.up", "zone.Up", "zone..up", ".zone", "zone.", "zone-a.up", "zone up.x",
                           "1zone.up", "_zone.up", "zone.up ", " zone.up", "zone.up/s", "zone.úp", "."}) {
    EXPECT_THROW(Recorder::check_metric_name(name), SimulationError) << '"' << name << '"';
  }
}

TEST(Recorder, NameErrorSaysWhatIsExpected) {
  try {
    Recorder::check_metric_name("ZoneUp");
    FAIL() << "expected SimulationError";
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ZoneUp"), std::string::npos) << what;
    EXPECT_NE(what.find("dotted lowercase"), std::string::npos) << what;
  }
}

TEST(Recorder, SeriesAndKpisValidateNames) {
  Recorder r;
  EXPECT_THROW(r.series("ZoneUp"), SimulationError);
  EXPECT_THROW(r.kpi("rto", {}, 1.0), SimulationError);
  EXPECT_TRUE(r.series_list().empty());
  EXPECT_TRUE(r.kpis().empty());
}

// ---------------------------------------------------------------- series

TEST(Recorder, LabelsAreSortedByKey) {
  Recorder r;
  SeriesId id = r.series("zone.up", {{"zone", "eu-west-1a"}, {"region", "eu-west-1"}, {"cell", "3"}});
  const auto& s = r.series_at(id);
  EXPECT_EQ(s.metric, "zone.up");
  EXPECT_EQ(s.labels, (Labels{{"cell", "3"}, {"region", "eu-west-1"}, {"zone", "eu-west-1a"}}));
}

TEST(Recorder, DuplicateLabelKeysRejected) {
  Recorder r;
  EXPECT_THROW(r.series("zone.up", {{"zone", "a"}, {"zone", "b"}}), SimulationError);
  EXPECT_THROW(r.series("zone.up", {{"zone", "a"}, {"region", "x"}, {"zone", "a"}}), SimulationError);
  EXPECT_THROW(r.kpi("run.rto_s", {{"service", "a"}, {"service", "b"}}, 1.0), SimulationError);
  EXPECT_TRUE(r.series_list().empty());
}

TEST(Recorder, SeriesIsIdempotent) {
  Recorder r;
  SeriesId a = r.series("zone.up", {{"zone", "a"}, {"region", "r"}});
  SeriesId again = r.series("zone.up", {{"region", "r"}, {"zone", "a"}});  // label order does not matter
  SeriesId b = r.series("zone.up", {{"zone", "b"}, {"region", "r"}});
  SeriesId plain = r.series("zone.up");
  SeriesId other = r.series("zone.utilization", {{"zone", "a"}, {"region", "r"}});
  EXPECT_EQ(a.index, again.index);
  EXPECT_NE(a.index, b.index);
  EXPECT_NE(a.index, plain.index);
  EXPECT_NE(a.index, other.index);
  EXPECT_EQ(r.series_list().size(), 4u);
  EXPECT_EQ(r.series("zone.up").index, plain.index);
  EXPECT_EQ(r.series_list().size(), 4u);
}

TEST(Recorder, RecordAppendsColumns) {
  Recorder r;
  SeriesId id = r.series("zone.utilization", {{"zone", "a"}});
  r.record(id, at(0s), 0.5);
  r.record(id, at(1s), 0.75);
  r.record(id, at(1s), 0.75);  // same time and value: still a point
  r.record(id, at(2500ms), 1.0);
  const auto& s = r.series_at(id);
  EXPECT_EQ(s.t_ns, (std::vector<std::int64_t>{0, 1'000'000'000, 1'000'000'000, 2'500'000'000}));
  EXPECT_EQ(s.value, (std::vector<double>{0.5, 0.75, 0.75, 1.0}));
  EXPECT_EQ(r.point_count(), 4u);
}

TEST(Recorder, RecordChangeOnlyOnChange) {
  Recorder r;
  SeriesId id = r.series("zone.up", {{"zone", "a"}});
  r.record_change(id, at(0s), 1);  // the first value is always recorded
  r.record_change(id, at(1s), 1);
  r.record_change(id, at(2s), 0);
  r.record_change(id, at(3s), 0);
  r.record_change(id, at(4s), 0);
  r.record_change(id, at(5s), 1);
  r.record_change(id, at(5s), 1);
  const auto& s = r.series_at(id);
  EXPECT_EQ(s.t_ns, (std::vector<std::int64_t>{0, 2'000'000'000, 5'000'000'000}));
  EXPECT_EQ(s.value, (std::vector<double>{1, 0, 1}));
}

TEST(Recorder, TimeGoingBackwardsThrows) {
  Recorder r;
  SeriesId a = r.series("zone.up", {{"zone", "a"}});
  SeriesId b = r.series("zone.up", {{"zone", "b"}});
  r.record(a, at(10s), 1);
  EXPECT_THROW(r.record(a, at(9s), 1), SimulationError);
  EXPECT_THROW(r.record_change(a, at(9s), 0), SimulationError);
  EXPECT_THROW(r.record_change(a, at(9s), 1), SimulationError);  // unchanged value: still an error
  EXPECT_EQ(r.series_at(a).t_ns.size(), 1u);
  // Each series has its own clock.
  EXPECT_NO_THROW(r.record(b, at(1s), 1));
  EXPECT_NO_THROW(r.record(a, at(10s), 2));
  try {
    r.record(a, at(5s), 3);
    FAIL() << "expected SimulationError";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("zone.up"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("backwards"), std::string::npos) << e.what();
  }
}

TEST(Recorder, UndeclaredSeriesIdThrows) {
  Recorder r;
  EXPECT_THROW(r.record(SeriesId{0}, at(1s), 1), SimulationError);
  r.series("zone.up");
  EXPECT_NO_THROW(r.record(SeriesId{0}, at(1s), 1));
  EXPECT_THROW(r.record_change(SeriesId{1}, at(1s), 1), SimulationError);
  EXPECT_THROW(r.series_at(SeriesId{7}), SimulationError);
}

// ---------------------------------------------------------------- events

// Kinds of the test's own area: the events table stores any kind's name.
constexpr EventKind kTestFail{"test.fail", "A test's failure."};
constexpr EventKind kTestFailover{"test.failover", "A test's failover."};

TEST(Recorder, EventsTable) {
  Recorder r;
  EXPECT_EQ(r.events().size(), 0u);
  r.event(at(1s), "zone-a", kTestFail, "power");
  r.event(at(2s), "dns", kTestFailover, "");
  const auto& e = r.events();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e.t_ns, (std::vector<std::int64_t>{1'000'000'000, 2'000'000'000}));
  EXPECT_EQ(e.component, (std::vector<std::string>{"zone-a", "dns"}));
  EXPECT_EQ(e.kind, (std::vector<std::string>{"test.fail", "test.failover"}));
  EXPECT_EQ(e.detail, (std::vector<std::string>{"power", ""}));
}

// ---------------------------------------------------------------- kpis

TEST(Recorder, KpiReplacement) {
  Recorder r;
  r.kpi("run.rto_s", {}, 120);
  r.kpi("run.rto_s", {{"service", "checkout"}, {"region", "eu"}}, 30);
  r.kpi("run.rto_s", {}, 90);  // replaces
  r.kpi("run.rto_s", {{"region", "eu"}, {"service", "checkout"}}, 45);  // replaces, label order aside
  r.kpi("run.rpo_s", {}, 5);
  ASSERT_EQ(r.kpis().size(), 3u);
  EXPECT_EQ(r.kpis()[0].name, "run.rto_s");
  EXPECT_EQ(r.kpis()[0].value, 90);
  EXPECT_EQ(r.kpis()[1].value, 45);
  EXPECT_EQ(r.kpis()[1].labels, (Labels{{"region", "eu"}, {"service", "checkout"}}));
  EXPECT_EQ(r.kpis()[2].name, "run.rpo_s");
}

TEST(Recorder, FindKpi) {
  Recorder r;
  r.kpi("run.rto_s", {{"service", "checkout"}, {"region", "eu"}}, 30);
  r.kpi("run.requests_failed", {}, 17);
  const auto* k = r.find_kpi("run.rto_s", {{"region", "eu"}, {"service", "checkout"}});
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->value, 30);
  ASSERT_NE(r.find_kpi("run.requests_failed"), nullptr);
  EXPECT_EQ(r.find_kpi("run.requests_failed")->value, 17);
  EXPECT_EQ(r.find_kpi("run.rto_s"), nullptr);  // labels must match
  EXPECT_EQ(r.find_kpi("run.rto_s", {{"region", "eu"}}), nullptr);
  EXPECT_EQ(r.find_kpi("run.rpo_s"), nullptr);
  EXPECT_THROW(r.find_kpi("run.rto_s", {{"region", "eu"}, {"region", "us"}}), SimulationError);
}

TEST(Recorder, LabelKeysAreTheUnionSorted) {
  Recorder r;
  EXPECT_TRUE(r.label_keys().empty());
  r.series("zone.up", {{"zone", "a"}, {"region", "eu"}});
  r.series("service.latency_p99_s", {{"service", "checkout"}, {"region", "eu"}});
  r.kpi("run.rto_s", {{"service", "checkout"}, {"cell", "1"}}, 1);
  r.series("run.events");
  EXPECT_EQ(r.label_keys(), (std::vector<std::string>{"cell", "region", "service", "zone"}));
}

TEST(Recorder, PointCountOverAllSeries) {
  Recorder r;
  SeriesId a = r.series("zone.up", {{"zone", "a"}});
  SeriesId b = r.series("zone.up", {{"zone", "b"}});
  EXPECT_EQ(r.point_count(), 0u);
  r.record(a, at(1s), 1);
  r.record(b, at(1s), 1);
  r.record(b, at(2s), 0);
  EXPECT_EQ(r.point_count(), 3u);
}

}  // namespace
}  // namespace drsim
