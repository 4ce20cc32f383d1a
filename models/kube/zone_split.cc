#include "models/kube/zone_split.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "models/kube/topology_spread.h"

namespace drsim {

namespace {

using Counts = std::vector<std::uint32_t>;
constexpr std::uint32_t kUnlimited = std::numeric_limits<std::uint32_t>::max();

bool listed(const DeploymentPolicyConfig& policy, std::string_view zone) {
  return std::find(policy.zones.begin(), policy.zones.end(), zone) != policy.zones.end();
}

std::uint32_t sum(const Counts& c) { return std::accumulate(c.begin(), c.end(), 0u); }

// New pods the zone can take: 0 when it is down, kUnlimited when its capacity is not bounded.
Counts initial_room(std::span<const ZoneState> zones) {
  Counts room(zones.size(), 0);
  for (std::size_t i = 0; i < zones.size(); ++i) {
    if (zones[i].can_take_pods) room[i] = zones[i].free_capacity.value_or(kUnlimited);
  }
  return room;
}

// "75%", "66.7%": a share for a message, one decimal at most.
std::string percent(double share) {
  char buf[32];
  const double tenths = std::round(share * 1000.0) / 10.0;
  std::snprintf(buf, sizeof buf, tenths == std::floor(tenths) ? "%.0f%%" : "%.1f%%", tenths);
  return buf;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
  return out;
}

ZoneSplit make_split(std::span<const ZoneState> zones, const Counts& target, std::uint32_t desired) {
  ZoneSplit split;
  for (std::size_t i = 0; i < zones.size(); ++i) split.targets.push_back({zones[i].name, target[i]});
  const std::uint32_t placed = sum(target);
  split.pending = desired > placed ? desired - placed : 0;
  return split;
}

// The policy cannot be satisfied: the parent keeps the current topology and the rest pends.
ZoneSplit failed_split(std::span<const ZoneState> zones, std::uint32_t desired, std::string reason) {
  Counts current(zones.size());
  for (std::size_t i = 0; i < zones.size(); ++i) current[i] = zones[i].current;
  ZoneSplit split = make_split(zones, current, desired);
  split.failed = true;
  split.reason = std::move(reason);
  return split;
}

// ---- scale-in ----------------------------------------------------------------

// Removes `count` replicas following the documented preference; `allowed[i]` is what the policy allows in
// zone i for the new total (kUnlimited: no limit), `outside[i]` marks zones the policy wants empty.
void scale_in(std::span<const ZoneState> zones, Counts& target, std::uint32_t count, const Counts& allowed,
              const std::vector<bool>& outside) {
  for (std::uint32_t k = 0; k < count; ++k) {
    std::optional<std::size_t> best;
    auto key = [&](std::size_t i) {
      const std::uint32_t excess = target[i] > allowed[i] ? target[i] - allowed[i] : 0;
      return std::tuple{outside[i], excess, !zones[i].can_take_pods, target[i], i};
    };
    for (std::size_t i = 0; i < zones.size(); ++i) {
      if (target[i] == 0) continue;
      if (!best || key(i) > key(*best)) best = i;
    }
    if (!best) return;
    --target[*best];
  }
}

// ---- spread --------------------------------------------------------------------

std::uint32_t share_cap(const DeploymentPolicyConfig& policy, std::uint32_t desired) {
  // WHY at least 1: a cap cannot forbid a zone its first replica, or a service smaller than 1 / share could
  // not run at all. The epsilon keeps 50% of 4 at 2 despite binary fractions.
  const double cap = std::floor(policy.max_zone_share.value * static_cast<double>(desired) + 1e-9);
  return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(cap));
}

// More room first (unlimited beats any number), then fewer replicas, then input order.
bool better_for_new_replica(const Counts& room, const Counts& target, std::size_t a, std::size_t b) {
  if (room[a] != room[b]) return room[a] > room[b];
  if (target[a] != target[b]) return target[a] < target[b];
  return a < b;
}

struct SpreadState {
  std::vector<bool> active;  // zones the split may add to: the base set plus extension zones that joined
  std::vector<bool> base;
  Counts target;
  Counts room;
  std::uint32_t cap = 0;
};

bool can_add(const SpreadState& s, std::size_t i) { return s.room[i] > 0 && s.target[i] < s.cap; }

std::optional<std::size_t> best_zone(const SpreadState& s, bool in_active, bool only_empty = false) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < s.target.size(); ++i) {
    if (s.active[i] != in_active || !can_add(s, i) || (only_empty && s.target[i] > 0)) continue;
    if (!best || better_for_new_replica(s.room, s.target, i, *best)) best = i;
  }
  return best;
}

