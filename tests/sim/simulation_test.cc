#include "sim/simulation.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace drsim {
namespace {

using namespace std::chrono_literals;

// Whether text contains part, with both shown on failure.
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// Records its lifecycle calls in a shared log and exposes Component's
// protected API to the tests.
class Probe : public Component {
 public:
  Probe(std::string name, std::vector<std::string>* log = nullptr) : Component(std::move(name)), log_(log) {}

  using Component::cancel;
  using Component::log_event;
  using Component::now;
  using Component::recorder;
  using Component::rng;
  using Component::schedule_after;
  using Component::schedule_at;

  int attached = 0;
  int started = 0;
  int stopped = 0;

 protected:
  void attach() override {
    ++attached;
    note("attach");
  }
  void start() override {
    ++started;
    note("start");
  }
  void stop() override {
    ++stopped;
    note("stop");
  }

 private:
  void note(const char* what) {
    if (log_ != nullptr) log_->push_back(name() + "." + what);
  }
  std::vector<std::string>* log_;
};

class Other : public Component {
 public:
  using Component::Component;
};

// Reschedules itself every `period` (zero: an event storm).
class Ticker : public Component {
 public:
  Ticker(std::string name, Duration period) : Component(std::move(name)), period_(period) {}
  int ticks = 0;

 protected:
  void start() override { schedule(); }

