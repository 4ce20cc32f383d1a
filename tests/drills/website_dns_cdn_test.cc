// docs/sources.md section 3, the website drill (scenarios/website_dns_cdn.yaml):
// dual DNS providers, multi-CDN with a 60 s CNAME TTL, a two-region origin
// with health checks and a static backup, failed from the outside in. Every
// band below is derived from the scenario's settings (named constants) and
// asserted on the recorded series, events and the objectives report.
#include <gtest/gtest.h>

#include <cstdio>

#include "io/objective_evaluation.h"
#include "io/run.h"
#include "io/scenario_loader.h"
#include "tests/drills/recorded_series.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;
using test_support::series;

constexpr const char* kScenario = "scenarios/website_dns_cdn.yaml";

// Settings of the scenario.
constexpr double kWindow = 10;        // metricsWindow
constexpr double kRate = 40;          // requests per second per population
constexpr double kResolvers = 40;     // dns.resolvers per population
constexpr double kQueryTimeout = 0.8;  // dns.queryTimeout
constexpr double kTtl = 60;           // dns.recordTtl: the CNAME's TTL (clientCacheTtl 0)
constexpr double kCdnInterval = 10;   // cdn.checkInterval
constexpr double kCdnThreshold = 3;   // cdn.failureThreshold
constexpr double kHcInterval = 10;    // healthCheck.requestInterval
constexpr double kHcThreshold = 3;    // healthCheck.failureThreshold
constexpr double kHcTimeout = 4;      // healthCheck.timeout
constexpr double kHit = 0.9;          // vendors' hitRatio
constexpr double kStatic = 0.6;       // backup.staticShare
constexpr double kBackupTtl = 60;     // backup.recordTtl
constexpr double kResolution = 9.6;   // 12 queries x 800 ms fit in resolutionTimeout 10 s
// Timeline.
constexpr double kDnsA = 300, kDnsAEnd = 900;
constexpr double kCdnA = 1200, kCdnAEnd = 1800;
constexpr double kFra = 2100, kFraEnd = 2700;
constexpr double kAll = 3000, kAllEnd = 3600;
constexpr double kDnsAll = 3900, kDnsAllEnd = 4200;

// Sum over all series of metric whose labels include `labels`, per window start (s).
std::map<double, double> summed(const Recorder& rec, std::string_view metric, const Labels& labels) {
  std::map<double, double> out;
  for (const Recorder::Series& s : rec.series_list()) {
    if (s.metric != metric || !test_support::has_labels(s, labels)) continue;
    for (std::size_t i = 0; i < s.t_ns.size(); ++i) out[static_cast<double>(s.t_ns[i]) / 1e9] += s.value[i];
  }
  return out;
}
double total(const std::map<double, double>& points, double from, double to) {
  double sum = 0;
  for (const auto& [t, v] : points) {
    if (t >= from && t < to) sum += v;
  }
  return sum;
}
// The last window start in [from, to) with a positive value, or -1.
double last_positive(const std::map<double, double>& points, double from, double to) {
  double last = -1;
  for (const auto& [t, v] : points) {
    if (t >= from && t < to && v > 0) last = t;
  }
  return last;
}
// The first window start in [from, to) where the value is at least `at_least`, or -1.
double first_at_least(const std::map<double, double>& points, double from, double to, double at_least) {
  for (const auto& [t, v] : points) {
    if (t >= from && t < to && v >= at_least) return t;
  }
  return -1;
}
// The first event of kind (and detail containing `detail`) at or after from, in s; -1 if none.
double first_event(const Recorder& rec, std::string_view kind, std::string_view component, double from) {
  const Recorder::Events& e = rec.events();
  for (std::size_t i = 0; i < e.size(); ++i) {
    const double t = static_cast<double>(e.t_ns[i]) / 1e9;
    if (t >= from && e.kind[i] == kind && e.component[i] == component) return t;
  }
  return -1;
}

