#include "models/traffic/geo_router.h"

#include <algorithm>

#include "sim/errors.h"

namespace drsim {

std::vector<ConfigProblem> GeoRoutingConfig::validate() const {
  std::vector<ConfigProblem> problems;
  if (policy != "weighted" && policy != "latency" && policy != "failover") {
    problems.push_back({"policy", "expected weighted, latency or failover, got \"" + policy + "\""});
  }
  auto nest = [&problems](const std::string& prefix, std::vector<ConfigProblem> inner) {
    for (ConfigProblem& p : inner) problems.push_back({prefix + "." + p.field, std::move(p.message)});
  };
  if (health_check) nest("healthCheck", health_check->validate());
  if (dns) nest("dns", dns->validate());
  if (scheduler) {
    nest("scheduler", scheduler->validate());
    if (policy != "weighted") {
      problems.push_back({"scheduler", "expected policy weighted with a scheduler (it sets weights), got policy \"" +
                                           policy + "\""});
    }
    if (!health_check) {
      problems.push_back({"scheduler", "expected a healthCheck with a scheduler (its probes detect the regions)"});
    }
  }
  for (std::size_t i = 0; i < regions.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (regions[j].region == regions[i].region) {
        problems.push_back({"regions[" + std::to_string(i) + "].region",
                            "expected each region once, got \"" + regions[i].region + "\" again"});
      }
    }
  }
  if (rules_retry_interval <= Duration::zero()) problems.push_back({"rulesRetryInterval", "must be positive"});
  return problems;
}

GeoRouter::GeoRouter(const GeoRoutingConfig& config, const Topology& topology, std::optional<ZoneIndex> client_zone,
                     const std::vector<RegionIndex>& serving_regions)
    : ordered_(config.policy == "latency" || config.policy == "failover") {
  if (config.regions.empty()) {
    for (RegionIndex r : serving_regions) candidates_.push_back({r, 1.0, true});
  } else {
    for (const RegionWeightConfig& entry : config.regions) {
      const auto region = topology.find_region(entry.region);
      if (!region) throw SimulationError("routing: unknown region \"" + entry.region + "\"");
      candidates_.push_back({*region, entry.weight, true});
    }
  }
  if (config.policy != "latency") return;
  if (!client_zone) throw SimulationError("routing policy latency needs the population's zone");
  // Nearest region first, by the best nominal round trip to any of its zones;
  // ties keep the configured order.
  const TopologyState nominal = topology.nominal_state();
  auto distance = [&](RegionIndex r) {
    std::optional<Duration> best;
    for (ZoneIndex z : topology.zones_of(r)) {
      const auto rtt = topology.rtt(*client_zone, z, nominal);
      if (rtt && (!best || *rtt < *best)) best = rtt;
    }
    return best.value_or(Duration::max());
  };
  std::stable_sort(candidates_.begin(), candidates_.end(),
                   [&](const Candidate& a, const Candidate& b) { return distance(a.region) < distance(b.region); });
}

// Route 53's rule for weights that are all zero: answer with every
// available record alike. So a zero weight drains a region only while
// another available region has a positive one.
GeoRouter::Weights GeoRouter::weights() const {
  Weights w;
  for (const Candidate& c : candidates_) {
    if (!c.available) continue;
    w.total += c.weight;
    ++w.available;
  }
  w.all_zero = w.total <= 0;
  if (w.all_zero) w.total = static_cast<double>(w.available);
  return w;
}

std::vector<std::pair<RegionIndex, double>> GeoRouter::shares() const {
  // pick()'s rules, as fractions instead of draws.
  const Weights w = weights();
  std::vector<std::pair<RegionIndex, double>> out;
  for (const Candidate& c : candidates_) {
    if (!c.available || w.of(c) <= 0) continue;
    if (ordered_) return {{c.region, 1.0}};
    out.emplace_back(c.region, w.of(c) / w.total);
  }
  return out;
}

std::vector<RegionIndex> serving_regions(const std::vector<ZoneIndex>& zones, const Topology& topology) {
  std::vector<RegionIndex> regions;
  for (ZoneIndex z : zones) {
    const RegionIndex r = topology.region_of(z);
    if (std::find(regions.begin(), regions.end(), r) == regions.end()) regions.push_back(r);
  }
  return regions;
}

std::optional<RegionIndex> GeoRouter::pick(RngStream& rng) const {
  const Weights w = weights();
  if (w.available == 0) return std::nullopt;
  if (ordered_) {
    for (const Candidate& c : candidates_) {
      if (c.available && w.of(c) > 0) return c.region;
    }
    return std::nullopt;
  }
  double draw = rng.uniform() * w.total;
  std::optional<RegionIndex> last;
  for (const Candidate& c : candidates_) {
    if (!c.available || w.of(c) <= 0) continue;
    last = c.region;
    if (draw < w.of(c)) return c.region;
    draw -= w.of(c);
  }
  return last;  // rounding at the top end
}

GeoRouter::Candidate& GeoRouter::candidate(RegionIndex region) {
  for (Candidate& c : candidates_) {
    if (c.region == region) return c;
  }
  throw SimulationError("routing: region " + std::to_string(region) + " is not a candidate");
}

const GeoRouter::Candidate* GeoRouter::find(RegionIndex region) const {
  for (const Candidate& c : candidates_) {
    if (c.region == region) return &c;
  }
  return nullptr;
}

void GeoRouter::set_weight(RegionIndex region, double weight) {
  if (!(weight >= 0)) throw SimulationError("routing: weight must be non-negative");
  candidate(region).weight = weight;
}

void GeoRouter::set_available(RegionIndex region, bool available) { candidate(region).available = available; }

double GeoRouter::weight(RegionIndex region) const {
  const Candidate* c = find(region);
  return c ? c->weight : 0.0;
}

bool GeoRouter::available(RegionIndex region) const {
  const Candidate* c = find(region);
  return c != nullptr && c->available;
}

std::vector<RegionIndex> GeoRouter::regions() const {
  std::vector<RegionIndex> out;
  for (const Candidate& c : candidates_) out.push_back(c.region);
  return out;
}

}  // namespace drsim