void add_one(SpreadState& s, std::size_t i) {
  ++s.target[i];
  if (s.room[i] != kUnlimited) --s.room[i];
}

std::uint32_t zones_in_use(const Counts& target) {
  return static_cast<std::uint32_t>(std::count_if(target.begin(), target.end(), [](auto n) { return n > 0; }));
}

std::vector<bool> spread_base(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones,
                              const Counts& start, const Counts& room) {
  std::vector<bool> base(zones.size(), false);
  if (!policy.zones.empty()) {
    for (std::size_t i = 0; i < zones.size(); ++i) base[i] = listed(policy, zones[i].name);
    return base;
  }
  // No list: the zones in use, topped up to minZones with the zones of most free capacity. WHY sticky: the
  // article's "2 AZs, extension off" policy, once on AZ-3 and AZ-4, cannot move on to AZ-5 by itself.
  std::uint32_t used = 0;
  for (std::size_t i = 0; i < zones.size(); ++i) {
    base[i] = start[i] > 0;
    used += base[i] ? 1 : 0;
  }
  while (used < policy.min_zones) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < zones.size(); ++i) {
      if (base[i] || room[i] == 0) continue;
      if (!best || better_for_new_replica(room, start, i, *best)) best = i;
    }
    if (!best) break;
    base[*best] = true;
    ++used;
  }
  return base;
}

// What stopped the fill, zone by zone: the rule each blocked zone ran into.
std::vector<std::string> spread_blockers(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones,
                                         const SpreadState& s, std::uint32_t desired) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < zones.size(); ++i) {
    if (!s.active[i]) continue;
    const std::string& z = zones[i].name;
    if (!zones[i].can_take_pods) {
      parts.push_back(z + " cannot take pods (down)");
    } else if (s.room[i] == 0) {
      parts.push_back(z + " has no free capacity");
    } else if (s.target[i] >= s.cap) {
      parts.push_back("zone " + z + " would hold " + percent(double(s.target[i] + 1) / desired) + " > maxZoneShare " +
                      format_ratio(policy.max_zone_share));
    }
  }
  for (const auto& name : policy.zones) {
    const bool known = std::any_of(zones.begin(), zones.end(), [&](const auto& z) { return z.name == name; });
    if (!known) parts.push_back(name + " is not a known zone");
  }
  std::vector<std::string> unused;
  for (std::size_t i = 0; i < zones.size(); ++i) {
    if (!s.active[i] && s.room[i] > 0) unused.push_back(zones[i].name);
  }
  if (!policy.extend && !unused.empty()) {
    parts.push_back("extend is false, so " + join(unused, ", ") + " cannot be used");
  } else if (policy.extend) {
    parts.push_back("no zone outside the base set can take more");
  }
  return parts;
}

