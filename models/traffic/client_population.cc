#include "models/traffic/client_population.h"

#include <cmath>

#include "sim/errors.h"
#include "sim/quote.h"
#include "sim/simulation.h"

namespace drsim {

std::vector<ConfigProblem> ClientPopulationConfig::validate() const {
  std::vector<ConfigProblem> problems;
  auto nest = [&problems](const std::string& prefix, std::vector<ConfigProblem> inner) {
    for (ConfigProblem& p : inner) problems.push_back({prefix + "." + p.field, std::move(p.message)});
  };
  if (arrivals != "poisson" && arrivals != "deterministic") {
    problems.push_back({"arrivals", "expected poisson or deterministic, got " + quote(arrivals)});
  }
  if (handshake_round_trips > 10) {
    problems.push_back({"handshakeRoundTrips",
                        "expected at most 10 (TCP + TLS 1.2 is 3), got " + std::to_string(handshake_round_trips)});
  }
  nest("load", load.validate());
  nest("retry", retry.validate());
  if (routing) {
    nest("routing", routing->validate());
    if (routing->health_check && routing->regions.size() == 1) {
      problems.push_back({"routing.healthCheck", "expected at least two regions to fail over between"});
    }
    if (routing->policy == "latency" && zone.empty()) {
      problems.push_back({"routing.policy", "expected a population zone with policy latency (the round trips "
                                            "are measured from it)"});
    }
  }
  if (cdn) {
    nest("cdn", cdn->validate());
    if (!routing) {
      problems.push_back({"cdn", "expected routing: origin pulls are routed to the origin regions by it"});
    }
    if (zone.empty()) {
      problems.push_back({"cdn", "expected a population zone with cdn (the round trips to the edges are measured "
                                 "from it)"});
    }
    if (cdn->backup && !(routing && routing->health_check)) {
      problems.push_back({"cdn.backup", "expected routing.healthCheck: the backup takes over when it finds every "
                                        "origin region unhealthy"});
    }
  }
  if (connections) nest("connections", connections->validate());
  for (std::size_t i = 0; i < operations.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (operations[j].name == operations[i].name) {
        problems.push_back({"operations[" + std::to_string(i) + "].name",
                            "operation " + quote(operations[i].name) + " is listed twice"});
      }
    }
    if (!(operations[i].weight > 0) || !std::isfinite(operations[i].weight)) {
      problems.push_back({"operations[" + std::to_string(i) + "].weight", "must be a positive number"});
    }
  }
  if (!operations.empty() && cdn) {
    problems.push_back({"operations", "a CDN's origin pulls carry no operation: give operations or cdn, not both"});
  }
  if (retry.per_try_timeout && timeout && *retry.per_try_timeout > *timeout) {
    problems.push_back({"retry.perTryTimeout", "expected at most the population's timeout"});
  }
  return problems;
}

namespace {
ClientPopulationConfig checked(ClientPopulationConfig config) {
  const auto problems = config.validate();
  if (!problems.empty()) {
    throw SimulationError("population \"" + config.name + "\": " + problems.front().field + ": " +
                          problems.front().message);
  }
  return config;
}

std::optional<RetryBudget> make_budget(const RetryPolicyConfig& config) {
  if (!config.budget) return std::nullopt;
  return RetryBudget(*config.budget);
}
}  // namespace

ClientPopulation::ClientPopulation(ClientPopulationConfig config, Service& target, std::optional<ZoneIndex> zone,
                                   Duration metrics_window, std::optional<GeoRouter> router)
    : Component("clients/" + config.name),
      config_(checked(std::move(config))),
      target_(target),
      zone_(zone),
      router_(std::move(router)),
      retry_(config_.retry),
      budget_(make_budget(config_.retry)),
      arrivals_(RateProfile(config_.load), parse_arrival_mode(config_.arrivals)),
      metrics_window_(metrics_window) {
  double total = 0;
  for (const OperationShareConfig& share : config_.operations) {
    const std::optional<std::size_t> op = target_.config().operation_index(share.name);
    if (!op || *op == 0) {
      throw SimulationError("population " + quote(config_.name) + ": operation " + quote(share.name) +
                            " is not an operation of service " + quote(target_.config().name));
    }
    total += share.weight;
    OperationStats stats;
    stats.operation = static_cast<std::uint16_t>(*op);
    stats.cumulative_weight = total;
    operations_.push_back(stats);
  }
}

