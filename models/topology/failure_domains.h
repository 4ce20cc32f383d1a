#pragma once
// The live state of the topology's failure domains: which zones and regions
// are up, which links are cut or degraded. It performs the zone:, region: and
// link: timeline actions (models/actions/topology_actions.cc calls it),
// records the state as series, and tells listeners
// (the models that route and serve requests) whenever it changes.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/topology/topology.h"
#include "sim/component.h"
#include "sim/recorder.h"
#include "sim/units.h"

namespace drsim {

class NetworkModel;

struct LinkDegradation {
  Duration added_rtt{};
  std::optional<Ratio> loss;
  std::optional<Bandwidth> bandwidth;
};

class FailureDomains : public Component {
 public:
  FailureDomains(std::string name, Topology topology);
  ~FailureDomains() override;

  // Delays between zones over what is up now; rebuilt lazily after a change.
  const NetworkModel& network() const;

  const Topology& topology() const { return topology_; }
  const TopologyState& state() const { return state_; }
  bool zone_up(ZoneIndex z) const { return state_.zone_up[z]; }
  Ratio link_loss(LinkIndex l) const;
  Bandwidth link_bandwidth(LinkIndex l) const;

  // A zone is down while it has failed itself or its region has failed; the
  // two causes are kept apart so that undoing one leaves the other in force.
  void fail_zone(ZoneIndex z);
  void recover_zone(ZoneIndex z);
  void fail_region(RegionIndex r);
  void recover_region(RegionIndex r);
  // A cut and a degradation are kept apart, so that the end of one (a
  // link:cut's or link:degrade's duration running out) leaves the other.
  void cut_link(LinkIndex l);
  void end_cut(LinkIndex l);
  void degrade_link(LinkIndex l, LinkDegradation degradation);
  void end_degradation(LinkIndex l);
  // Back to the configured link: neither cut nor degraded.
  void restore_link(LinkIndex l);

  // Called after every change of state, at the simulated time of the change.
  void on_change(std::function<void()> listener) { listeners_.push_back(std::move(listener)); }

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  void changed();
  void account_downtime();

  Topology topology_;
  TopologyState state_;
  std::vector<bool> zone_failed_;
  std::vector<bool> region_failed_;
  std::vector<bool> link_cut_;
  std::vector<std::optional<LinkDegradation>> link_degraded_;
  std::vector<std::function<void()>> listeners_;
  mutable std::unique_ptr<NetworkModel> network_;
  mutable bool network_stale_ = true;

  std::vector<SeriesId> zone_up_series_;
  std::vector<SeriesId> region_zones_up_series_;
  std::vector<SeriesId> link_up_series_;
  std::vector<SeriesId> link_rtt_series_;
  std::vector<SeriesId> link_loss_series_;
  std::vector<SeriesId> link_bandwidth_series_;
  SeriesId partitions_series_;

  // Downtime accounting, advanced at every change and at stop().
  SimTime accounted_until_{};
  std::vector<Duration> zone_downtime_;
  std::vector<Duration> region_downtime_;  // all of the region's zones down
  std::vector<Duration> link_downtime_;
  std::size_t max_partitions_ = 0;
};

}  // namespace drsim
