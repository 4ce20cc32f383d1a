#include "models/kube/topology_spread.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace drsim {

namespace {

constexpr std::int64_t kMaxNodeScore = 100;

bool has_room(const SpreadDomain& d) { return !d.free || *d.free > 0; }

// Eligible for the pod at all: passes the other filters, is a domain of the constraint (a node without the
// affinity-matching zone never reaches the skew check), and still has room.
bool usable(const SpreadDomain& d) { return d.eligible && d.counted && has_room(d); }

std::size_t counted_domains(std::span<const SpreadDomain> domains) {
  const auto counted = [](const SpreadDomain& d) { return d.counted; };
  return static_cast<std::size_t>(std::count_if(domains.begin(), domains.end(), counted));
}

// Index of the counted domain holding the global minimum (first in input order), if any.
std::optional<std::size_t> min_domain(std::span<const SpreadDomain> domains) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < domains.size(); ++i) {
    if (!domains[i].counted) continue;
    if (!best || domains[i].matching < domains[*best].matching) best = i;
  }
  return best;
}

std::string why_blocked(std::span<const SpreadDomain> domains, const SpreadConstraint& c) {
  std::string reason;
  const auto add = [&](const std::string& part) { reason += (reason.empty() ? "" : "; ") + part; };
  const std::uint32_t global_min = spread_global_min(domains, c);
  for (std::size_t i = 0; i < domains.size(); ++i) {
    const SpreadDomain& d = domains[i];
    if (!d.counted) {
      add(d.zone + " has no node matching the pod's zone affinity");
    } else if (!d.eligible) {
      add(d.zone + " cannot take pods");
    } else if (!has_room(d)) {
      add(d.zone + " has no free capacity");
    } else if (c.when_unsatisfiable == WhenUnsatisfiable::kDoNotSchedule) {
      add(d.zone + " would have skew " + std::to_string(spread_skew_with_pod(domains, i, c)) + " > maxSkew " +
          std::to_string(c.max_skew));
    }
  }
  if (c.when_unsatisfiable == WhenUnsatisfiable::kDoNotSchedule) {
    const std::size_t counted = counted_domains(domains);
    if (counted < c.min_domains) {
      add("global minimum 0: " + std::to_string(counted) + " zone(s) < minDomains " + std::to_string(c.min_domains));
    } else if (const auto m = min_domain(domains)) {
      add("global minimum " + std::to_string(global_min) + " in " + domains[*m].zone);
    }
  }
  return reason;
}

}  // namespace

const char* to_string(WhenUnsatisfiable when) {
  return when == WhenUnsatisfiable::kScheduleAnyway ? "ScheduleAnyway" : "DoNotSchedule";
}

std::optional<WhenUnsatisfiable> when_unsatisfiable_from_string(std::string_view name) {
  if (name == "DoNotSchedule") return WhenUnsatisfiable::kDoNotSchedule;
  if (name == "ScheduleAnyway") return WhenUnsatisfiable::kScheduleAnyway;
  return std::nullopt;
}

std::uint32_t spread_global_min(std::span<const SpreadDomain> domains, const SpreadConstraint& c) {
  // WHY 0 below minDomains: upstream wants pods to spread onto domains that do not exist yet (e.g. zones the
  // cluster autoscaler can still bring up), so it pretends an empty domain exists.
  if (counted_domains(domains) < c.min_domains) return 0;
  const auto m = min_domain(domains);
  return m ? domains[*m].matching : 0;
}

std::int64_t spread_skew_with_pod(std::span<const SpreadDomain> domains, std::size_t i, const SpreadConstraint& c) {
  return static_cast<std::int64_t>(domains[i].matching) + (c.self_match ? 1 : 0) -
         static_cast<std::int64_t>(spread_global_min(domains, c));
}

std::vector<bool> spread_filter(std::span<const SpreadDomain> domains, const SpreadConstraint& c) {
  std::vector<bool> pass(domains.size(), false);
  for (std::size_t i = 0; i < domains.size(); ++i) {
    if (!usable(domains[i])) continue;
    pass[i] = c.when_unsatisfiable == WhenUnsatisfiable::kScheduleAnyway ||
              spread_skew_with_pod(domains, i, c) <= static_cast<std::int64_t>(c.max_skew);
  }
  return pass;
}

std::vector<std::int64_t> spread_scores(std::span<const SpreadDomain> domains, const SpreadConstraint& c) {
  // The topology weight depends on how many distinct zones passed the filters (PreScore's topoSize), so
  // that a count in a small topology is not watered down.
  std::size_t zones = 0;
  for (const auto& d : domains) zones += usable(d) ? 1 : 0;
  const double weight = std::log(static_cast<double>(zones + 2));
  std::vector<std::int64_t> raw(domains.size(), 0);
  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = 0;
  for (std::size_t i = 0; i < domains.size(); ++i) {
    if (!usable(domains[i])) continue;
    const double s = static_cast<double>(domains[i].matching) * weight + static_cast<double>(c.max_skew) - 1.0;
    raw[i] = static_cast<std::int64_t>(std::llround(s));
    lo = std::min(lo, raw[i]);
    hi = std::max(hi, raw[i]);
  }
  std::vector<std::int64_t> scores(domains.size(), 0);
  for (std::size_t i = 0; i < domains.size(); ++i) {
    if (!usable(domains[i])) continue;
    scores[i] = hi == 0 ? kMaxNodeScore : kMaxNodeScore * (hi + lo - raw[i]) / hi;
  }
  return scores;
}

std::optional<std::size_t> spread_pick(std::span<const SpreadDomain> domains, const SpreadConstraint& c) {
  const std::vector<bool> pass = spread_filter(domains, c);
  std::optional<std::size_t> best;
  if (c.when_unsatisfiable == WhenUnsatisfiable::kScheduleAnyway) {
    const std::vector<std::int64_t> scores = spread_scores(domains, c);
    for (std::size_t i = 0; i < domains.size(); ++i) {
      if (pass[i] && (!best || scores[i] > scores[*best])) best = i;
    }
    return best;
  }
  for (std::size_t i = 0; i < domains.size(); ++i) {
    if (pass[i] && (!best || domains[i].matching < domains[*best].matching)) best = i;
  }
  return best;
}

SpreadPlacement spread_place(std::vector<SpreadDomain> domains, const SpreadConstraint& c, std::uint32_t n) {
  SpreadPlacement out;
  out.added.assign(domains.size(), 0);
  for (std::uint32_t k = 0; k < n; ++k) {
    const auto zone = spread_pick(domains, c);
    if (!zone) {
      out.unplaced = n - k;
      out.reason = why_blocked(domains, c);
      break;
    }
    ++out.added[*zone];
    if (c.self_match) ++domains[*zone].matching;
    if (domains[*zone].free) --*domains[*zone].free;
  }
  return out;
}

}  // namespace drsim