std::uint16_t ClientPopulation::draw_operation() {
  // One entry draws nothing, so a mix of one leaves the random streams as they were.
  if (operations_.size() <= 1) return 0;
  const double u = rng().uniform() * operations_.back().cumulative_weight;
  for (std::size_t i = 0; i + 1 < operations_.size(); ++i) {
    if (u < operations_[i].cumulative_weight) return static_cast<std::uint16_t>(i);
  }
  return static_cast<std::uint16_t>(operations_.size() - 1);
}

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
  retries_counter_ = metrics_->counter("client.retries", labels);
  for (std::size_t c = 0; c < failed_counters_.size(); ++c) {
    failed_counters_[c] =
        metrics_->counter("client.failed", {{"population", config_.name}, {"cause", to_string(Cause(c))}});
  }
  latency_ = metrics_->latency("client.latency", labels);
  // FNV-1a of the name: a population's traced requests do not depend on the order populations are built in.
  span_source_ = 0xCBF29CE484222325ull;
  for (const char c : config_.name) span_source_ = (span_source_ ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  span_client_ = sim().spans().intern(config_.name);
  span_operations_.clear();
  if (operations_.empty()) {
    span_operations_.push_back(sim().spans().intern(target_.config().span_name(0)));
  } else {
    for (const OperationStats& op : operations_)
      span_operations_.push_back(sim().spans().intern(target_.config().span_name(op.operation)));
  }
  if (trailing_p99_) {
    const auto windows = static_cast<std::size_t>(std::max<std::int64_t>(1, trailing_p99_->count() / metrics_window_.count()));
    metrics_->trailing_quantile(latency_, "client.latency_p99_window_s", windows, 0.99);
  }
  in_flight_gauge_ = metrics_->gauge("client.in_flight", labels);
  for (std::size_t i = 0; i < operations_.size(); ++i) {
    OperationStats& op = operations_[i];
    const Labels mine{{"population", config_.name}, {"operation", config_.operations[i].name}};
    op.offered_counter = metrics_->counter("operation.offered", mine);
    op.succeeded_counter = metrics_->counter("operation.succeeded", mine);
    for (std::size_t c = 0; c < op.failed_counters.size(); ++c) {
      op.failed_counters[c] = metrics_->counter(
          "operation.failed",
          {{"population", config_.name}, {"operation", config_.operations[i].name}, {"cause", to_string(Cause(c))}});
    }
    op.latency = metrics_->latency("operation.latency", mine);
  }
  if (config_.connections) {
    connections_opened_counter_ = metrics_->counter("client.connections_opened", labels);
    connection_resets_counter_ = metrics_->counter("client.connection_resets", labels);
  }
}

void ClientPopulation::start() {
  schedule_next_arrival();
  if (!config_.connections) return;
  // A pool in steady state: every connection open on the start's routing, its age uniform in the lifetime.
  const ConnectionsConfig& c = *config_.connections;
  connections_.resize(c.count);
  for (Connection& connection : connections_) {
    connection.open = true;
    if (router_) connection.region = router_->pick(rng());
    if (cdn_ != nullptr) connection.vendor = cdn_->cname();
    connection.opened =
        now() - Duration{static_cast<Duration::rep>(rng().uniform() * static_cast<double>(c.max_lifetime.count()))};
    if (c.max_requests > 0) connection.requests = static_cast<std::uint32_t>(rng().below(c.max_requests));
  }
}