ZoneSplit spread_out(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones, const Counts& start,
                     std::uint32_t desired) {
  SpreadState s;
  s.target = start;
  s.room = initial_room(zones);
  s.cap = share_cap(policy, desired);
  s.base = spread_base(policy, zones, start, s.room);
  s.active = s.base;
  std::uint32_t left = desired - sum(start);
  const std::uint32_t needed_zones = std::min(policy.min_zones, desired);
  // minZones first: seed one replica into the best empty zones of the base set (WHY: the greedy fill alone
  // would pour everything into one big zone when capacities differ).
  while (left > 0 && zones_in_use(s.target) < needed_zones) {
    auto zone = best_zone(s, true, /*only_empty=*/true);
    if (!zone && policy.extend) {
      // The base set cannot supply enough zones (one is down): extension may.
      zone = best_zone(s, false, /*only_empty=*/true);
      if (zone) s.active[*zone] = true;
    }
    if (!zone) break;
    add_one(s, *zone);
    --left;
  }
  while (left > 0) {
    auto zone = best_zone(s, true);
    if (!zone && policy.extend) {
      // The base set is short: the best zone outside it joins, and the fill goes on over the larger set.
      if (const auto extra = best_zone(s, false)) {
        s.active[*extra] = true;
        continue;
      }
    }
    if (!zone) break;
    add_one(s, *zone);
    --left;
  }
  if (zones_in_use(s.target) < needed_zones) {
    // Too few zones: say why each empty zone stayed empty.
    std::vector<std::string> parts{"replicas would be in " + std::to_string(zones_in_use(s.target)) +
                                   " zone(s) < minZones " + std::to_string(policy.min_zones)};
    std::vector<std::string> unused;
    for (std::size_t i = 0; i < zones.size(); ++i) {
      if (s.target[i] > 0) continue;
      if (!zones[i].can_take_pods) {
        parts.push_back(zones[i].name + " cannot take pods (down)");
      } else if (s.room[i] == 0) {
        parts.push_back(zones[i].name + " has no free capacity");
      } else if (!s.active[i]) {
        unused.push_back(zones[i].name);
      }
    }
    if (!unused.empty()) parts.push_back("extend is false, so " + join(unused, ", ") + " cannot be used");
    return failed_split(zones, desired, "policy spread: " + join(parts, "; "));
  }
  ZoneSplit split = make_split(zones, s.target, desired);
  if (split.pending > 0) split.reason = "policy spread: " + join(spread_blockers(policy, zones, s, desired), "; ");
  return split;
}

ZoneSplit spread_split(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones, const Counts& start,
                       std::uint32_t desired) {
  if (desired >= sum(start)) return spread_out(policy, zones, start, desired);
  Counts target = start;
  const std::uint32_t cap = share_cap(policy, desired);
  const Counts allowed(zones.size(), cap);
  std::vector<bool> outside(zones.size(), false);
  for (std::size_t i = 0; i < zones.size(); ++i) outside[i] = !policy.zones.empty() && !listed(policy, zones[i].name);
  scale_in(zones, target, sum(start) - desired, allowed, outside);
  return make_split(zones, target, desired);
}

// ---- equal ---------------------------------------------------------------------