 private:
  void schedule() {
    schedule_after(period_, "tick", [this] {
      ++ticks;
      schedule();
    });
  }
  Duration period_;
};

// ---------------------------------------------------------------- time formatting

TEST(Time, FormatClock) {
  EXPECT_EQ(format_clock(at(0s)), "00:00:00");
  EXPECT_EQ(format_clock(at(1h + 2min + 3s + 250ms)), "01:02:03.250");
  EXPECT_EQ(format_clock(at(100h)), "100:00:00");
  EXPECT_EQ(format_clock(at(999us)), "00:00:00");  // below a millisecond is not shown
  EXPECT_EQ(format_clock(at(-1500ms)), "-00:00:01.500");
  // The extremes do not overflow.
  EXPECT_EQ(format_clock(SimTime{Duration::max()}), "2562047:47:16.854");
  EXPECT_EQ(format_clock(SimTime{Duration::min()}), "-2562047:47:16.854");
}

TEST(Time, FormatSeconds) {
  EXPECT_EQ(format_seconds(0s), "0");
  EXPECT_EQ(format_seconds(3s), "3");
  EXPECT_EQ(format_seconds(1500ms), "1.5");
  EXPECT_EQ(format_seconds(1ns), "0.000000001");
  EXPECT_EQ(format_seconds(-250ms), "-0.25");
  EXPECT_EQ(format_seconds(Duration::max()), "9223372036.854775807");
  EXPECT_EQ(format_seconds(Duration::min()), "-9223372036.854775808");
  EXPECT_EQ(format_seconds(at(90s)), "90");
}

TEST(Time, Conversions) {
  EXPECT_EQ(to_ns(at(2s)), 2'000'000'000);
  EXPECT_EQ(to_ns(1500us), 1'500'000);
  EXPECT_DOUBLE_EQ(to_seconds(250ms), 0.25);
  EXPECT_DOUBLE_EQ(to_seconds(at(90s)), 90.0);
  EXPECT_EQ(kSimStart, at(0s));
}

// ---------------------------------------------------------------- lifecycle

TEST(Simulation, AllComponentsAttachBeforeAnyStarts) {
  std::vector<std::string> log;
  Simulation sim;
  sim.add<Probe>("a", &log);
  sim.add<Probe>("b", &log);
  sim.add<Probe>("c", &log);
  EXPECT_TRUE(log.empty());  // nothing happens before the run
  sim.run_until(at(1s));
  EXPECT_EQ(log, (std::vector<std::string>{"a.attach", "b.attach", "c.attach", "a.start", "b.start", "c.start"}));
  sim.run_until(at(2s));  // no second attach/start
  sim.initialize();
  EXPECT_EQ(log.size(), 6u);
  sim.finish();
  EXPECT_EQ(log, (std::vector<std::string>{"a.attach", "b.attach", "c.attach", "a.start", "b.start", "c.start",
                                           "a.stop", "b.stop", "c.stop"}));
  EXPECT_TRUE(sim.finished());
  sim.finish();  // stop runs once
  EXPECT_EQ(log.size(), 9u);
  for (const auto& c : sim.components()) {
    auto* p = dynamic_cast<Probe*>(c.get());
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->attached, 1);
    EXPECT_EQ(p->started, 1);
    EXPECT_EQ(p->stopped, 1);
  }
}

TEST(Simulation, FinishWithoutRunStillAttachesAndStarts) {
  std::vector<std::string> log;
  Simulation sim;
  sim.add<Probe>("a", &log);
  sim.finish();
  EXPECT_EQ(log, (std::vector<std::string>{"a.attach", "a.start", "a.stop"}));
}

TEST(Simulation, StepAndRunAfterFinishThrow) {
  Simulation sim;
  sim.finish();
  EXPECT_THROW(sim.step(), SimulationError);
  EXPECT_THROW(sim.run_until(at(1s)), SimulationError);
}

TEST(Simulation, AddingAComponentAfterStartThrows) {
  Simulation sim;
  sim.add<Probe>("a");
  sim.initialize();
  try {
    sim.add<Probe>("late");
    FAIL() << "expected SimulationError";
  } catch (const SimulationError& e) {
    EXPECT_TRUE(Contains(e.what(), "late"));
    EXPECT_TRUE(Contains(e.what(), "sealed"));
  }
  EXPECT_EQ(sim.components().size(), 1u);
  EXPECT_EQ(sim.find("late"), nullptr);
}

TEST(Simulation, AddingAComponentAfterRunThrows) {
  Simulation sim;
  sim.run_until(at(1s));
  EXPECT_THROW(sim.add<Probe>("late"), SimulationError);
}

TEST(Simulation, DuplicateComponentNamesThrow) {
  Simulation sim;
  sim.add<Probe>("zone-a");
  try {
    sim.add<Other>("zone-a");
    FAIL() << "expected SimulationError";
  } catch (const SimulationError& e) {
    EXPECT_TRUE(Contains(e.what(), "zone-a"));
  }
  EXPECT_EQ(sim.components().size(), 1u);
}

TEST(Simulation, FindByNameAndType) {
  Simulation sim;
  Probe& a = sim.add<Probe>("a");
  Other& b = sim.add<Other>("b");
  EXPECT_EQ(sim.find("a"), &a);
  EXPECT_EQ(sim.find("b"), &b);
  EXPECT_EQ(sim.find("c"), nullptr);
  EXPECT_EQ(sim.find<Probe>("a"), &a);
  EXPECT_EQ(sim.find<Other>("a"), nullptr);  // wrong type
  EXPECT_EQ(sim.find<Other>("b"), &b);
  EXPECT_EQ(sim.find<Probe>("missing"), nullptr);
  EXPECT_EQ(a.id(), 0u);
  EXPECT_EQ(b.id(), 1u);
  EXPECT_EQ(a.name(), "a");
}

TEST(Simulation, DestroysPendingHandlersBeforeComponents) {
  // A handler's captured state may refer to a component when destroyed.
  struct Witness {
    Probe* probe;
    std::string* seen;
    bool armed = true;
    Witness(Probe* p, std::string* s) : probe(p), seen(s) {}
    Witness(Witness&& o) noexcept : probe(o.probe), seen(o.seen), armed(o.armed) { o.armed = false; }
    ~Witness() {
      if (armed) *seen = probe->name();
    }
    void operator()() const {}
  };
  std::string seen;
  auto token = std::make_shared<int>(0);
  {
    Simulation sim;
    Probe& p = sim.add<Probe>("keeper");
    sim.schedule_at(at(1h), Witness(&p, &seen));
    sim.schedule_at(at(2h), [token] {});
    sim.run_until(at(1s));
    EXPECT_EQ(token.use_count(), 2);
  }
  EXPECT_EQ(seen, "keeper");
  EXPECT_EQ(token.use_count(), 1);
}

// ---------------------------------------------------------------- scheduling

TEST(Simulation, RunsEventsInTimeThenPriorityThenInsertionOrder) {
  Simulation sim;
  std::vector<int> order;
  sim.schedule_at(at(2s), [&] { order.push_back(4); });
  sim.schedule_at(at(1s), [&] { order.push_back(3); }, {}, 5);
  sim.schedule_at(at(1s), [&] { order.push_back(1); }, {}, -5);
  sim.schedule_at(at(1s), [&] { order.push_back(2); }, {}, 0);
  sim.schedule_at(at(1s), [&] { order.push_back(21); }, {}, 0);
  sim.run_until(at(10s));
  EXPECT_EQ(order, (std::vector<int>{1, 2, 21, 3, 4}));
  EXPECT_EQ(sim.events_run(), 5u);
}

TEST(Simulation, HandlersSeeTheirOwnTime) {
  Simulation sim;
  std::vector<SimTime> seen;
  for (auto t : {3s, 1s, 2s}) sim.schedule_at(at(t), [&] { seen.push_back(sim.now()); });
  sim.run_until(at(5s));
  EXPECT_EQ(seen, (std::vector<SimTime>{at(1s), at(2s), at(3s)}));
}

TEST(Simulation, SchedulingInThePastThrows) {
  Simulation sim;
  sim.run_until(at(10s));
  ASSERT_EQ(sim.now(), at(10s));
  try {
    sim.schedule_at(at(5s), [] {});
    FAIL() << "expected SimulationError";
  } catch (const SimulationError& e) {
    EXPECT_TRUE(Contains(e.what(), "past"));
    EXPECT_TRUE(Contains(e.what(), "00:00:05"));
  }
  EXPECT_THROW(sim.schedule_after(-1ns, [] {}), SimulationError);
  EXPECT_EQ(sim.pending_events(), 0u);
  // Now is not the past.
  sim.schedule_at(at(10s), [] {});
  sim.schedule_after(0s, [] {});
  EXPECT_EQ(sim.pending_events(), 2u);
}

TEST(Simulation, SchedulingOutOfRangeThrows) {
  Simulation sim;
  EXPECT_THROW(sim.schedule_at(SimTime{Duration{EventQueue::kMaxTimeNs + 1}}, [] {}), SimulationError);
  EXPECT_THROW(sim.schedule_at(at(1s), [] {}, {}, 1000), SimulationError);
}

TEST(Simulation, CancelAndIsPending) {
  Simulation sim;
  int runs = 0;
  EventId a = sim.schedule_at(at(1s), [&] { ++runs; });
  EventId b = sim.schedule_at(at(2s), [&] { ++runs; });
  EXPECT_TRUE(sim.is_pending(a));
  EXPECT_TRUE(sim.cancel(a));
  EXPECT_FALSE(sim.is_pending(a));
  EXPECT_FALSE(sim.cancel(a));
  sim.run_until(at(3s));
  EXPECT_EQ(runs, 1);
  EXPECT_FALSE(sim.is_pending(b));
  EXPECT_FALSE(sim.cancel(b));
}

TEST(Simulation, ComponentSchedulingCarriesTagAndCancels) {
  Simulation sim;
  Probe& p = sim.add<Probe>("svc");
  sim.initialize();
  std::vector<std::string> seen;
  p.schedule_after(2s, "late", [&] { seen.push_back("late@" + format_clock(p.now())); });
  p.schedule_at(at(1s), "early", [&] { seen.push_back("early@" + format_clock(p.now())); });
  EventId gone = p.schedule_after(3s, "gone", [&] { seen.push_back("gone"); });
  p.schedule_at(at(2s), "first-at-2s", [&] { seen.push_back("prio"); }, -1);
  EXPECT_TRUE(p.cancel(gone));
  sim.run_until(at(10s));
  EXPECT_EQ(seen, (std::vector<std::string>{"early@00:00:01", "prio", "late@00:00:02"}));
}

TEST(Simulation, StepRunsOneEventAtATime) {
  Simulation sim;
  std::vector<int> order;
  sim.schedule_at(at(2s), [&] { order.push_back(2); });
  sim.schedule_at(at(1s), [&] { order.push_back(1); });
  EXPECT_TRUE(sim.step());
  EXPECT_EQ(sim.now(), at(1s));
  EXPECT_EQ(order, (std::vector<int>{1}));
  EXPECT_TRUE(sim.step());
  EXPECT_EQ(sim.now(), at(2s));
  EXPECT_FALSE(sim.step());
  EXPECT_EQ(sim.now(), at(2s));  // an empty step does not move the clock
  EXPECT_EQ(sim.events_run(), 2u);
}

TEST(Simulation, StepInitializesComponents) {
  Simulation sim;
  Probe& p = sim.add<Probe>("p");
  EXPECT_FALSE(sim.step());
  EXPECT_EQ(p.started, 1);
}

// ---------------------------------------------------------------- run_until

TEST(Simulation, RunUntilIncludesTheHorizonAndCanContinue) {
  Simulation sim;
  std::vector<int> order;
  sim.schedule_at(at(1s), [&] { order.push_back(1); });
  sim.schedule_at(at(2s), [&] {
    order.push_back(2);
    sim.schedule_after(0s, [&] { order.push_back(22); });  // also at the horizon: runs now
  });
  sim.schedule_at(at(2s) + 1ns, [&] { order.push_back(3); });
  sim.schedule_at(at(4s), [&] { order.push_back(4); });

  RunOutcome first = sim.run_until(at(2s));
  EXPECT_TRUE(first.complete());
  EXPECT_EQ(first.reason, StopReason::kHorizon);
  EXPECT_EQ(first.end_time, at(2s));
  EXPECT_EQ(first.events, 3u);
  EXPECT_TRUE(first.message.empty());
  EXPECT_GE(first.wall_seconds, 0.0);
  EXPECT_EQ(sim.now(), at(2s));
  EXPECT_EQ(order, (std::vector<int>{1, 2, 22}));
  EXPECT_EQ(sim.pending_events(), 2u);

  RunOutcome again = sim.run_until(at(2s));
  EXPECT_TRUE(again.complete());
  EXPECT_EQ(again.events, 0u);

  RunOutcome second = sim.run_until(at(3s));
  EXPECT_EQ(second.events, 1u);
  EXPECT_EQ(sim.now(), at(3s));  // the clock stops at the horizon, not at the last event
  EXPECT_EQ(order, (std::vector<int>{1, 2, 22, 3}));

  EXPECT_THROW(sim.run_until(at(1s)), SimulationError);
  RunOutcome third = sim.run_for(2s);
  EXPECT_EQ(third.end_time, at(5s));
  EXPECT_EQ(order, (std::vector<int>{1, 2, 22, 3, 4}));
  EXPECT_EQ(sim.events_run(), 5u);
}

TEST(Simulation, EventScheduledBeforeAPeekedFarEventRuns) {
  // run_until peeks at the next event (1 h away) and stops at its horizon;
  // events scheduled afterwards between now and that event must not be skipped.
  Simulation sim;
  std::vector<int> order;
  sim.schedule_at(at(1h), [&] { order.push_back(3); });
  for (int i = 0; i < 1000; ++i) sim.schedule_at(at(Duration{i * 1000}), [] {});
  sim.run_until(at(1s));
  sim.schedule_at(at(2s), [&] { order.push_back(1); });
  sim.schedule_at(at(1s), [&] { order.push_back(0); });  // exactly now
  sim.schedule_at(at(30min), [&] { order.push_back(2); });
  sim.run_until(at(2h));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
}

TEST(Simulation, RunUntilWithNothingPendingAdvancesTheClock) {
  Simulation sim;
  RunOutcome out = sim.run_until(at(1h));
  EXPECT_TRUE(out.complete());
  EXPECT_EQ(out.events, 0u);
  EXPECT_EQ(sim.now(), at(1h));
  // Later events are relative to the new clock.
  int runs = 0;
  sim.schedule_after(1s, [&] { ++runs; });
  sim.run_for(1s);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(sim.now(), at(1h + 1s));
}

TEST(Simulation, TickerRunsExpectedNumberOfTimes) {
  Simulation sim;
  Ticker& t = sim.add<Ticker>("ticker", 1s);
  sim.run_until(at(1min));
  EXPECT_EQ(t.ticks, 60);
  sim.run_until(at(2min));
  EXPECT_EQ(t.ticks, 120);
  EXPECT_EQ(sim.pending_events(), 1u);
}

// ---------------------------------------------------------------- guards

TEST(Simulation, MaxEventsGuard) {
  SimulationOptions options;
  options.max_events = 10;
  Simulation sim(options);
  Ticker& t = sim.add<Ticker>("ticker", 1s);
  RunOutcome out = sim.run_until(at(1h));
  EXPECT_FALSE(out.complete());
  EXPECT_EQ(out.reason, StopReason::kMaxEvents);
  EXPECT_EQ(out.events, 10u);
  EXPECT_EQ(t.ticks, 10);
  EXPECT_EQ(out.end_time, at(10s));  // the time of the last event run, not the horizon
  EXPECT_EQ(sim.now(), at(10s));
  EXPECT_TRUE(Contains(out.message, "maxEvents"));
  EXPECT_TRUE(Contains(out.message, "10"));
  EXPECT_STREQ(to_string(out.reason), "max_events");
  // The limit counts every event of the simulation: a further run stops at once.
  RunOutcome more = sim.run_until(at(1h));
  EXPECT_EQ(more.reason, StopReason::kMaxEvents);
  EXPECT_EQ(more.events, 0u);
}

TEST(Simulation, EventStormGuard) {
  SimulationOptions options;
  options.max_events_per_instant = 1000;
  Simulation sim(options);
  Ticker& storm = sim.add<Ticker>("looper", 0s);
  RunOutcome out = sim.run_until(at(1h));
  EXPECT_EQ(out.reason, StopReason::kEventStorm);
  EXPECT_EQ(out.events, 1000u);
  EXPECT_EQ(storm.ticks, 1000);
  EXPECT_EQ(sim.now(), at(0s));
  EXPECT_TRUE(Contains(out.message, "event storm"));
  EXPECT_TRUE(Contains(out.message, "maxEventsPerInstant"));
  EXPECT_STREQ(to_string(out.reason), "event_storm");
}

TEST(Simulation, ManyEventsAtDistinctInstantsAreNoStorm) {
  SimulationOptions options;
  options.max_events_per_instant = 100;
  Simulation sim(options);
  int runs = 0;
  // 100 events at each of 50 instants: at the limit, never beyond it.
  for (int i = 0; i < 50; ++i) {
    for (int k = 0; k < 100; ++k) sim.schedule_at(at(Duration{i * 1'000'000}), [&] { ++runs; });
  }
  RunOutcome out = sim.run_until(at(1s));
  EXPECT_TRUE(out.complete()) << out.message;
  EXPECT_EQ(runs, 5000);
}

TEST(Simulation, MaxWallTimeGuard) {
  SimulationOptions options;
  options.max_wall_time = 1ns;  // any run takes longer than this
  Simulation sim(options);
  Ticker& t = sim.add<Ticker>("ticker", 1ms);
  RunOutcome out = sim.run_until(at(1h));  // 3.6 million ticks if nothing stopped it
  EXPECT_EQ(out.reason, StopReason::kMaxWallTime);
  EXPECT_LT(t.ticks, 3'600'000);
  EXPECT_LT(sim.now(), at(1h));
  EXPECT_TRUE(Contains(out.message, "maxWallTime"));
  EXPECT_STREQ(to_string(out.reason), "max_wall_time");
}

TEST(Simulation, StopFlagInterrupts) {
  std::atomic<bool> stop{true};
  SimulationOptions options;
  options.stop_flag = &stop;
  Simulation sim(options);
  Ticker& t = sim.add<Ticker>("ticker", 1s);
  RunOutcome out = sim.run_until(at(1h));
  EXPECT_EQ(out.reason, StopReason::kInterrupted);
  EXPECT_EQ(out.events, 0u);
  EXPECT_TRUE(Contains(out.message, "interrupted"));
  EXPECT_STREQ(to_string(out.reason), "interrupted");
  // Lowered again: the run resumes and completes.
  stop = false;
  RunOutcome resumed = sim.run_until(at(1min));
  EXPECT_TRUE(resumed.complete());
  EXPECT_EQ(t.ticks, 60);
}

TEST(Simulation, StopFlagRaisedDuringTheRun) {
  std::atomic<bool> stop{false};
  SimulationOptions options;
  options.stop_flag = &stop;
  Simulation sim(options);
  Ticker& t = sim.add<Ticker>("ticker", 1ms);
  sim.schedule_at(at(5s), [&] { stop = true; });
  RunOutcome out = sim.run_until(at(1h));
  EXPECT_EQ(out.reason, StopReason::kInterrupted);
  // The flag is looked at every batch of up to 4096 events (sim/run_guards.h),
  // never before it is raised: the 4999 ticks before 5 s have run (the tick
  // at 5 s itself may come after the look that stops the run).
  EXPECT_GE(t.ticks, 4999);
  EXPECT_LT(t.ticks, 5000 + 4096);
}

TEST(Simulation, ProgressCallback) {
  std::vector<RunProgress> reports;
  SimulationOptions options;
  options.progress_interval = Duration::zero();  // report at every check
  options.progress = [&](const RunProgress& p) { reports.push_back(p); };
  Simulation sim(options);
  sim.add<Ticker>("ticker", 1ms);
  RunOutcome out = sim.run_until(at(20s));
  EXPECT_TRUE(out.complete());
  ASSERT_GE(reports.size(), 2u);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    EXPECT_EQ(reports[i].horizon, at(20s));
    EXPECT_LE(reports[i].now, at(20s));
    EXPECT_GE(reports[i].wall_seconds, 0.0);
    if (i > 0) {
      EXPECT_GE(reports[i].events, reports[i - 1].events);
      EXPECT_GE(reports[i].now, reports[i - 1].now);
    }
  }
  EXPECT_GT(reports.back().events, 0u);
}