void ClientPopulation::close_connection(Connection& connection, bool reset) {
  connection.open = false;
  if (!reset) return;
  ++connection_resets_;
  metrics_->add(connection_resets_counter_, now());
}

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
  cancel(slot.timeout);
  cancel(slot.attempt_timer);
  cancel(slot.dns_wait);
  slot.timeout = EventId{};
  slot.attempt_timer = EventId{};
  slot.dns_wait = EventId{};
  slot.dns_waiting = false;
  ++slot.generation;  // a late answer for the old request is ignored
  slot.in_flight = false;
  slot.span = 0;
  slot.attempt_outstanding = false;
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
  slot.in_flight = true;
  slot.attempt = 0;
  slot.started = t;
  ++offered_;
  ++in_flight_;
  metrics_->add(offered_counter_, t);
  if (!operations_.empty()) operation_offered(slot, t);
  slot.span = sim().spans().start_trace(span_source_, offered_, span_client_, span_operations_[slot.mix], t);
  metrics_->set(in_flight_gauge_, t, static_cast<double>(in_flight_));
  if (budget_) budget_->deposit(t);
  if (config_.timeout) {
    slot.timeout = schedule_after(*config_.timeout, "clients.timeout", [this, index] {
      slots_[index].timeout = EventId{};
      if (dns_ != nullptr) dns_->attempt_failed(slots_[index].dns_client);  // the client gave up: it re-resolves
      fail(index, Cause::kTimeout);
    });
  }
  start_attempt(index);
}

void ClientPopulation::start_attempt(std::uint32_t index) {
  Slot& slot = slots_[index];
  ++slot.generation;
  ++slot.attempt;
  slot.attempt_outstanding = true;
  slot.connected = false;
  slot.attempt_timer = EventId{};
  slot.attempt_deadline = config_.timeout ? slot.started + *config_.timeout : kSimTimeMax;
  if (retry_.per_try_timeout()) slot.attempt_deadline = std::min(slot.attempt_deadline, now() + *retry_.per_try_timeout());
  if (retry_.per_try_timeout()) {
    slot.attempt_timer = schedule_after(*retry_.per_try_timeout(), "clients.attempt_timeout", [this, index] {
      Slot& s = slots_[index];
      s.attempt_timer = EventId{};
      s.attempt_outstanding = false;
      cancel(s.dns_wait);
      s.dns_wait = EventId{};
      s.dns_waiting = false;
      ++s.generation;  // the attempt's late answer is ignored; its work goes on at the server
      attempt_failed(index, AttemptFailure::kTimeout);
    });
  }
  dispatch(index);
}

