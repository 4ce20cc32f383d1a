#include "models/service/call_client.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/service/service.h"
#include "sim/errors.h"
#include "sim/simulation.h"

namespace drsim {

CallClient::CallClient(const ServiceConfig& config, PodSet& pods, Owner& owner, JobOwner& caller,
                       QueryClient& querier)
    : config_(config),
      propagate_deadlines_(config.deadlines == "propagate"),
      pods_(pods),
      owner_(owner),
      caller_(caller),
      querier_(querier),
      steps_(config.operation_count()) {}  // no calls until connect() resolves them

SimTime CallClient::now() const { return sim_->now(); }

void CallClient::connect(const FindService& find_service, const FindDatabase& find_database) {
  steps_.clear();
  edges_.clear();
  database_uses_.clear();
  meshed_.clear();
  sidecars_.clear();
  grpc_.clear();
  channels_.clear();
  for (std::size_t op = 0; op < config_.operation_count(); ++op) {
    if (op > 0 && !config_.operations[op - 1].calls) {
      steps_.push_back(steps_.front());  // the service's calls, through the same edges
      continue;
    }
    steps_.emplace_back();
    connect_calls(config_.calls_of(op), steps_.back(), find_service, find_database);
  }
}

void CallClient::connect_calls(const std::vector<CallConfig>& calls, std::vector<std::vector<StepCall>>& steps,
                               const FindService& find_service, const FindDatabase& find_database) {
  bool previous_parallel = false;
  for (const CallConfig& call : calls) {
    const auto edge = static_cast<std::uint32_t>(edges_.size());
    Service* callee = nullptr;
    std::uint32_t database = kNoCall;
    std::size_t callee_operation = 0;
    if (!call.database.empty()) {
      database = connect_database(call, find_database);
    } else {
      callee = find_service(call.service);
      if (callee == nullptr) {
        throw SimulationError("service \"" + config_.name + "\" calls unknown service \"" + call.service + "\"");
      }
      const std::optional<std::size_t> op = callee->config().operation_index(call.operation);
      if (!op) {
        throw SimulationError("service \"" + config_.name + "\" calls operation \"" + call.operation +
                              "\", which service \"" + call.service + "\" does not have");
      }
      callee_operation = *op;
    }
    edges_.push_back(CallEdge{RetryPolicy(call.retry),
                              call.retry.budget ? std::optional<RetryBudget>(*call.retry.budget) : std::nullopt,
                              call.timeout, database, call.queries, call.writes});
    edges_.back().operation = static_cast<std::uint16_t>(callee_operation);
    span_names_.emplace_back(callee != nullptr ? callee->config().span_name(callee_operation)
                                               : std::string_view(call.database));
    edges_.back().probability = call.probability.value;
    if (callee != nullptr && callee->config().discovery == "mesh") {
      const auto known = std::find(meshed_.begin(), meshed_.end(), callee);
      edges_.back().sidecar = static_cast<std::uint32_t>(known - meshed_.begin());
      if (known == meshed_.end()) meshed_.push_back(callee);
    }
    if (callee != nullptr && callee->config().discovery == "grpc") {
      const auto known = std::find(grpc_.begin(), grpc_.end(), callee);
      edges_.back().channel = static_cast<std::uint32_t>(known - grpc_.begin());
      if (known == grpc_.end()) grpc_.push_back(callee);
    }
    if (call.parallel) {
      if (!previous_parallel) steps.emplace_back();
      for (std::uint32_t i = 0; i < call.count; ++i) steps.back().push_back({callee, edge});
    } else {
      for (std::uint32_t i = 0; i < call.count; ++i) steps.push_back({StepCall{callee, edge}});
    }
    previous_parallel = call.parallel;
  }
}

std::uint32_t CallClient::connect_database(const CallConfig& call, const FindDatabase& find_database) {
  for (std::uint32_t u = 0; u < database_uses_.size(); ++u) {
    if (database_uses_[u].name == call.database) return u;
  }
  DatabaseUse use;
  use.name = call.database;
  use.pool = config_.pool_towards(call.database);
  for (const ServiceZone& zone : pods_.zones()) {
    if (!zone.topology_zone || !find_database) {
      throw SimulationError("service \"" + config_.name + "\" queries database \"" + call.database +
                            "\" from zone \"" + zone.name + "\", which is not in the topology");
    }
    PoolEndpoint* endpoint = find_database(call.database, *zone.topology_zone);
    if (endpoint == nullptr) {
      throw SimulationError("service \"" + config_.name + "\" queries unknown database \"" + call.database + "\"");
    }
    use.endpoint.push_back(endpoint);
  }
  database_uses_.push_back(std::move(use));
  return static_cast<std::uint32_t>(database_uses_.size() - 1);
}

void CallClient::attach(Simulation& sim, std::uint32_t host, RngStream& rng, WindowedMetrics& metrics) {
  sim_ = &sim;
  host_ = host;
  rng_ = &rng;
  span_caller_ = sim.spans().intern(config_.name);
  for (std::size_t e = 0; e < edges_.size(); ++e) edges_[e].span_name = sim.spans().intern(span_names_[e]);
  for (DatabaseUse& use : database_uses_) {
    use.metrics.clear();
    for (const ServiceZone& z : pods_.zones()) {
      use.metrics.push_back(std::make_unique<PoolMetrics>(
          metrics, Labels{{"service", config_.name}, {"zone", z.name}, {"database", use.name}}));
    }
  }
}

const ConnectionPool* CallClient::pod_pool(std::size_t pod, std::size_t database) const {
  if (pod >= pods_.pods().size()) throw std::out_of_range("no pod " + std::to_string(pod));
  if (pod >= pod_pools_.size()) return nullptr;  // it never ran: no pool yet
  const PodPools& p = pod_pools_[pod];
  if (!p.open || database >= p.pools.size()) return nullptr;
  return p.pools[database].get();
}

std::uint64_t CallClient::memory_per_pod() { return sizeof(PodPools); }

void CallClient::sync_pools(std::size_t p) {
  if (sim_ == nullptr) return;
  sync_sidecars(p);
  if (database_uses_.empty()) return;
  const ServicePod& pod = pods_.pod(p);
  if (p >= pod_pools_.size()) pod_pools_.resize(p + 1);
  PodPools& mine = pod_pools_[p];
  const bool run = pod.running() && !pod.crashed;
  if (run == mine.open) return;
  mine.open = run;
  if (!run) {
    for (auto& pool : mine.pools) pool->shutdown();  // the process is gone: its sessions with it
    return;
  }
  if (mine.pools.empty()) {
    const ServiceZone& zone = pods_.zone(pod.zone);
    for (DatabaseUse& use : database_uses_) {
      mine.pools.push_back(std::make_unique<ConnectionPool>(*sim_, host_, pod.name + "/" + use.name, use.pool,
                                                            *use.endpoint[pod.zone], *zone.topology_zone,
                                                            use.metrics[pod.zone].get()));
    }
  }
  for (auto& pool : mine.pools) pool->start();
}

EnvoyCluster& CallClient::sidecar_of(std::size_t p, std::size_t n) {
  const std::size_t i = p * meshed_.size() + n;
  if (sidecars_.size() <= i) sidecars_.resize((p + 1) * meshed_.size());
  std::unique_ptr<EnvoyCluster>& envoy = sidecars_[i];
  if (!envoy) {
    const ServiceZone& zone = pods_.zone(pods_.pod(p).zone);
    Service& upstream = *meshed_[n];
    static const MeshConfig kEnvoyDefaults;
    const MeshConfig& settings = upstream.config().mesh ? *upstream.config().mesh : kEnvoyDefaults;
    envoy = std::make_unique<EnvoyCluster>(settings, upstream, zone.topology_zone, zone.region, *sim_, host_, *rng_);
  }
  if (!envoy->running()) envoy->start();
  return *envoy;
}

const EnvoyCluster* CallClient::sidecar(std::size_t p, std::size_t n) const {
  const std::size_t i = p * meshed_.size() + n;
  return i < sidecars_.size() ? sidecars_[i].get() : nullptr;
}

GrpcChannel& CallClient::channel_of(std::size_t p, std::size_t n) {
  const std::size_t i = p * grpc_.size() + n;
  if (channels_.size() <= i) channels_.resize((p + 1) * grpc_.size());
  std::unique_ptr<GrpcChannel>& ch = channels_[i];
  if (!ch) {
    Service& upstream = *grpc_[n];
    static const GrpcConfig kGrpcDefaults;
    const GrpcConfig& settings = upstream.config().grpc ? *upstream.config().grpc : kGrpcDefaults;
    ch = std::make_unique<GrpcChannel>(settings, upstream, pods_.zone(pods_.pod(p).zone).topology_zone, *sim_, host_,
                                       *rng_, [this, p, n](std::size_t host) { connection_broken(p, n, host); });
  }
  if (!ch->running()) ch->start();
  return *ch;
}

std::uint64_t CallClient::grpc_breaks(std::size_t n) const {
  std::uint64_t total = 0;
  for (std::size_t i = n; i < channels_.size(); i += grpc_.size()) {
    if (channels_[i]) total += channels_[i]->breaks();
  }
  return total;
}

void CallClient::connection_broken(std::size_t p, std::size_t n, std::size_t host) {
  for (std::uint32_t c = 0; c < records_.size(); ++c) {
    CallRecord& r = records_[c];
    if (!r.attempt_outstanding || r.pod != p || r.host != host || edges_[r.edge].channel != n) continue;
    r.attempt_outstanding = false;
    r.host = kNoCall;
    ++r.generation;  // an answer still on its way is ignored
    sim_->cancel(r.attempt_timer);
    r.attempt_timer = EventId{};
    attempt_failed(c, AttemptFailure::kRefused);  // UNAVAILABLE: the connection is gone
  }
}

void CallClient::sync_sidecars(std::size_t p) {
  const ServicePod& pod = pods_.pod(p);
  for (std::size_t n = 0; n < grpc_.size(); ++n) {
    if (pod.running()) {
      channel_of(p, n);  // its connections open as the pod starts
    } else if (const std::size_t i = p * grpc_.size() + n; i < channels_.size() && channels_[i]) {
      channels_[i]->stop();
    }
  }
  if (meshed_.empty()) return;
  for (std::size_t n = 0; n < meshed_.size(); ++n) {
    if (pod.running()) {
      sidecar_of(p, n);  // starts it: its health checks, if any, run from now on
    } else if (const std::size_t i = p * meshed_.size() + n; i < sidecars_.size() && sidecars_[i]) {
      sidecars_[i]->stop();
    }
  }
}

std::uint64_t CallClient::mesh_ejections(std::size_t n) const {
  std::uint64_t total = 0;
  for (std::size_t i = n; i < sidecars_.size(); i += meshed_.size()) {
    if (sidecars_[i]) total += sidecars_[i]->ejections();
  }
  return total;
}

void CallClient::begin(std::size_t p, std::size_t slot) {
  pods_.pod(p).slots[slot].step = 0;
  start_step(p, slot);
}

void CallClient::start_step(std::size_t p, std::size_t slot) {
  WorkerSlot& s = pods_.pod(p).slots[slot];
  const auto& steps = steps_[s.job.operation];
  if (s.step == steps.size()) {
    owner_.calls_over(p, slot, s.failed ? ServeOutcome::kDependencyFailed : ServeOutcome::kServed);
    return;
  }
  const auto& step = steps[s.step];
  s.outstanding = static_cast<std::uint32_t>(step.size());
  s.failed = false;
  // While the step's calls are being sent, a call that ends at once only
  // counts itself off: the step cannot end (and the slot be reused) half-sent.
  // A call not made this time (its probability) counts itself off the same way.
  s.sending = true;
  for (const StepCall& c : step) {
    const double probability = edges_[c.edge].probability;
    if (probability < 1.0 && rng_->uniform() >= probability) {
      --pods_.pod(p).slots[slot].outstanding;
      continue;
    }
    send_attempt(new_call(p, slot, c.edge, c.callee));
  }
  WorkerSlot& sent = pods_.pod(p).slots[slot];
  sent.sending = false;
  if (sent.outstanding == 0) end_step(p, slot);
}

void CallClient::end_step(std::size_t p, std::size_t slot) {
  WorkerSlot& s = pods_.pod(p).slots[slot];
  if (s.failed) {
    owner_.calls_over(p, slot, ServeOutcome::kDependencyFailed);
    return;
  }
  ++s.step;
  start_step(p, slot);
}

std::uint32_t CallClient::new_call(std::size_t p, std::size_t slot, std::uint32_t edge, Service* callee) {
  std::uint32_t c = free_record_;
  if (c == kNoCall) {
    c = static_cast<std::uint32_t>(records_.size());
    records_.emplace_back();
  } else {
    free_record_ = records_[c].next;
  }
  CallRecord& r = records_[c];
  WorkerSlot& s = pods_.pod(p).slots[slot];
  r.pod = static_cast<std::uint32_t>(p);
  r.slot = static_cast<std::uint32_t>(slot);
  r.edge = edge;
  r.callee = callee;
  r.attempt = 0;
  r.attempt_outstanding = false;
  r.attempt_timer = EventId{};
  r.timeout = EventId{};
  r.host = kNoCall;
  r.route_timer = EventId{};
  r.prev = kNoCall;
  r.next = s.first_call;
  if (s.first_call != kNoCall) records_[s.first_call].prev = c;
  s.first_call = c;
  CallEdge& e = edges_[edge];
  // One CLIENT span per call, its retries included: the callee's SERVER span of each attempt is its child.
  r.span = s.span == 0 ? 0
                       : sim_->spans().start_span(s.span, SpanRecorder::Kind::kClient, span_caller_, e.span_name,
                                                  now());
  r.deadline = e.timeout ? now() + *e.timeout : kSimTimeMax;
  if (propagate_deadlines_) r.deadline = std::min(r.deadline, s.job.deadline);
  if (e.budget) e.budget->deposit(now());
  if (e.timeout) {
    r.timeout = sim_->schedule_after(
        *e.timeout,
        [this, c] {
          records_[c].timeout = EventId{};
          call_done(c, false);
        },
        EventTag{host_, "service.call_timeout"});
  }
  return c;
}

void CallClient::send_attempt(std::uint32_t c) {
  CallRecord& r = records_[c];
  ++r.generation;
  ++r.attempt;
  r.attempt_outstanding = true;
  r.attempt_timer = EventId{};
  const std::uint64_t token = (static_cast<std::uint64_t>(r.generation) << 32) | c;
  const CallEdge& e = edges_[r.edge];
  if (e.retry.per_try_timeout()) {
    r.attempt_timer = sim_->schedule_after(
        *e.retry.per_try_timeout(),
        [this, c] {
          CallRecord& timed_out = records_[c];
          timed_out.attempt_timer = EventId{};
          timed_out.attempt_outstanding = false;
          end_attempt_on_host(timed_out, EnvoyCluster::Result::kAbandoned);
          ++timed_out.generation;  // its late answer is ignored; the callee still does the work
          attempt_failed(c, AttemptFailure::kTimeout);
        },
        EventTag{host_, "service.call_attempt_timeout"});
  }
  if (r.callee == nullptr) {
    // A database call: the pod's pool borrows, queries and reports back
    // (never from inside execute). The pod runs: it holds this call's job.
    pod_pools_[r.pod].pools[e.database]->execute(querier_, token, e.queries, e.writes);
    return;
  }
  Job call{&caller_, token, now()};
  call.deadline = r.deadline;
  call.operation = e.operation;
  call.trace_parent = r.span;
  if (e.retry.per_try_timeout()) call.deadline = std::min(call.deadline, now() + *e.retry.per_try_timeout());
  Service* callee = r.callee;
  const std::optional<ZoneIndex> from = pods_.zone(pods_.pod(r.pod).zone).topology_zone;
  if (e.channel != kNoCall) {
    // On the pod's gRPC channel: one of its open connections, whatever has become of the pod behind it.
    GrpcChannel& ch = channel_of(r.pod, e.channel);
    const std::optional<std::size_t> host = ch.pick();
    if (!host) {
      answer(token, AttemptFailure::kNoTarget);  // UNAVAILABLE: no connection is ready
      return;
    }
    r.host = static_cast<std::uint32_t>(*host);
    ch.sent(*host);
    if (const auto failure = callee->submit_to_pod(call, from, *host)) served(token, *failure);
    return;
  }
  if (e.sidecar == kNoCall) {
    if (const auto failure = callee->submit(call, from)) answer(token, attempt_failure(*failure));
    return;
  }
  // Through the pod's sidecar: it picks the host, connects to it if it has no connection, and ends the
  // request itself at its route timeout.
  EnvoyCluster& envoy = sidecar_of(r.pod, e.sidecar);
  const std::optional<std::size_t> host = envoy.pick();
  if (!host) {
    answer(token, AttemptFailure::kNoTarget);  // "no healthy upstream"
    return;
  }
  r.host = static_cast<std::uint32_t>(*host);
  call.setup_round_trips = envoy.needs_connection(*host) ? 1 : 0;
  envoy.sent(*host);
  const Duration route_timeout = envoy.settings().route_timeout;
  if (route_timeout > Duration::zero()) {
    r.route_timer = sim_->schedule_after(route_timeout, [this, c] { route_timed_out(c); },
                                         EventTag{host_, "mesh.route_timeout"});
  }
  if (const auto failure = callee->submit_to_pod(call, from, *host)) served(token, *failure);
}

void CallClient::end_attempt_on_host(CallRecord& r, EnvoyCluster::Result result) {
  if (r.host == kNoCall) return;
  if (const std::uint32_t n = edges_[r.edge].channel; n != kNoCall) {
    // A gRPC call: its connection hears how it ended. An abandoned one resets its stream (data on the
    // connection); a refused one means the pod reset the connection.
    const std::size_t i = r.pod * grpc_.size() + n;
    GrpcChannel* ch = i < channels_.size() ? channels_[i].get() : nullptr;
    const std::size_t host = r.host;
    r.host = kNoCall;
    if (ch == nullptr) return;
    if (result == EnvoyCluster::Result::kAbandoned) {
      ch->abandoned(host);
    } else {
      ch->ended(host);
    }
    return;
  }
  sim_->cancel(r.route_timer);
  r.route_timer = EventId{};
  const std::size_t i = r.pod * meshed_.size() + edges_[r.edge].sidecar;
  if (i < sidecars_.size() && sidecars_[i]) sidecars_[i]->ended(r.host, result);
  r.host = kNoCall;
}

void CallClient::route_timed_out(std::uint32_t c) {
  CallRecord& r = records_[c];
  r.route_timer = EventId{};
  end_attempt_on_host(r, EnvoyCluster::Result::kFailure);
  r.attempt_outstanding = false;
  ++r.generation;  // the host's late answer is ignored; it may still be working on it
  sim_->cancel(r.attempt_timer);
  r.attempt_timer = EventId{};
  attempt_failed(c, AttemptFailure::kDependency);  // the sidecar's 504
}

void CallClient::served(std::uint64_t token, ServeOutcome outcome) {
  std::optional<AttemptFailure> failure = attempt_failure(outcome);
  const auto c = static_cast<std::uint32_t>(token & 0xFFFFFFFFu);
  const auto generation = static_cast<std::uint32_t>(token >> 32);
  const bool current = c < records_.size() && records_[c].generation == generation && records_[c].host != kNoCall;
  const bool through_sidecar = current && edges_[records_[c].edge].sidecar != kNoCall;
  if (through_sidecar && (outcome == ServeOutcome::kRefused || outcome == ServeOutcome::kConnectTimeout)) {
    failure = AttemptFailure::kDependency;
  }
  // On a gRPC channel a refusal is the pod resetting the connection: the connection is gone.
  GrpcChannel* reset = nullptr;
  std::size_t reset_host = 0;
  if (current && outcome == ServeOutcome::kRefused && edges_[records_[c].edge].channel != kNoCall) {
    const std::size_t i = records_[c].pod * grpc_.size() + edges_[records_[c].edge].channel;
    reset = i < channels_.size() ? channels_[i].get() : nullptr;
    reset_host = records_[c].host;
  }
  answer(token, failure);
  if (reset != nullptr) reset->reset(reset_host);
}

Duration CallClient::unacknowledged_give_up(std::uint64_t token, bool new_connection) {
  const auto c = static_cast<std::uint32_t>(token & 0xFFFFFFFFu);
  const auto generation = static_cast<std::uint32_t>(token >> 32);
  if (c < records_.size() && records_[c].generation == generation && records_[c].host != kNoCall &&
      edges_[records_[c].edge].channel != kNoCall) {
    const std::size_t i = records_[c].pod * grpc_.size() + edges_[records_[c].edge].channel;
    if (i < channels_.size() && channels_[i]) return channels_[i]->unacknowledged(records_[c].host);
  }
  if (new_connection && c < records_.size() && records_[c].generation == generation && records_[c].host != kNoCall) {
    return sidecar(records_[c].pod, edges_[records_[c].edge].sidecar)->settings().connect_timeout;
  }
  return JobOwner::kernel_give_up(new_connection);
}

std::optional<AttemptFailure> CallClient::failure_of(const QueryResult& result) {
  switch (result.outcome) {
    case QueryOutcome::kServerError:
      return AttemptFailure::kDependency;  // the database answered with an error (a 5xx of its own)
    case QueryOutcome::kPoolTimeout:
      return AttemptFailure::kTimeout;  // SQLTransientConnectionException after connectionTimeout
    case QueryOutcome::kConnectionError:
      switch (result.error) {
        case TcpError::kConnectRefused:
        case TcpError::kReset:
          return AttemptFailure::kRefused;
        case TcpError::kTooManyConnections:
          return AttemptFailure::kRejected;
        default:
          return AttemptFailure::kTimeout;  // socket, retransmission, keepalive or connect timeouts
      }
    default:
      return std::nullopt;
  }
}

void CallClient::answer(std::uint64_t token, std::optional<AttemptFailure> failure) {
  const auto c = static_cast<std::uint32_t>(token & 0xFFFFFFFFu);
  const auto generation = static_cast<std::uint32_t>(token >> 32);
  if (c >= records_.size()) return;
  CallRecord& r = records_[c];
  if (!r.attempt_outstanding || r.generation != generation) return;  // an attempt given up on, or a freed call
  r.attempt_outstanding = false;
  sim_->cancel(r.attempt_timer);
  r.attempt_timer = EventId{};
  end_attempt_on_host(r, failure ? EnvoyCluster::Result::kFailure : EnvoyCluster::Result::kSuccess);
  if (!failure) {
    call_done(c, true);
    return;
  }
  attempt_failed(c, *failure);
}

void CallClient::attempt_failed(std::uint32_t c, AttemptFailure failure) {
  CallRecord& r = records_[c];
  CallEdge& e = edges_[r.edge];
  if (r.attempt >= e.retry.attempts() || !e.retry.retries(failure) || (e.budget && !e.budget->try_withdraw(now()))) {
    call_done(c, false);
    return;
  }
  const Duration wait = e.retry.backoff(r.attempt, *rng_);
  if (wait == Duration::zero()) {
    send_attempt(c);
    return;
  }
  r.attempt_timer = sim_->schedule_after(wait, [this, c] { send_attempt(c); }, EventTag{host_, "service.call_backoff"});
}

void CallClient::call_done(std::uint32_t c, bool ok) {
  const std::size_t p = records_[c].pod;
  const std::size_t slot = records_[c].slot;
  sim_->spans().end_span(records_[c].span, now(), !ok);
  free_call(c);
  WorkerSlot& s = pods_.pod(p).slots[slot];
  if (!ok) s.failed = true;
  if (--s.outstanding > 0 || s.sending) return;
  end_step(p, slot);
}

void CallClient::free_call(std::uint32_t c) {
  CallRecord& r = records_[c];
  end_attempt_on_host(r, EnvoyCluster::Result::kAbandoned);  // an attempt under way is reset
  sim_->cancel(r.timeout);
  sim_->cancel(r.attempt_timer);
  r.timeout = EventId{};
  r.attempt_timer = EventId{};
  r.attempt_outstanding = false;
  ++r.generation;  // answers still on their way are ignored
  if (r.span != 0) {
    sim_->spans().end_span(r.span, now(), true);  // abandoned with its request (call_done has ended the others)
    r.span = 0;
  }
  WorkerSlot& s = pods_.pod(r.pod).slots[r.slot];
  if (r.prev != kNoCall) {
    records_[r.prev].next = r.next;
  } else {
    s.first_call = r.next;
  }
  if (r.next != kNoCall) records_[r.next].prev = r.prev;
  r.prev = kNoCall;
  r.next = free_record_;
  free_record_ = c;
}

void CallClient::drop(WorkerSlot& slot) {
  while (slot.first_call != kNoCall) free_call(slot.first_call);
}

}  // namespace drsim
