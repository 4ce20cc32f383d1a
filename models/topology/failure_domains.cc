#include "models/topology/failure_domains.h"

#include <algorithm>

#include "models/topology/network_model.h"
#include "sim/errors.h"
#include "sim/simulation.h"

namespace drsim {

FailureDomains::FailureDomains(std::string name, Topology topology)
    : Component(std::move(name)), topology_(std::move(topology)), state_(topology_.nominal_state()) {
  zone_failed_.assign(topology_.zone_count(), false);
  region_failed_.assign(topology_.region_count(), false);
  link_cut_.assign(topology_.link_count(), false);
  link_degraded_.assign(topology_.link_count(), std::nullopt);
  zone_downtime_.assign(topology_.zone_count(), Duration::zero());
  region_downtime_.assign(topology_.region_count(), Duration::zero());
  link_downtime_.assign(topology_.link_count(), Duration::zero());
}

FailureDomains::~FailureDomains() = default;

const NetworkModel& FailureDomains::network() const {
  if (!network_) {
    network_ = std::make_unique<NetworkModel>(*this);
  } else if (network_stale_) {
    network_->refresh();
  }
  network_stale_ = false;
  return *network_;
}

Ratio FailureDomains::link_loss(LinkIndex l) const {
  const auto& d = link_degraded_[l];
  return d && d->loss ? *d->loss : topology_.config().links[l].loss;
}

Bandwidth FailureDomains::link_bandwidth(LinkIndex l) const {
  const auto& d = link_degraded_[l];
  return d && d->bandwidth ? *d->bandwidth : topology_.config().links[l].bandwidth;
}

void FailureDomains::attach() {
  Recorder& rec = recorder();
  for (ZoneIndex z = 0; z < topology_.zone_count(); ++z) {
    zone_up_series_.push_back(rec.series(
        "zone.up", {{"region", topology_.region_name(topology_.region_of(z))}, {"zone", topology_.zone_name(z)}}));
  }
  for (RegionIndex r = 0; r < topology_.region_count(); ++r) {
    region_zones_up_series_.push_back(rec.series("region.zones_up", {{"region", topology_.region_name(r)}}));
  }
  for (LinkIndex l = 0; l < topology_.link_count(); ++l) {
    const Labels labels{{"link", topology_.link_name(l)}};
    link_up_series_.push_back(rec.series("link.up", labels));
    link_rtt_series_.push_back(rec.series("link.rtt_s", labels));
    link_loss_series_.push_back(rec.series("link.loss", labels));
    link_bandwidth_series_.push_back(rec.series("link.bandwidth_bps", labels));
  }
  partitions_series_ = rec.series("topology.partitions");
}

void FailureDomains::start() { changed(); }

void FailureDomains::account_downtime() {
  const Duration elapsed = now() - accounted_until_;
  accounted_until_ = now();
  if (elapsed <= Duration::zero()) return;
  for (ZoneIndex z = 0; z < topology_.zone_count(); ++z) {
    if (!state_.zone_up[z]) zone_downtime_[z] += elapsed;
  }
  for (RegionIndex r = 0; r < topology_.region_count(); ++r) {
    const auto& zones = topology_.zones_of(r);
    if (std::none_of(zones.begin(), zones.end(), [&](ZoneIndex z) { return bool(state_.zone_up[z]); })) {
      region_downtime_[r] += elapsed;
    }
  }
  for (LinkIndex l = 0; l < topology_.link_count(); ++l) {
    if (!state_.link_up[l]) link_downtime_[l] += elapsed;
  }
}

// Recomputes the derived state from the causes, records it, and notifies.
void FailureDomains::changed() {
  account_downtime();
  network_stale_ = true;
  for (ZoneIndex z = 0; z < topology_.zone_count(); ++z) {
    state_.zone_up[z] = !zone_failed_[z] && !region_failed_[topology_.region_of(z)];
  }
  for (LinkIndex l = 0; l < topology_.link_count(); ++l) {
    state_.link_up[l] = !link_cut_[l];
    const Duration added = link_degraded_[l] ? link_degraded_[l]->added_rtt : Duration::zero();
    state_.link_rtt[l] = topology_.config().links[l].rtt + added;
  }

  Recorder& rec = recorder();
  const SimTime t = now();
  for (ZoneIndex z = 0; z < topology_.zone_count(); ++z) {
    rec.record_change(zone_up_series_[z], t, state_.zone_up[z] ? 1.0 : 0.0);
  }
  for (RegionIndex r = 0; r < topology_.region_count(); ++r) {
    const auto& zones = topology_.zones_of(r);
    const auto up = std::count_if(zones.begin(), zones.end(), [&](ZoneIndex z) { return bool(state_.zone_up[z]); });
    rec.record_change(region_zones_up_series_[r], t, static_cast<double>(up));
  }
  for (LinkIndex l = 0; l < topology_.link_count(); ++l) {
    rec.record_change(link_up_series_[l], t, state_.link_up[l] ? 1.0 : 0.0);
    rec.record_change(link_rtt_series_[l], t, to_seconds(state_.link_rtt[l]));
    rec.record_change(link_loss_series_[l], t, link_loss(l).value);
    rec.record_change(link_bandwidth_series_[l], t, link_bandwidth(l).bits_per_second);
  }
  const std::size_t partitions = topology_.partition_count(state_);
  max_partitions_ = std::max(max_partitions_, partitions);
  rec.record_change(partitions_series_, t, static_cast<double>(partitions));

  for (const auto& listener : listeners_) listener();
}

void FailureDomains::fail_zone(ZoneIndex z) {
  zone_failed_[z] = true;
  changed();
}
void FailureDomains::recover_zone(ZoneIndex z) {
  zone_failed_[z] = false;
  changed();
}
void FailureDomains::fail_region(RegionIndex r) {
  region_failed_[r] = true;
  changed();
}
void FailureDomains::recover_region(RegionIndex r) {
  region_failed_[r] = false;
  changed();
}
void FailureDomains::cut_link(LinkIndex l) {
  link_cut_[l] = true;
  changed();
}
void FailureDomains::end_cut(LinkIndex l) {
  link_cut_[l] = false;
  changed();
}
void FailureDomains::end_degradation(LinkIndex l) {
  link_degraded_[l].reset();
  changed();
}
void FailureDomains::degrade_link(LinkIndex l, LinkDegradation degradation) {
  link_degraded_[l] = degradation;
  changed();
}
void FailureDomains::restore_link(LinkIndex l) {
  link_cut_[l] = false;
  link_degraded_[l].reset();
  changed();
}

void FailureDomains::stop() {
  account_downtime();
  Recorder& rec = recorder();
  const double elapsed = to_seconds(now());
  for (ZoneIndex z = 0; z < topology_.zone_count(); ++z) {
    const Labels labels{{"region", topology_.region_name(topology_.region_of(z))}, {"zone", topology_.zone_name(z)}};
    const double down = to_seconds(zone_downtime_[z]);
    rec.kpi("zone.downtime_s", labels, down);
    rec.kpi("zone.availability", labels, elapsed > 0 ? 1.0 - down / elapsed : 1.0);
  }
  for (RegionIndex r = 0; r < topology_.region_count(); ++r) {
    rec.kpi("region.downtime_s", {{"region", topology_.region_name(r)}}, to_seconds(region_downtime_[r]));
  }
  for (LinkIndex l = 0; l < topology_.link_count(); ++l) {
    rec.kpi("link.downtime_s", {{"link", topology_.link_name(l)}}, to_seconds(link_downtime_[l]));
  }
  rec.kpi("topology.max_partitions", {}, static_cast<double>(max_partitions_));
}

}  // namespace drsim