void ClientPopulation::dispatch(std::uint32_t index) {
  Slot& slot = slots_[index];
  const std::uint64_t token = (static_cast<std::uint64_t>(slot.generation) << 32) | index;
  Connection* connection = nullptr;
  if (!connections_.empty()) {
    // A request takes a connection at random; its retries stay on it (reconnecting if it was dropped).
    if (slot.attempt == 1 && !slot.dns_waiting) {
      slot.connection = static_cast<std::uint32_t>(rng().below(connections_.size()));
    }
    connection = &connections_[slot.connection];
    const ConnectionsConfig& c = *config_.connections;
    if (connection->open && (now() - connection->opened >= c.max_lifetime ||
                             (c.max_requests > 0 && connection->requests >= c.max_requests))) {
      close_connection(*connection, false);
    }
    if (connection->open) {  // kept alive: no lookup, no handshake, the region it was opened to
      ++connection->requests;
      slot.connected = true;
      slot.connection_generation = connection->generation;
      if (routed_ != nullptr && connection->region) routed_->routed(*connection->region);
      send(token, connection->region, connection->vendor, 0);
      return;
    }
  }
  const GeoRouter* answer = router_ ? &*router_ : nullptr;
  std::size_t vendor = cdn_ != nullptr ? cdn_->cname() : 0;
  if (dns_ != nullptr) {
    // A request that waited for its client's resolver asks the same client again.
    const std::size_t client = slot.dns_waiting ? slot.dns_client : dns_->pick_client(rng());
    slot.dns_waiting = false;
    slot.dns_client = static_cast<std::uint32_t>(client);  // refreshOnFailure re-resolves this client
    const DnsCaches::Lookup lookup = dns_->lookup(client);
    if (lookup.answer == nullptr) {
      if (lookup.ready) {  // a resolution is under way (serve-stale off): wait for it
        slot.dns_waiting = true;
        slot.dns_client = static_cast<std::uint32_t>(client);
        slot.dns_wait = schedule_at(*lookup.ready, "clients.dns_wait", [this, index] {
          slots_[index].dns_wait = EventId{};
          dispatch(index);
        });
        return;
      }
      on_served(token, ServeOutcome::kNoTarget);  // the name does not resolve
      return;
    }
    answer = lookup.answer;
    vendor = lookup.vendor;
  }
  std::optional<RegionIndex> region;
  if (router_ && cdn_ == nullptr) {
    region = answer->pick(rng());
    if (!region) {
      on_served(token, ServeOutcome::kNoTarget);
      return;
    }
    if (routed_ != nullptr) routed_->routed(*region);
  }
  if (connection != nullptr) {  // a new connection, pinned to what was resolved now
    connection->open = true;
    connection->region = region;
    connection->vendor = vendor;
    connection->opened = now();
    connection->requests = 1;
    ++connection->generation;
    ++connections_opened_;
    metrics_->add(connections_opened_counter_, now());
    slot.connected = true;
    slot.connection_generation = connection->generation;
  }
  send(token, region, vendor, config_.handshake_round_trips);
}

void ClientPopulation::send(std::uint64_t token, std::optional<RegionIndex> region, std::size_t vendor,
                            std::uint32_t handshake_round_trips) {
  if (cdn_ != nullptr) {
    cdn_->serve(token, vendor, handshake_round_trips);
    return;
  }
  Job job{this, token, now()};
  job.setup_round_trips = static_cast<std::uint8_t>(handshake_round_trips);
  const Slot& slot = slots_[static_cast<std::uint32_t>(token)];
  job.deadline = slot.attempt_deadline;
  if (!operations_.empty()) job.operation = operations_[slot.mix].operation;
  job.trace_parent = slot.span;
  if (const auto failure = target_.submit(job, zone_, region, affinity_zone_)) on_served(token, *failure);
}

void ClientPopulation::attempt_failed(std::uint32_t index, AttemptFailure failure) {
  Slot& slot = slots_[index];
  if (dns_ != nullptr) dns_->attempt_failed(slot.dns_client);
  if (slot.connected) {  // the client drops a connection a request failed on (reset, refused, timed out)
    Connection& connection = connections_[slot.connection];
    if (connection.open && connection.generation == slot.connection_generation) close_connection(connection, true);
    slot.connected = false;
  }
  const SimTime t = now();
  if (slot.attempt >= retry_.attempts() || !retry_.retries(failure)) {
    fail(index, failure);
    return;
  }
  if (budget_ && !budget_->try_withdraw(t)) {
    ++retries_denied_;
    fail(index, failure);
    return;
  }
  ++retries_;
  metrics_->add(retries_counter_, t);
  const Duration wait = retry_.backoff(slot.attempt, rng());
  if (wait == Duration::zero()) {
    start_attempt(index);
    return;
  }
  slot.attempt_timer = schedule_after(wait, "clients.backoff", [this, index] { start_attempt(index); });
}

void ClientPopulation::fail(std::uint32_t index, Cause cause) {
  ++failed_[static_cast<std::size_t>(cause)];
  metrics_->add(failed_counters_[static_cast<std::size_t>(cause)], now());
  if (!operations_.empty()) operation_failed(slots_[index], cause, now());
  sim().spans().end_span(slots_[index].span, now(), true);
  release(index);
}

