#include "models/kube/policy_recommendation.h"

#include <algorithm>

namespace drsim {

namespace {

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// The zones a policy is about: its list, or every zone when the list is empty.
std::vector<std::string> policy_zones(const DeploymentPolicyConfig& policy, std::span<const ZoneState> zones) {
  if (!policy.zones.empty()) return policy.zones;
  std::vector<std::string> all;
  for (const auto& z : zones) all.push_back(z.name);
  return all;
}

std::vector<std::string> surviving(const std::vector<std::string>& names, std::span<const ZoneState> zones) {
  std::vector<std::string> out;
  for (const auto& name : names) {
    const auto it = std::find_if(zones.begin(), zones.end(), [&](const auto& z) { return z.name == name; });
    if (it != zones.end() && it->can_take_pods) out.push_back(name);
  }
  return out;
}

std::string list_label(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void spread_candidates(const DeploymentPolicyConfig& current, std::span<const ZoneState> zones,
                       std::vector<PolicyCandidate>& out) {
  if (!current.extend) {
    DeploymentPolicyConfig p = current;
    p.extend = true;
    out.push_back({"extend: true", p});
  }
  if (current.max_zone_share.value < 1.0) {
    DeploymentPolicyConfig p = current;
    p.max_zone_share = Ratio{1.0};
    out.push_back({"maxZoneShare 100%", p});
  }
  // Fewer zones required: as many as survive in the list, or one fewer when any zone may be used.
  const auto alive = static_cast<std::uint32_t>(surviving(policy_zones(current, zones), zones).size());
  const std::uint32_t fewer =
      std::max<std::uint32_t>(1, current.zones.empty() ? current.min_zones - 1 : std::min(alive, current.min_zones));
  if (fewer < current.min_zones) {
    DeploymentPolicyConfig p = current;
    p.min_zones = fewer;
    out.push_back({"minZones " + std::to_string(fewer), p});
  }
  if (!current.extend && current.max_zone_share.value < 1.0) {
    DeploymentPolicyConfig p = current;
    p.extend = true;
    p.max_zone_share = Ratio{1.0};
    out.push_back({"extend: true, maxZoneShare 100%", p});
  }
  // Failed zones dropped from the list (what a migration needs: a fresh split then moves their pods).
  if (!current.zones.empty()) {
    const std::vector<std::string> alive_zones = surviving(current.zones, zones);
    if (!alive_zones.empty() && alive_zones.size() < current.zones.size()) {
      DeploymentPolicyConfig p = current;
      p.zones = alive_zones;
      p.min_zones = std::min<std::uint32_t>(current.min_zones, static_cast<std::uint32_t>(alive_zones.size()));
      p.max_zone_share = alive_zones.size() == 1 ? Ratio{1.0} : current.max_zone_share;
      out.push_back({"zones " + list_label(alive_zones) + " (failed zones dropped)", p});
    }
  }
}

void equal_candidates(const DeploymentPolicyConfig& current, std::span<const ZoneState> zones,
                      std::vector<PolicyCandidate>& out) {
  const std::vector<std::string> alive = surviving(current.zones, zones);
  if (alive.empty()) return;
  // Equal proportion cannot grow while a listed zone is down; spreading by capacity over the listed zones
  // that survive can.
  DeploymentPolicyConfig p;
  p.kind = "spread";
  p.zones = alive;
  p.min_zones = 1;
  p.max_zone_share = Ratio{1.0};
  out.push_back({"spread over " + list_label(alive), p});
  p.extend = true;
  out.push_back({"spread over " + list_label(alive) + ", extend: true", p});
}

void topology_candidates(const DeploymentPolicyConfig& current, std::span<const ZoneState> zones,
                         std::vector<PolicyCandidate>& out) {
  // A down zone with its pods (or with none, once they are evicted) keeps the global minimum low; taking it
  // out of the pods' zone affinity removes it from the domains.
  const std::vector<std::string> all = policy_zones(current, zones);
  const std::vector<std::string> alive = surviving(all, zones);
  if (!alive.empty() && alive.size() < all.size()) {
    DeploymentPolicyConfig p = current;
    p.zones = alive;
    out.push_back({"zones " + list_label(alive) + " (failed zones dropped)", p});
  }
  if (current.when_unsatisfiable != "ScheduleAnyway") {
    DeploymentPolicyConfig p = current;
    p.when_unsatisfiable = "ScheduleAnyway";
    p.min_domains = 1;  // minDomains is only valid with DoNotSchedule
    out.push_back({"whenUnsatisfiable ScheduleAnyway", p});
  }
}

std::vector<ZoneHeadroom> headroom(std::span<const ZoneState> zones, const ZoneSplit& split, bool migrate) {
  std::vector<ZoneHeadroom> out;
  for (std::size_t i = 0; i < zones.size(); ++i) {
    const ZoneState& z = zones[i];
    ZoneHeadroom h{z.name, 0};
    if (z.can_take_pods) {
      if (!z.free_capacity) {
        h.free = std::nullopt;
      } else {
        // A fresh split frees the zone's current pods first (see fresh_split).
        const std::int64_t total = std::int64_t{*z.free_capacity} + (migrate ? z.current : 0);
        const std::int64_t used = std::int64_t{split.targets[i].replicas} - (migrate ? 0 : z.current);
        h.free = static_cast<std::uint32_t>(std::max<std::int64_t>(0, total - std::max<std::int64_t>(0, used)));
      }
    }
    out.push_back(h);
  }
  return out;
}

std::uint32_t list_changes(const std::vector<std::string>& from, const std::vector<std::string>& to) {
  std::uint32_t n = 0;
  for (const auto& z : from) n += contains(to, z) ? 0 : 1;
  for (const auto& z : to) n += contains(from, z) ? 0 : 1;
  return n;
}

}  // namespace

std::uint32_t policy_deviation(const DeploymentPolicyConfig& from, const DeploymentPolicyConfig& to) {
  std::uint32_t d = 0;
  if (from.kind != to.kind) d += 4;
  d += list_changes(from.zones, to.zones);
  if (from.extend != to.extend) d += 1;
  if (from.max_zone_share != to.max_zone_share) d += to.max_zone_share > from.max_zone_share ? 2 : 1;
  if (to.min_zones < from.min_zones) d += 2 * (from.min_zones - to.min_zones);
  if (to.min_zones > from.min_zones) d += 1;
  if (from.max_skew != to.max_skew) d += 1;
  if (from.when_unsatisfiable != to.when_unsatisfiable) d += to.when_unsatisfiable == "ScheduleAnyway" ? 2 : 1;
  if (from.min_domains != to.min_domains) d += 1;
  return d;
}

std::vector<PolicyCandidate> candidate_policies(const DeploymentPolicyConfig& current,
                                               std::span<const ZoneState> zones) {
  std::vector<PolicyCandidate> out{{"current", current}};
  if (current.kind == "spread") spread_candidates(current, zones, out);
  if (current.kind == "equal") equal_candidates(current, zones, out);
  if (current.kind == "topologySpread") topology_candidates(current, zones, out);
  return out;
}

std::vector<PolicyRecommendation> recommend_policies(const RecommendationRequest& request) {
  std::vector<PolicyCandidate> candidates = candidate_policies(request.current, request.zones);
  candidates.insert(candidates.end(), request.extra.begin(), request.extra.end());
  std::vector<PolicyRecommendation> out;
  std::vector<DeploymentPolicyConfig> seen;
  for (const PolicyCandidate& c : candidates) {
    if (std::find(seen.begin(), seen.end(), c.policy) != seen.end()) continue;
    seen.push_back(c.policy);
    if (!c.policy.validate().empty()) continue;
    ZoneSplit split = request.migrate ? fresh_split(c.policy, request.zones, request.needed)
                                      : scale_split(c.policy, request.zones, request.needed);
    if (split.failed || split.pending > 0) continue;
    PolicyRecommendation r{c.label, c.policy, policy_deviation(request.current, c.policy), std::move(split), {}};
    r.headroom = headroom(request.zones, r.split, request.migrate);
    out.push_back(std::move(r));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.deviation < b.deviation; });
  return out;
}

}  // namespace drsim
