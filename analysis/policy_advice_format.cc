// The policy advice as text (for people) and as JSON (for CI and scripts);
// declared in analysis/policy_advice.h.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/policy_advice.h"
#include "sim/json_scalars.h"
#include "sim/units.h"

namespace drsim {

namespace {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string pad_left(const std::string& s, std::size_t width) {
  return s.size() < width ? std::string(width - s.size(), ' ') + s : s;
}

std::string split_list(const ZoneSplit& split) {
  std::vector<std::string> parts;
  for (const ZoneTarget& t : split.targets) parts.push_back(t.zone + " " + std::to_string(t.replicas));
  return join(parts, ", ");
}

// --- JSON --------------------------------------------------------------------

std::string json_count(const std::optional<std::uint32_t>& n) { return n ? std::to_string(*n) : "null"; }

std::string json_policy(const DeploymentPolicyConfig& p) {
  std::vector<std::string> zones;
  for (const auto& z : p.zones) zones.push_back(json_string(z));
  return "{\"kind\": " + json_string(p.kind) + ", \"zones\": [" + join(zones, ", ") +
         "], \"minZones\": " + std::to_string(p.min_zones) + ", \"maxZoneShare\": " +
         json_number_rounded(p.max_zone_share.value) + ", \"extend\": " + json_bool(p.extend) +
         ", \"maxSkew\": " + std::to_string(p.max_skew) + ", \"whenUnsatisfiable\": " +
         json_string(p.when_unsatisfiable) + ", \"minDomains\": " + std::to_string(p.min_domains) + "}";
}

// The split per zone, with the headroom when there is one (candidates).
std::string json_split(const ZoneSplit& split, const std::vector<ZoneHeadroom>* headroom) {
  std::vector<std::string> rows;
  for (std::size_t i = 0; i < split.targets.size(); ++i) {
    std::string row = "{\"zone\": " + json_string(split.targets[i].zone) +
                      ", \"replicas\": " + std::to_string(split.targets[i].replicas);
    if (headroom != nullptr) row += ", \"headroom\": " + json_count((*headroom)[i].free);
    rows.push_back(row + "}");
  }
  return "[" + join(rows, ", ") + "]";
}

}  // namespace

std::string policy_yaml_line(const DeploymentPolicyConfig& p) {
  std::vector<std::string> keys{"kind: " + p.kind};
  if (!p.zones.empty()) keys.push_back("zones: [" + join(p.zones, ", ") + "]");
  if (p.kind == "spread") {
    keys.push_back("minZones: " + std::to_string(p.min_zones));
    keys.push_back("maxZoneShare: " + format_ratio(p.max_zone_share));
    keys.push_back(std::string("extend: ") + (p.extend ? "true" : "false"));
  } else if (p.kind == "topologySpread") {
    keys.push_back("maxSkew: " + std::to_string(p.max_skew));
    keys.push_back("whenUnsatisfiable: " + p.when_unsatisfiable);
    if (p.when_unsatisfiable == "DoNotSchedule") keys.push_back("minDomains: " + std::to_string(p.min_domains));
  }
  return "{" + join(keys, ", ") + "}";
}

std::string format_policy_advice(const PolicyAdvice& a) {
  std::string out = a.service + ": zone " + a.failed_zone + " fails; " + std::to_string(a.needed) + " replicas needed";
  const std::string now = std::to_string(a.replicas_now) + " now, " + std::to_string(a.failed_zone_replicas) +
                          " of them in " + a.failed_zone;
  if (a.needed == a.replicas_now + a.failed_zone_replicas) {
    out += " (capacity compensation: " + std::to_string(a.replicas_now) + " + " +
           std::to_string(a.failed_zone_replicas) + " of " + a.failed_zone + ")\n";
  } else {
    out += " (" + now + ")\n";
  }
  out += a.migrate ? "evaluated as a migration: the split computed afresh, as deployment:policy applies it; the pods "
                     "of " + a.failed_zone + " move\n"
                   : "evaluated as a scale-out from the current assignment: " + a.failed_zone +
                         " keeps its replicas\n";

  // The zones as the parent scheduler sees them.
  std::size_t zw = 4;
  for (const ZoneState& z : a.zones) zw = std::max(zw, z.name.size());
  out += "\n  " + pad("zone", zw) + "  takes pods   replicas  free pods\n";
  for (const ZoneState& z : a.zones) {
    const std::string free = !z.can_take_pods ? "0" : z.free_capacity ? std::to_string(*z.free_capacity) : "no limit";
    out += "  " + pad(z.name, zw) + "  " + pad(z.can_take_pods ? "yes" : "no (failed)", 11) + "  " +
           pad_left(std::to_string(z.current), 8) + "  " + pad_left(free, 9) + "\n";
  }

  // What the declared policy does.
  const ZoneSplit& c = a.current;
  out += "\ndeclared policy " + policy_yaml_line(a.policy) + "\n";
  if (c.failed) {
    out += "  cannot be satisfied, the assignment stays (" + split_list(c) + "), " + std::to_string(c.pending) +
           " pending: " + c.reason + "\n";
  } else if (c.pending > 0) {
    out += "  places " + std::to_string(c.placed()) + " of " + std::to_string(a.needed) + " (" + split_list(c) +
           "), " + std::to_string(c.pending) + " pending: " + c.reason + "\n";
  } else {
    out += "  places all " + std::to_string(a.needed) + " (" + split_list(c) + "): no policy change needed\n";
  }

  if (!a.allowed()) {
    out += "\nno candidate policy places all " + std::to_string(a.needed) +
           " replicas: add node capacity, or lower the need (traffic degradation)\n";
    return out;
  }

  // The candidates: one row each, the policy to paste under it.
  out += "\n" + std::to_string(a.candidates.size()) +
         (a.candidates.size() == 1 ? " candidate allows" : " candidates allow") +
         " the scale-out, least deviation first (replicas per zone, +pods it can still take):\n";
  std::size_t lw = 9;
  for (const PolicyRecommendation& r : a.candidates) lw = std::max(lw, r.label.size());
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> cw;
  for (const ZoneState& z : a.zones) cw.push_back(z.name.size());
  for (const PolicyRecommendation& r : a.candidates) {
    std::vector<std::string> row;
    for (std::size_t i = 0; i < a.zones.size(); ++i) {
      const std::uint32_t n = r.split.targets[i].replicas;
      const std::optional<std::uint32_t>& free = r.headroom[i].free;
      const std::string cell = std::to_string(n) + (!a.zones[i].can_take_pods ? " down"
                                                    : free ? " +" + std::to_string(*free)
                                                           : " +inf");
      cw[i] = std::max(cw[i], cell.size());
      row.push_back(cell);
    }
    cells.push_back(std::move(row));
  }
  out += "  deviation  " + pad("candidate", lw);
  for (std::size_t i = 0; i < a.zones.size(); ++i) out += "  " + pad(a.zones[i].name, cw[i]);
  out += "\n";
  for (std::size_t k = 0; k < a.candidates.size(); ++k) {
    std::string line = "  " + pad_left(std::to_string(a.candidates[k].deviation), 9) + "  " +
                       pad(a.candidates[k].label, lw);
    for (std::size_t i = 0; i < a.zones.size(); ++i) line += "  " + pad(cells[k][i], cw[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    out += "  " + std::string(9, ' ') + "  policy: " + policy_yaml_line(a.candidates[k].policy) + "\n";
  }
  return out;
}

std::string format_policy_advice_json(const PolicyAdvice& a) {
  std::string out = "{\n  \"service\": " + json_string(a.service) + ",\n  \"failed_zone\": " +
                    json_string(a.failed_zone) + ",\n  \"mode\": " + json_string(a.migrate ? "migrate" : "scale") +
                    ",\n  \"replicas_now\": " + std::to_string(a.replicas_now) +
                    ",\n  \"failed_zone_replicas\": " + std::to_string(a.failed_zone_replicas) +
                    ",\n  \"needed\": " + std::to_string(a.needed) + ",\n  \"allowed\": " + json_bool(a.allowed()) +
                    ",\n  \"zones\": [";
  for (std::size_t i = 0; i < a.zones.size(); ++i) {
    const ZoneState& z = a.zones[i];
    out += std::string(i ? "," : "") + "\n    {\"zone\": " + json_string(z.name) +
           ", \"can_take_pods\": " + json_bool(z.can_take_pods) + ", \"replicas\": " + std::to_string(z.current) +
           ", \"free_pods\": " + json_count(z.can_take_pods ? z.free_capacity : std::optional<std::uint32_t>(0)) +
           "}";
  }
  const ZoneSplit& c = a.current;
  out += "\n  ],\n  \"current\": {\"policy\": " + json_policy(a.policy) +
         ", \"yaml\": " + json_string(policy_yaml_line(a.policy)) + ", \"failed\": " + json_bool(c.failed) +
         ", \"placed\": " + std::to_string(c.placed()) + ", \"pending\": " + std::to_string(c.pending) +
         ", \"reason\": " + (c.reason.empty() ? std::string("null") : json_string(c.reason)) +
         ", \"split\": " + json_split(c, nullptr) + "},\n  \"candidates\": [";
  for (std::size_t k = 0; k < a.candidates.size(); ++k) {
    const PolicyRecommendation& r = a.candidates[k];
    out += std::string(k ? "," : "") + "\n    {\"label\": " + json_string(r.label) +
           ", \"deviation\": " + std::to_string(r.deviation) + ", \"policy\": " + json_policy(r.policy) +
           ", \"yaml\": " + json_string(policy_yaml_line(r.policy)) +
           ", \"split\": " + json_split(r.split, &r.headroom) +
           "}";
  }
  out += a.candidates.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace drsim