void ClientPopulation::operation_offered(Slot& slot, SimTime t) {
  slot.mix = draw_operation();
  OperationStats& op = operations_[slot.mix];
  ++op.offered;
  metrics_->add(op.offered_counter, t);
}

void ClientPopulation::operation_succeeded(const Slot& slot, SimTime t) {
  OperationStats& op = operations_[slot.mix];
  ++op.succeeded;
  metrics_->add(op.succeeded_counter, t);
  metrics_->observe(op.latency, t, t - slot.started);
}

void ClientPopulation::operation_failed(const Slot& slot, Cause cause, SimTime t) {
  OperationStats& op = operations_[slot.mix];
  ++op.failed[static_cast<std::size_t>(cause)];
  metrics_->add(op.failed_counters[static_cast<std::size_t>(cause)], t);
}

void ClientPopulation::on_served(std::uint64_t token, ServeOutcome outcome) {
  const auto index = static_cast<std::uint32_t>(token & 0xFFFFFFFFu);
  const auto generation = static_cast<std::uint32_t>(token >> 32);
  if (index >= slots_.size()) return;
  Slot& slot = slots_[index];
  // A late answer: the request ended, or this attempt was given up on.
  if (!slot.in_flight || !slot.attempt_outstanding || slot.generation != generation) return;
  slot.attempt_outstanding = false;
  cancel(slot.attempt_timer);
  slot.attempt_timer = EventId{};
  const auto failure = attempt_failure(outcome);
  if (!failure) {
    const SimTime t = now();
    ++succeeded_;
    metrics_->add(succeeded_counter_, t);
    metrics_->observe(latency_, t, t - slot.started);
    if (!operations_.empty()) operation_succeeded(slot, t);
    sim().spans().end_span(slot.span, t, false);
    release(index);
    return;
  }
  attempt_failed(index, *failure);
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
  rec.kpi("client.retries", labels, static_cast<double>(retries_));
  rec.kpi("client.retries_denied", labels, static_cast<double>(retries_denied_));
  if (config_.connections) {
    rec.kpi("client.connections_opened", labels, static_cast<double>(connections_opened_));
    rec.kpi("client.connection_resets", labels, static_cast<double>(connection_resets_));
  }
  const std::uint64_t finished = succeeded_ + failed_total();
  rec.kpi("client.availability", labels, finished == 0 ? 1.0 : static_cast<double>(succeeded_) / finished);
  if (succeeded_ > 0) {
    rec.kpi("client.latency_p50_s", labels, metrics_->run_quantile(latency_, 0.5));
    rec.kpi("client.latency_p99_s", labels, metrics_->run_quantile(latency_, 0.99));
  }
  for (std::size_t i = 0; i < operations_.size(); ++i) {
    const OperationStats& op = operations_[i];
    const std::string& name = config_.operations[i].name;
    const Labels mine{{"population", config_.name}, {"operation", name}};
    rec.kpi("operation.offered", mine, static_cast<double>(op.offered));
    rec.kpi("operation.succeeded", mine, static_cast<double>(op.succeeded));
    std::uint64_t failed = 0;
    for (std::size_t c = 0; c < op.failed.size(); ++c) {
      failed += op.failed[c];
      rec.kpi("operation.failed", {{"population", config_.name}, {"operation", name}, {"cause", to_string(Cause(c))}},
              static_cast<double>(op.failed[c]));
    }
    const std::uint64_t done = op.succeeded + failed;
    rec.kpi("operation.availability", mine, done == 0 ? 1.0 : static_cast<double>(op.succeeded) / done);
    if (op.succeeded > 0) {
      rec.kpi("operation.latency_p50_s", mine, metrics_->run_quantile(op.latency, 0.5));
      rec.kpi("operation.latency_p99_s", mine, metrics_->run_quantile(op.latency, 0.99));
    }
  }
}

}  // namespace drsim