TEST(WebsiteDnsCdn, EachFailurePointIsHandledByItsMechanism) {
  const RunResult run = run_scenario(load_scenario_file(kScenario));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.recorder();
  const Labels europe{{"population", "europe"}}, america{{"population", "america"}};
  const auto failed_eu = summed(rec, "client.failed", europe);
  const auto failed_us = summed(rec, "client.failed", america);
  const auto ok_eu = summed(rec, "client.succeeded", europe);
  const auto ok_us = summed(rec, "client.succeeded", america);

  // Nothing fails before the first fault.
  EXPECT_EQ(total(failed_eu, 0, kDnsA) + total(failed_us, 0, kDnsA), 0);

  // 1. One DNS provider down: each resolver that preferred it pays one query timeout on its next refresh,
  // then prefers the other (its SRTT +200 ms takes ~100 refreshes of 60 s to decay back), so at most
  // kResolvers timeouts per population, and no request fails.
  const double timeouts_eu =
      total(summed(rec, "dns.query_timeouts", {{"population", "europe"}, {"provider", "provider-a"}}), kDnsA, kDnsAEnd);
  const double timeouts_us = total(
      summed(rec, "dns.query_timeouts", {{"population", "america"}, {"provider", "provider-a"}}), kDnsA, kDnsAEnd);
  EXPECT_GT(timeouts_eu + timeouts_us, 0) << "some resolvers preferred provider-a";
  EXPECT_LE(timeouts_eu, kResolvers);
  EXPECT_LE(timeouts_us, kResolvers);
  EXPECT_EQ(total(failed_eu, kDnsA, kCdnA) + total(failed_us, kDnsA, kCdnA), 0) << "provider-b answers";
  EXPECT_EQ(total(summed(rec, "dns.resolution_failures", {}), kDnsA, kDnsAEnd), 0);

  // 2. vendor-a's European PoP down: the monitor's view flips at its threshold-th failed probe,
  // (threshold - 1) to threshold intervals after the fault; the CNAME then names vendor-b, and the
  // last European request reaches vendor-a within the TTL of that (the resolvers' records expire
  // uniformly over 60 s; browsers add nothing). America keeps vendor-a.
  const double cdn_switch = first_event(rec, "cdn.cname_switch", "cdn/europe", kCdnA);
  EXPECT_GE(cdn_switch - kCdnA, (kCdnThreshold - 1) * kCdnInterval);
  EXPECT_LE(cdn_switch - kCdnA, kCdnThreshold * kCdnInterval);
  const auto vendor_a_eu = summed(rec, "cdn.requests", {{"population", "europe"}, {"vendor", "vendor-a"}});
  const double last_on_a = last_positive(vendor_a_eu, kCdnA, kCdnAEnd);
  EXPECT_LE(last_on_a, cdn_switch + kTtl);  // window start of the last request
  EXPECT_GE(last_on_a + kWindow, cdn_switch + 0.5 * kTtl) << "40 resolvers: the last expiry is near the TTL";
  // Errors: every request to vendor-a from the fault until the switch, then a share falling linearly
  // to 0 over the TTL: rate x (detection + TTL / 2), give or take the resolvers' granularity (+-25%).
  const double cdn_errors = total(failed_eu, kCdnA, kCdnAEnd);
  const double expected_cdn_errors = kRate * ((cdn_switch - kCdnA) + kTtl / 2);
  EXPECT_NEAR(cdn_errors, expected_cdn_errors, 0.25 * expected_cdn_errors);
  EXPECT_EQ(total(failed_us, kCdnA, kFra), 0) << "America's PoP of vendor-a is up";
  EXPECT_EQ(first_event(rec, "cdn.cname_switch", "cdn/america", 0), -1);

  // 3. Frankfurt down: Europe's origin pulls (1 - hit ratio of its requests) fail until the health check
  // marks it unhealthy ((threshold - 1) to threshold intervals, plus the probe's timeout: the origin sits
  // behind Frankfurt's cloud load balancer, whose dead nodes never answer), then go to Virginia.
  const double fra_unhealthy = first_event(rec, "gslb.region_unhealthy", "health-check/europe", kFra);
  EXPECT_GE(fra_unhealthy - kFra, (kHcThreshold - 1) * kHcInterval + kHcTimeout - 1);
  EXPECT_LE(fra_unhealthy - kFra, kHcThreshold * kHcInterval + kHcTimeout);
  const double fra_errors = total(failed_eu, kFra, kFraEnd);
  EXPECT_LE(fra_errors, 1.3 * kRate * (1 - kHit) * (kHcThreshold * kHcInterval + kHcTimeout));
  EXPECT_EQ(total(failed_eu, fra_unhealthy + 2 * kWindow, kFraEnd), 0) << "Virginia serves the pulls";

  // 4. Both origin regions down: when the health checks find both unhealthy, the failover A record answers
  // the static backup; each vendor picks it up within its record TTL. Then hits are served from the edge
  // caches and, of the misses, the static share by the backup: success = hit + (1 - hit) x static.
  const auto backup_a = series(rec, "cdn.backup_active", {{"population", "europe"}, {"vendor", "vendor-a"}});
  double backup_at = -1;
  for (const auto& [t, v] : backup_a) {
    if (t >= kAll * 1e9 && v > 0) {
      backup_at = static_cast<double>(t) / 1e9;
      break;
    }
  }
  EXPECT_GT(backup_at, 0);
  EXPECT_LE(backup_at - kAll, kHcThreshold * kHcInterval + kHcTimeout + kBackupTtl + kWindow);
  const double takeover = kAll + kHcThreshold * kHcInterval + kHcTimeout + kBackupTtl + kWindow;
  const double ok_backup = total(ok_eu, takeover, kAllEnd) + total(ok_us, takeover, kAllEnd);
  const double failed_backup = total(failed_eu, takeover, kAllEnd) + total(failed_us, takeover, kAllEnd);
  const double backup_success = ok_backup / (ok_backup + failed_backup);
  const double expected_backup_success = kHit + (1 - kHit) * kStatic;
  EXPECT_NEAR(backup_success, expected_backup_success, 0.01);
  EXPECT_GT(total(summed(rec, "cdn.backup_served", {}), takeover, kAllEnd), 0);

  // 5. Both DNS providers down: a resolver has no answer from its first expiry after the fault (serve-stale
  // off), uniformly over the TTL, so the failing share grows linearly and the name is gone for everybody
  // one TTL after the fault (plus the resolution that was under way).
  const auto lookups_failed = summed(rec, "dns.failed_lookups", {});
  EXPECT_EQ(total(lookups_failed, 0, kDnsAll), 0);
  const double half_eu = total(failed_eu, kDnsAll, kDnsAll + kTtl) / (kRate * kTtl);
  EXPECT_NEAR(half_eu, 0.5, 0.2) << "a linear rise over the TTL averages one half";
  const double dead_from = kDnsAll + kTtl + kResolution + kWindow;
  const double ok_dead = total(ok_eu, dead_from, kDnsAllEnd) + total(ok_us, dead_from, kDnsAllEnd);
  EXPECT_EQ(ok_dead, 0) << "the site does not resolve";

  // The objectives: an alert (detection) within 5 min and recovery within 15 min of every fault.
  const ObjectiveReport report = objective_report(run);
  // The provider failure shows in latency only: a request whose resolver times out on provider-a waits one
  // queryTimeout (800 ms) more, so the worst window p99 rises by at most that.
  ASSERT_FALSE(report.faults.empty());
  const FaultFigures& dns_a = report.faults[0];
  ASSERT_TRUE(dns_a.latency_p99_before_s && dns_a.latency_p99_during_s);
  EXPECT_LE(*dns_a.latency_p99_during_s, *dns_a.latency_p99_before_s + kQueryTimeout + 0.05);
  std::printf("dns-a down: p99 %.3f s before, %.3f s during (<= before + %.1f s)\n", *dns_a.latency_p99_before_s,
              *dns_a.latency_p99_during_s, kQueryTimeout);
  for (const FaultFigures& f : report.faults) {
    std::printf("%-28s detected %-8s rto %-8s errors %.0f\n", f.step.step.c_str(),
                f.detection ? format_seconds(*f.detection).c_str() : "n/a", f.rto ? format_seconds(*f.rto).c_str() : "never",
                f.switch_errors);
    if (f.detection) EXPECT_LE(*f.detection, 5min) << f.step.step;
    EXPECT_TRUE(f.rto.has_value()) << f.step.step;
    if (f.rto) EXPECT_LE(*f.rto, 15min) << f.step.step;
  }
  EXPECT_FALSE(report.any_failed());

  std::printf(
      "dns-a down: %.0f + %.0f query timeouts (<= %.0f each), 0 errors\n"
      "cdn vendor-a eu down: switch at +%.0f s, last request to vendor-a in window +%.0f s, %.0f errors (expected "
      "%.0f)\n"
      "frankfurt down: unhealthy at +%.0f s, %.0f errors\n"
      "all origins down: backup (vendor-a eu) at +%.0f s, success %.4f (expected %.4f)\n"
      "all dns down: first-ttl failure share %.2f\n",
      timeouts_eu, timeouts_us, kResolvers, cdn_switch - kCdnA, last_on_a - kCdnA, cdn_errors, expected_cdn_errors,
      fra_unhealthy - kFra, fra_errors, backup_at - kAll, backup_success, expected_backup_success, half_eu);
}