ZoneSplit equal_split(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones, const Counts& start,
                      std::uint32_t desired) {
  const std::string prefix = "policy equal over " + join(policy.zones, ", ") + ": ";
  std::vector<std::size_t> members;  // input index of each listed zone, in list order
  for (const auto& name : policy.zones) {
    const auto it = std::find_if(zones.begin(), zones.end(), [&](const auto& z) { return z.name == name; });
    if (it == zones.end()) return failed_split(zones, desired, prefix + name + " is not a known zone");
    members.push_back(static_cast<std::size_t>(it - zones.begin()));
  }
  if (members.empty()) return failed_split(zones, desired, "policy equal: no zones listed");
  Counts target = start;
  // Replicas outside the listed zones are kept by a scale-out (existing replicas do not move) and are the
  // first to go in a scale-in; the listed zones share the rest equally.
  std::vector<bool> outside(zones.size(), true);
  for (const std::size_t i : members) outside[i] = false;
  std::uint32_t outside_total = 0;
  for (std::size_t i = 0; i < zones.size(); ++i) outside_total += outside[i] ? target[i] : 0;
  if (desired < sum(start) && outside_total > 0) {
    const std::uint32_t drop = std::min(outside_total, sum(start) - desired);
    scale_in(zones, target, drop, Counts(zones.size(), 0), outside);
    outside_total -= drop;
  }
  const std::uint32_t share = desired > outside_total ? desired - outside_total : 0;
  const auto k = static_cast<std::uint32_t>(members.size());
  // Remainder rule: one extra replica each for the zones holding most replicas now, then list order, so a
  // scale-in by one from 11/11 gives 11/10 rather than moving a pod.
  std::vector<std::size_t> order(members.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return start[members[a]] > start[members[b]]; });
  Counts want(members.size(), share / k);
  for (std::uint32_t r = 0; r < share % k; ++r) ++want[order[r]];
  std::vector<std::string> down;
  for (std::size_t m = 0; m < members.size(); ++m) {
    const std::size_t i = members[m];
    if (want[m] > target[i] && !zones[i].can_take_pods) down.push_back(zones[i].name);
  }
  if (!down.empty()) return failed_split(zones, desired, prefix + join(down, ", ") + " cannot take pods");
  std::vector<std::string> full;
  for (std::size_t m = 0; m < members.size(); ++m) {
    const std::size_t i = members[m];
    if (want[m] <= target[i]) {
      target[i] = want[m];
      continue;
    }
    const std::uint32_t room = zones[i].free_capacity.value_or(kUnlimited);
    const std::uint32_t add = std::min(want[m] - target[i], room);
    if (add < want[m] - target[i]) full.push_back(zones[i].name);
    target[i] += add;
  }
  ZoneSplit split = make_split(zones, target, desired);
  if (split.pending > 0) split.reason = prefix + join(full, ", ") + " short of free capacity";
  return split;
}

// ---- topologySpread ------------------------------------------------------------

ZoneSplit topology_split(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones, const Counts& start,
                         std::uint32_t desired) {
  std::vector<bool> allowed(zones.size(), true);
  if (!policy.zones.empty()) {
    for (std::size_t i = 0; i < zones.size(); ++i) allowed[i] = listed(policy, zones[i].name);
  }
  if (desired < sum(start)) {
    Counts target = start;
    std::vector<bool> outside(zones.size());
    for (std::size_t i = 0; i < zones.size(); ++i) outside[i] = !allowed[i];
    scale_in(zones, target, sum(start) - desired, Counts(zones.size(), kUnlimited), outside);
    return make_split(zones, target, desired);
  }
  // Zones outside the list are not domains: the pods' node affinity excludes their nodes. A down zone stays
  // a domain (its nodes exist; nodeTaintsPolicy Ignore) but is not eligible.
  std::vector<SpreadDomain> domains;
  for (std::size_t i = 0; i < zones.size(); ++i) {
    domains.push_back({zones[i].name, start[i], allowed[i], zones[i].can_take_pods, zones[i].free_capacity});
  }
  SpreadConstraint c;
  c.max_skew = policy.max_skew;
  c.min_domains = policy.min_domains;
  c.when_unsatisfiable =
      when_unsatisfiable_from_string(policy.when_unsatisfiable).value_or(WhenUnsatisfiable::kDoNotSchedule);
  // Only the allowed zones are offered; the others would only add "no matching node" noise to the reason.
  std::vector<SpreadDomain> offered;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < zones.size(); ++i) {
    if (!allowed[i]) continue;
    offered.push_back(domains[i]);
    index.push_back(i);
  }
  const SpreadPlacement placed = spread_place(offered, c, desired - sum(start));
  Counts target = start;
  for (std::size_t j = 0; j < index.size(); ++j) target[index[j]] += placed.added[j];
  ZoneSplit split = make_split(zones, target, desired);
  if (split.pending > 0) {
    split.reason = "policy topologySpread: " + (placed.reason.empty() ? std::string("no zone allowed") : placed.reason);
  }
  return split;
}

ZoneSplit dispatch(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones, const Counts& start,
                   std::uint32_t desired) {
  if (policy.kind == "equal") return equal_split(policy, zones, start, desired);
  if (policy.kind == "topologySpread") return topology_split(policy, zones, start, desired);
  if (policy.kind == "spread") return spread_split(policy, zones, start, desired);
  return failed_split(zones, desired, "unknown policy kind \"" + policy.kind + "\"");
}

}  // namespace

