#pragma once
// Zone and region roll-ups of the services' load KPIs. Each service writes,
// per zone where it has pods, zone.utilization_peak and zone.overload_s
// labelled {service, zone} (models/service/service.h). Once the run is over
// this adds, per topology zone and per region, over the services with pods
// there:
//   zone.utilization_peak{zone}, region.utilization_peak{region}
//       the largest of those services' peaks: the busiest a service in the
//       zone (region) ever was, for an instant;
//   zone.overload_service_s{zone}, region.overload_service_s{region}
//       the sum of those services' overload seconds (time with requests
//       queued), in service-seconds: two services queuing for 10 s count 20.
// A sum rather than the union of the overload intervals because it is exact
// from what the services measure (each one's intervals are timed exactly, but
// only their total is kept), it adds up (a region's figure is the sum of its
// zones', which is the sum of the per-service KPIs), and it grows with the
// number of services in trouble, not only with how long the first one was.
// A zone or region without services gets no roll-up.
#include "models/topology/topology_config.h"
#include "sim/recorder.h"

namespace drsim {

void record_zone_rollups(Recorder& recorder, const TopologyConfig& topology);

}  // namespace drsim