// cdn:fail takes a vendor down in every geography: both populations' monitors switch their CNAME, each
// within the same detection band, and both geographies' traffic leaves the vendor within the TTL after.
TEST(WebsiteDnsCdn, AVendorFailingEverywhereMovesEveryGeography) {
  const RunResult run = run_scenario(load_scenario_file(
      kScenario, {"spec.timeline[1].action=cdn:fail", "spec.timeline[1].target={vendor: vendor-a}",
                  "spec.duration=35m"}));
  ASSERT_EQ(run.outcome.reason, StopReason::kHorizon);
  const Recorder& rec = run.recorder();
  for (const char* population : {"europe", "america"}) {
    const double at = first_event(rec, "cdn.cname_switch", std::string("cdn/") + population, kCdnA);
    EXPECT_GE(at - kCdnA, (kCdnThreshold - 1) * kCdnInterval) << population;
    EXPECT_LE(at - kCdnA, kCdnThreshold * kCdnInterval) << population;
    const auto on_a = summed(rec, "cdn.requests", {{"population", population}, {"vendor", "vendor-a"}});
    EXPECT_LE(last_positive(on_a, kCdnA, kCdnAEnd), at + kTtl) << population;
    EXPECT_GT(total(summed(rec, "client.failed", {{"population", population}}), kCdnA, kCdnAEnd), 0) << population;
  }
  // Undone after its 10 min: the monitors see vendor-a healthy again and the CNAME goes back to it.
  EXPECT_GT(first_event(rec, "cdn.cname_switch", "cdn/europe", kCdnAEnd), kCdnAEnd);
}

}  // namespace
}  // namespace drsim