std::vector<ConfigProblem> DeploymentPolicyConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (kind != "spread" && kind != "equal" && kind != "topologySpread") {
    problems.push_back({"kind", "expected spread, equal or topologySpread, got \"" + kind + "\""});
  }
  for (std::size_t i = 0; i < zones.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (zones[j] == zones[i]) {
        problems.push_back({"zones[" + std::to_string(i) + "]", "zone \"" + zones[i] + "\" is listed twice"});
      }
    }
  }
  if (kind == "equal" && zones.empty()) problems.push_back({"zones", "policy equal needs at least one zone"});
  if (min_zones == 0) problems.push_back({"minZones", "must be at least 1"});
  if (max_zone_share.value <= 0 || max_zone_share.value > 1) {
    problems.push_back({"maxZoneShare", "expected a share above 0% and at most 100%"});
  }
  if (kind == "spread" && !extend && !zones.empty()) {
    if (min_zones > zones.size()) {
      problems.push_back({"minZones", "asks for more zones than are listed, and extend is false"});
    }
    // WHY: k zones capped at share each hold at most k x share of the replicas; below 100% the policy can
    // never place them all.
    if (max_zone_share.value * static_cast<double>(zones.size()) < 1.0 - 1e-9) {
      problems.push_back({"maxZoneShare", "the listed zones together cannot hold all replicas at this share"});
    }
  }
  if (max_skew == 0) problems.push_back({"maxSkew", "must be at least 1"});
  const auto when = when_unsatisfiable_from_string(when_unsatisfiable);
  if (!when) {
    problems.push_back(
        {"whenUnsatisfiable", "expected DoNotSchedule or ScheduleAnyway, got \"" + when_unsatisfiable + "\""});
  }
  if (min_domains == 0) problems.push_back({"minDomains", "must be at least 1"});
  // Kubernetes API validation: minDomains only applies to a hard constraint.
  if (min_domains > 1 && when == WhenUnsatisfiable::kScheduleAnyway) {
    problems.push_back({"minDomains", "only allowed with whenUnsatisfiable DoNotSchedule"});
  }
  return problems;
}

DeploymentPolicyConfig non_financial_baseline() {
  DeploymentPolicyConfig p;
  p.min_zones = 2;
  p.max_zone_share = Ratio{0.67};
  return p;
}

DeploymentPolicyConfig financial_baseline() {
  DeploymentPolicyConfig p;
  p.min_zones = 3;
  p.max_zone_share = Ratio{0.5};
  return p;
}

std::uint32_t ZoneSplit::placed() const {
  std::uint32_t n = 0;
  for (const auto& t : targets) n += t.replicas;
  return n;
}

std::uint32_t ZoneSplit::replicas_in(std::string_view zone) const {
  for (const auto& t : targets) {
    if (t.zone == zone) return t.replicas;
  }
  return 0;
}

ZoneSplit scale_split(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones, std::uint32_t desired) {
  Counts start(zones.size());
  for (std::size_t i = 0; i < zones.size(); ++i) start[i] = zones[i].current;
  return dispatch(policy, zones, start, desired);
}

ZoneSplit fresh_split(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones, std::uint32_t desired) {
  // From scratch: no replica is anywhere yet, and every zone's whole capacity is available (the pods the
  // rolling update replaces free theirs as they go).
  std::vector<ZoneState> empty(zones.begin(), zones.end());
  for (auto& z : empty) {
    if (z.free_capacity) *z.free_capacity += z.current;
    z.current = 0;
  }
  ZoneSplit split = dispatch(policy, empty, Counts(zones.size(), 0), desired);
  if (split.failed) {
    // A rejected policy change keeps the running topology.
    ZoneSplit kept = failed_split(zones, desired, split.reason);
    return kept;
  }
  return split;
}

}  // namespace drsim
