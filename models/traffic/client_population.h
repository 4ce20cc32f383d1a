#pragma once
// Clients that send requests to a service: an open arrival process (a rate
// profile, Poisson by default), a per-request timeout, and the end-to-end
// accounting of every request: it succeeds, fails for a cause (timeout,
// rejected, no_target, refused, dependency) or is still in flight, never vanishes.
// At stop it checks offered = succeeded + failed + in flight.
//
// Recorded per window, labelled population: client.offered,
// client.succeeded, client.failed (plus label cause), client.latency_*_s,
// client.in_flight. KPIs: the same totals, availability
// (succeeded / finished) and run latency quantiles.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/load/arrival_process.h"
#include "models/metrics/windowed_metrics.h"
#include "models/service/job.h"
#include "models/service/service.h"
#include "sim/component.h"
#include "sim/fields.h"

namespace drsim {

struct ClientPopulationConfig {
  std::string name;
  std::string service;  // entry service
  std::string zone;     // where the clients sit (for zone affinity); may be empty
  RateProfileConfig load;
  std::string arrivals = "poisson";  // poisson | deterministic
  std::optional<Duration> timeout;   // none: a black-holed request stays in flight

  static constexpr std::string_view kTypeName = "ClientPopulation";
  static constexpr auto fields() {
    return std::tuple{
        field("name", &ClientPopulationConfig::name, "Population name, unique in the scenario.", kRequired),
        field("service", &ClientPopulationConfig::service, "The service its requests enter.", kRequired),
        field("zone", &ClientPopulationConfig::zone, "The zone the clients sit in, for zone affinity."),
        field("load", &ClientPopulationConfig::load, "Request rate over time.", kRequired),
        field("arrivals", &ClientPopulationConfig::arrivals,
              "Arrival process: poisson (default) or deterministic (evenly spaced)."),
        field("timeout", &ClientPopulationConfig::timeout, "Clients give up after this long.", kPositive),
    };
  }
};

class ClientPopulation : public Component, public JobOwner {
 public:
  enum class Cause : std::uint8_t { kTimeout, kRejected, kNoTarget, kRefused, kDependency, kCount };
  static const char* to_string(Cause cause);

  ClientPopulation(ClientPopulationConfig config, Service& target, std::optional<ZoneIndex> zone,
                   Duration metrics_window = std::chrono::seconds(1));

  void on_served(std::uint64_t token, ServeOutcome outcome) override;

  std::uint64_t offered() const { return offered_; }
  std::uint64_t succeeded() const { return succeeded_; }
  std::uint64_t failed(Cause cause) const { return failed_[static_cast<std::size_t>(cause)]; }
  std::uint64_t failed_total() const;
  std::uint64_t in_flight() const { return in_flight_; }

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Slot {
    std::uint32_t generation = 0;  // odd while the request is in flight
    SimTime started{};
    EventId timeout;
    std::uint32_t next_free = 0;
  };

  void arrive();
  void schedule_next_arrival();
  std::uint32_t allocate();
  void release(std::uint32_t index);
  void fail(std::uint32_t index, Cause cause);

  ClientPopulationConfig config_;
  Service& target_;
  std::optional<ZoneIndex> zone_;
  ArrivalProcess arrivals_;
  Duration metrics_window_;
  std::vector<Slot> slots_;
  std::uint32_t free_head_ = 0;  // 1-based, 0: none

  std::uint64_t offered_ = 0;
  std::uint64_t succeeded_ = 0;
  std::array<std::uint64_t, static_cast<std::size_t>(Cause::kCount)> failed_{};
  std::uint64_t in_flight_ = 0;

  std::optional<WindowedMetrics> metrics_;
  CounterId offered_counter_, succeeded_counter_;
  std::array<CounterId, static_cast<std::size_t>(Cause::kCount)> failed_counters_{};
  LatencyId latency_;
  GaugeId in_flight_gauge_;
};

}  // namespace drsim
