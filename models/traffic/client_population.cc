#include "models/traffic/client_population.h"

#include "sim/errors.h"
#include "sim/simulation.h"

namespace drsim {

const char* ClientPopulation::to_string(Cause cause) {
  switch (cause) {
    case Cause::kTimeout: return "timeout";
    case Cause::kRejected: return "rejected";
    case Cause::kNoTarget: return "no_target";
    case Cause::kRefused: return "refused";
    case Cause::kDependency: return "dependency";
    case Cause::kCount: break;
  }
  return "unknown";
}

namespace {
RateProfile checked_profile(const ClientPopulationConfig& config) {
  const auto problems = config.load.validate();
  if (!problems.empty()) {
    throw SimulationError("population \"" + config.name + "\": load." + problems.front().field + ": " +
                          problems.front().message);
  }
  return RateProfile(config.load);
}
}  // namespace

ClientPopulation::ClientPopulation(ClientPopulationConfig config, Service& target, std::optional<ZoneIndex> zone,
                                   Duration metrics_window)
    : Component("clients/" + config.name),
      config_(std::move(config)),
      target_(target),
      zone_(zone),
      arrivals_(checked_profile(config_), parse_arrival_mode(config_.arrivals)),
      metrics_window_(metrics_window) {}

std::uint64_t ClientPopulation::failed_total() const {
  std::uint64_t n = 0;
  for (std::uint64_t f : failed_) n += f;
  return n;
}

void ClientPopulation::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  const Labels labels{{"population", config_.name}};
  offered_counter_ = metrics_->counter("client.offered", labels);
  succeeded_counter_ = metrics_->counter("client.succeeded", labels);
  for (std::size_t c = 0; c < failed_counters_.size(); ++c) {
    failed_counters_[c] =
        metrics_->counter("client.failed", {{"population", config_.name}, {"cause", to_string(Cause(c))}});
  }
  latency_ = metrics_->latency("client.latency", labels);
  in_flight_gauge_ = metrics_->gauge("client.in_flight", labels);
}

void ClientPopulation::start() { schedule_next_arrival(); }

void ClientPopulation::schedule_next_arrival() {
  const SimTime next = arrivals_.next_after(now(), rng());
  if (next == kSimTimeMax) return;
  schedule_at(next, "clients.arrive", [this] { arrive(); });
}

std::uint32_t ClientPopulation::allocate() {
  if (free_head_ != 0) {
    const std::uint32_t index = free_head_ - 1;
    free_head_ = slots_[index].next_free;
    return index;
  }
  slots_.emplace_back();
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

void ClientPopulation::release(std::uint32_t index) {
  Slot& slot = slots_[index];
  ++slot.generation;  // even: free; a late answer for the old request is ignored
  slot.next_free = free_head_;
  free_head_ = index + 1;
  --in_flight_;
  metrics_->set(in_flight_gauge_, now(), static_cast<double>(in_flight_));
}

void ClientPopulation::arrive() {
  schedule_next_arrival();
  const SimTime t = now();
  const std::uint32_t index = allocate();
  Slot& slot = slots_[index];
  ++slot.generation;  // odd: in flight
  slot.started = t;
  ++offered_;
  ++in_flight_;
  metrics_->add(offered_counter_, t);
  metrics_->set(in_flight_gauge_, t, static_cast<double>(in_flight_));

  const std::uint64_t token = (static_cast<std::uint64_t>(slot.generation) << 32) | index;
  if (config_.timeout) {
    slot.timeout = schedule_after(*config_.timeout, "clients.timeout", [this, index] { fail(index, Cause::kTimeout); });
  }
  if (const auto failure = target_.submit(Job{this, token, t}, zone_)) on_served(token, *failure);
}

void ClientPopulation::fail(std::uint32_t index, Cause cause) {
  ++failed_[static_cast<std::size_t>(cause)];
  metrics_->add(failed_counters_[static_cast<std::size_t>(cause)], now());
  release(index);
}

void ClientPopulation::on_served(std::uint64_t token, ServeOutcome outcome) {
  const auto index = static_cast<std::uint32_t>(token & 0xFFFFFFFFu);
  const auto generation = static_cast<std::uint32_t>(token >> 32);
  if (index >= slots_.size() || slots_[index].generation != generation) return;  // it timed out already
  Slot& slot = slots_[index];
  cancel(slot.timeout);
  slot.timeout = EventId{};
  switch (outcome) {
    case ServeOutcome::kServed: {
      const SimTime t = now();
      ++succeeded_;
      metrics_->add(succeeded_counter_, t);
      metrics_->observe(latency_, t, t - slot.started);
      release(index);
      return;
    }
    case ServeOutcome::kRejected: fail(index, Cause::kRejected); return;
    case ServeOutcome::kNoTarget: fail(index, Cause::kNoTarget); return;
    case ServeOutcome::kRefused: fail(index, Cause::kRefused); return;
    case ServeOutcome::kDependencyFailed: fail(index, Cause::kDependency); return;
  }
}

void ClientPopulation::stop() {
  metrics_->finish(now());
  // Conservation: every request offered is accounted for exactly once.
  if (offered_ != succeeded_ + failed_total() + in_flight_) {
    throw SimulationError("population \"" + config_.name + "\": offered " + std::to_string(offered_) +
                          " != succeeded " + std::to_string(succeeded_) + " + failed " +
                          std::to_string(failed_total()) + " + in flight " + std::to_string(in_flight_));
  }
  const Labels labels{{"population", config_.name}};
  Recorder& rec = recorder();
  rec.kpi("client.offered", labels, static_cast<double>(offered_));
  rec.kpi("client.succeeded", labels, static_cast<double>(succeeded_));
  for (std::size_t c = 0; c < failed_.size(); ++c) {
    rec.kpi("client.failed", {{"population", config_.name}, {"cause", to_string(Cause(c))}},
            static_cast<double>(failed_[c]));
  }
  rec.kpi("client.in_flight", labels, static_cast<double>(in_flight_));
  const std::uint64_t finished = succeeded_ + failed_total();
  rec.kpi("client.availability", labels, finished == 0 ? 1.0 : static_cast<double>(succeeded_) / finished);
  if (succeeded_ > 0) {
    rec.kpi("client.latency_p50_s", labels, metrics_->run_quantile(latency_, 0.5));
    rec.kpi("client.latency_p99_s", labels, metrics_->run_quantile(latency_, 0.99));
  }
}

}  // namespace drsim
