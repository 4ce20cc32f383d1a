#include "models/results/zone_rollup.h"

#include <algorithm>
#include <map>
#include <string>

namespace drsim {

namespace {

struct Load {
  double utilization_peak = 0;  // utilisations are >= 0
  double overload_service_s = 0;
  bool any = false;  // some service has pods here

  void add(const Load& other) {
    utilization_peak = std::max(utilization_peak, other.utilization_peak);
    overload_service_s += other.overload_service_s;
    any = any || other.any;
  }
};

}  // namespace

void record_zone_rollups(Recorder& recorder, const TopologyConfig& topology) {
  // The per-service KPIs, by zone: exactly the labels {service, zone}.
  std::map<std::string, Load> by_zone;
  for (const Recorder::Kpi& k : recorder.kpis()) {
    const bool peak = k.name == "zone.utilization_peak";
    if ((!peak && k.name != "zone.overload_s") || k.labels.size() != 2 || k.labels[0].first != "service" ||
        k.labels[1].first != "zone") {
      continue;
    }
    Load& load = by_zone[k.labels[1].second];
    load.any = true;
    if (peak) {
      load.utilization_peak = std::max(load.utilization_peak, k.value);
    } else {
      load.overload_service_s += k.value;
    }
  }
  for (const RegionConfig& region : topology.regions) {
    Load region_load;
    for (const ZoneConfig& zone : region.zones) {
      const auto it = by_zone.find(zone.name);
      if (it == by_zone.end()) continue;
      const Labels labels{{"zone", zone.name}};
      recorder.kpi("zone.utilization_peak", labels, it->second.utilization_peak);
      recorder.kpi("zone.overload_service_s", labels, it->second.overload_service_s);
      region_load.add(it->second);
    }
    if (!region_load.any) continue;
    const Labels labels{{"region", region.name}};
    recorder.kpi("region.utilization_peak", labels, region_load.utilization_peak);
    recorder.kpi("region.overload_service_s", labels, region_load.overload_service_s);
  }
}

}  // namespace drsim