TEST(Simulation, NoGuardsByDefaultForOrdinaryRuns) {
  Simulation sim;
  Ticker& t = sim.add<Ticker>("ticker", 1ms);
  RunOutcome out = sim.run_until(at(100s));
  EXPECT_TRUE(out.complete());
  EXPECT_EQ(t.ticks, 100'000);
  EXPECT_EQ(out.events, 100'000u);
}

// ---------------------------------------------------------------- handler errors

class Thrower : public Component {
 public:
  using Component::Component;
  std::function<void()> body;

 protected:
  void start() override {
    schedule_at(at(90s) + 250ms, "recompute-weights", [this] { body(); });
  }
};

TEST(Simulation, HandlerExceptionBecomesHandlerErrorWithContext) {
  Simulation sim;
  sim.add<Probe>("bystander");
  Thrower& t = sim.add<Thrower>("dns-resolver");
  t.body = [] { throw std::runtime_error("division by zero replicas"); };
  try {
    sim.run_until(at(1h));
    FAIL() << "expected HandlerError";
  } catch (const HandlerError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(Contains(what, "00:01:30.250"));
    EXPECT_TRUE(Contains(what, "90250000000 ns"));
    EXPECT_TRUE(Contains(what, "dns-resolver"));
    EXPECT_TRUE(Contains(what, "recompute-weights"));
    EXPECT_TRUE(Contains(what, "division by zero replicas"));
    EXPECT_TRUE(Contains(e.where(), "dns-resolver"));
    EXPECT_FALSE(Contains(e.where(), "division"));
  }
  EXPECT_EQ(sim.now(), at(90s) + 250ms);
}

TEST(Simulation, HandlerErrorIsASimulationError) {
  Simulation sim;
  sim.schedule_at(at(1s), [] { throw std::logic_error("bad"); }, EventTag{kNoComponent, "anonymous"});
  try {
    sim.step();
    FAIL() << "expected HandlerError";
  } catch (const SimulationError& e) {
    EXPECT_NE(dynamic_cast<const HandlerError*>(&e), nullptr);
    EXPECT_TRUE(Contains(e.what(), "anonymous"));
    EXPECT_TRUE(Contains(e.what(), "bad"));
  }
}

TEST(Simulation, NonStandardExceptionsAreWrappedToo) {
  Simulation sim;
  sim.schedule_at(at(1s), [] { throw 42; });
  try {
    sim.run_until(at(2s));
    FAIL() << "expected HandlerError";
  } catch (const HandlerError& e) {
    EXPECT_TRUE(Contains(e.what(), "unknown exception"));
  }
}

TEST(Simulation, NestedHandlerErrorIsNotWrappedTwice) {
  Simulation inner;
  inner.schedule_at(at(1s), [] { throw std::runtime_error("inner failure"); }, EventTag{kNoComponent, "inner-event"});
  Simulation outer;
  outer.schedule_at(at(5s), [&] { inner.run_until(at(2s)); }, EventTag{kNoComponent, "outer-event"});
  try {
    outer.run_until(at(10s));
    FAIL() << "expected HandlerError";
  } catch (const HandlerError& e) {
    EXPECT_TRUE(Contains(e.what(), "inner-event"));
    EXPECT_FALSE(Contains(e.what(), "outer-event"));
  }
}

// ---------------------------------------------------------------- rng streams and recorder access

std::vector<std::uint64_t> draws(RngStream& rng, int n) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(rng.next_u64());
  return out;
}

TEST(Simulation, RngStreamsAreDeterministicPerSeedAndName) {
  Simulation a(SimulationOptions{.seed = 7});
  Simulation b(SimulationOptions{.seed = 7});
  Simulation c(SimulationOptions{.seed = 8});
  RngStream a1 = a.rng_stream("zone-a");
  RngStream b1 = b.rng_stream("zone-a");
  RngStream a2 = a.rng_stream("zone-b");
  RngStream c1 = c.rng_stream("zone-a");
  const auto x = draws(a1, 16);
  EXPECT_EQ(x, draws(b1, 16));
  EXPECT_NE(x, draws(a2, 16));
  EXPECT_NE(x, draws(c1, 16));
  EXPECT_EQ(a.seed(), 7u);
}

TEST(Simulation, ComponentRngIsItsNamedStream) {
  Simulation sim(SimulationOptions{.seed = 99});
  Probe& p = sim.add<Probe>("traffic");
  sim.initialize();
  RngStream expected(99, "traffic");
  EXPECT_EQ(draws(p.rng(), 8), draws(expected, 8));
  EXPECT_EQ(&p.rng(), &p.rng());  // one stream per component, kept
}

TEST(Simulation, AddingAComponentDoesNotChangeOthersDraws) {
  auto run = [](bool with_extra) {
    Simulation sim(SimulationOptions{.seed = 1234});
    if (with_extra) sim.add<Probe>("extra-first");
    Probe& p = sim.add<Probe>("service");
    if (with_extra) sim.add<Probe>("extra-last");
    sim.initialize();
    if (with_extra) {
      // The others draw too, interleaved.
      sim.find<Probe>("extra-first")->rng().next_u64();
      sim.find<Probe>("extra-last")->rng().uniform();
    }
    std::vector<double> out;
    for (int i = 0; i < 32; ++i) {
      out.push_back(p.rng().exponential(2.0));
      if (with_extra) sim.find<Probe>("extra-first")->rng().next_u64();
    }
    return out;
  };
  EXPECT_EQ(run(false), run(true));
}

TEST(Simulation, ComponentLogEventGoesToRecorder) {
  static constexpr EventKind kPowerLoss{"test.power_loss", "A test's zone lost power."};
  Simulation sim;
  Probe& p = sim.add<Probe>("zone-a");
  sim.schedule_at(at(3s), [&] { p.log_event(kPowerLoss, "power loss"); });
  sim.run_until(at(5s));
  const auto& ev = sim.recorder().events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev.t_ns[0], 3'000'000'000);
  EXPECT_EQ(ev.component[0], "zone-a");
  EXPECT_EQ(ev.kind[0], "test.power_loss");
  EXPECT_EQ(ev.detail[0], "power loss");
  EXPECT_EQ(&p.recorder(), &sim.recorder());
}

TEST(Simulation, IndependentSimulationsDoNotInterfere) {
  Simulation a;
  Simulation b;
  a.add<Ticker>("t", 1s);
  b.add<Ticker>("t", 2s);  // same name in another simulation is fine
  a.run_until(at(10s));
  b.run_until(at(10s));
  EXPECT_EQ(a.find<Ticker>("t")->ticks, 10);
  EXPECT_EQ(b.find<Ticker>("t")->ticks, 5);
}

}  // namespace
}  // namespace drsim
