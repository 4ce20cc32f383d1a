#include "models/service/grpc_channel.h"

#include <algorithm>
#include <utility>

#include "models/data/tcp_config.h"
#include "models/service/service.h"
#include "sim/simulation.h"

namespace drsim {

GrpcChannel::GrpcChannel(const GrpcConfig& config, Service& upstream, std::optional<ZoneIndex> local_zone,
                         Simulation& sim, std::uint32_t host_component, RngStream& rng, BreakListener on_break)
    : config_(config),
      headless_(config.target == "headless"),
      round_robin_(config.lb_policy == "round_robin"),
      upstream_(upstream),
      local_zone_(local_zone),
      sim_(sim),
      host_component_(host_component),
      rng_(rng),
      on_break_(std::move(on_break)) {}

void GrpcChannel::start() {
  if (running_) return;
  running_ = true;
  connections_.clear();
  next_address_ = 0;
  next_pick_ = 0;
  resolve();
  if (single()) {
    connections_.emplace_back();
    connect(0, true);
  } else {
    for (std::size_t c = 0; c < connections_.size(); ++c) connect(c, true);
  }
}

void GrpcChannel::stop() {
  if (!running_) return;
  running_ = false;
  for (Connection& k : connections_) close(k);
  connections_.clear();
  sim_.cancel(resolution_);
  resolution_ = EventId{};
}

void GrpcChannel::close(Connection& k) {
  for (EventId* id : {&k.attempt, &k.ping, &k.user_timeout, &k.age}) {
    sim_.cancel(*id);
    *id = EventId{};
  }
  k.pinging = false;
  ++k.generation;
}

void GrpcChannel::resolve() {
  last_resolution_ = sim_.now();
  if (!headless_) return;  // the Service's virtual IP: nothing new to learn
  addresses_.clear();
  for (std::size_t p = 0; p < upstream_.pod_total(); ++p) {
    if (upstream_.pod_routable(p)) addresses_.push_back(p);
  }
  // DNS answers in varying order (CoreDNS rotates its records).
  for (std::size_t i = addresses_.size(); i > 1; --i) std::swap(addresses_[i - 1], addresses_[rng_.below(i)]);
  next_address_ = 0;
  if (!round_robin_) return;
  // round_robin: one connection per address; one whose address left takes no new calls.
  const bool starting = connections_.empty();
  for (Connection& k : connections_) {
    if (k.retired) continue;
    if (std::find(addresses_.begin(), addresses_.end(), k.address) != addresses_.end()) continue;
    k.retired = true;
    if (k.active == 0) {
      close(k);
      k.state = State::kIdle;
    }
  }
  for (const std::size_t a : addresses_) {
    const bool held = std::any_of(connections_.begin(), connections_.end(),
                                  [a](const Connection& k) { return !k.retired && k.address == a; });
    if (held) continue;
    connections_.push_back(Connection{.address = a, .pod = a});
    if (!starting) connect(connections_.size() - 1, false);
  }
}

void GrpcChannel::request_resolution() {
  if (sim_.is_pending(resolution_)) return;
  SimTime at = sim_.now();
  if (last_resolution_) at = std::max(at, *last_resolution_ + config_.min_time_between_resolutions);
  resolution_ = sim_.schedule_at(
      at,
      [this] {
        resolution_ = EventId{};
        if (running_) resolve();
      },
      EventTag{host_component_, "grpc.resolution"});
}

void GrpcChannel::connect(std::size_t c, bool warm) {
  Connection& k = connections_[c];
  close(k);
  k.state = State::kConnecting;
  std::optional<std::size_t> pod;
  if (!headless_) {
    pod = upstream_.pick_endpoint(local_zone_);  // kube-proxy picks the pod behind the virtual IP
  } else if (!round_robin_) {
    if (!addresses_.empty()) pod = addresses_[next_address_++ % addresses_.size()];
  } else {
    pod = k.address;
  }
  const std::uint32_t generation = k.generation;
  if (!pod) {
    // Nothing to connect to: the attempt fails at once.
    k.attempt = sim_.schedule_after(
        Duration::zero(), [this, c, generation] { connect_failed(c, generation); },
        EventTag{host_component_, "grpc.connect_failed"});
    return;
  }
  k.pod = *pod;
  const Service::ProbeAnswer answer = upstream_.probe_pod(local_zone_, *pod, /*connect_only=*/true);
  const bool in_time = answer.after && *answer.after < config_.connect_timeout;
  if (warm && in_time && answer.passed) {
    connected(c, generation);  // opened before the calling pod took traffic
    return;
  }
  if (in_time && answer.passed) {
    k.attempt = sim_.schedule_after(*answer.after, [this, c, generation] { connected(c, generation); },
                                    EventTag{host_component_, "grpc.connected"});
  } else {
    // Refused at once (a reset), or no answer until the connect timeout.
    k.attempt = sim_.schedule_after(in_time ? *answer.after : config_.connect_timeout,
                                    [this, c, generation] { connect_failed(c, generation); },
                                    EventTag{host_component_, "grpc.connect_failed"});
  }
}

void GrpcChannel::connected(std::size_t c, std::uint32_t generation) {
  Connection& k = connections_[c];
  if (!running_ || k.generation != generation) return;
  k.attempt = EventId{};
  k.state = State::kReady;
  k.failed_attempts = 0;
  if (config_.max_connection_age) {
    // The server's GOAWAY: calls under way finish, new ones go on a new connection.
    k.age = sim_.schedule_after(
        *config_.max_connection_age,
        [this, c, generation] {
          Connection& aged = connections_[c];
          if (!running_ || aged.generation != generation) return;
          aged.age = EventId{};
          request_resolution();
          if (!aged.retired) connect(c, false);
        },
        EventTag{host_component_, "grpc.max_connection_age"});
  }
  if (k.active > 0) schedule_ping(c);
}

void GrpcChannel::connect_failed(std::size_t c, std::uint32_t generation) {
  Connection& k = connections_[c];
  if (!running_ || k.generation != generation) return;
  k.attempt = EventId{};
  k.state = State::kBackoff;
  request_resolution();
  if (k.retired) return;
  // pick_first tries the next address at once until it has tried them all, then backs off.
  if (headless_ && !round_robin_ && addresses_.size() > 1 && next_address_ % addresses_.size() != 0) {
    connect(c, false);
    return;
  }
  // gRPC's connection backoff: 1 s, x 1.6 per failed attempt up to 120 s, +-20% jitter.
  k.backoff = k.failed_attempts == 0
                  ? config_.initial_backoff
                  : std::min(std::chrono::duration_cast<Duration>(k.backoff * config_.backoff_multiplier),
                             config_.max_backoff);
  ++k.failed_attempts;
  const double jitter = rng_.uniform(1 - config_.backoff_jitter, 1 + config_.backoff_jitter);
  const auto wait = std::chrono::duration_cast<Duration>(k.backoff * jitter);
  k.attempt = sim_.schedule_after(
      wait,
      [this, c, generation] {
        if (running_ && connections_[c].generation == generation) connect(c, false);
      },
      EventTag{host_component_, "grpc.backoff"});
}

void GrpcChannel::broken(std::size_t c) {
  Connection& k = connections_[c];
  if (k.state != State::kReady) return;
  ++breaks_;
  close(k);
  k.state = State::kIdle;
  k.active = 0;
  // The calls under way on it fail; they hear after this returns, as through the network.
  const std::size_t pod = k.pod;
  sim_.schedule_after(Duration::zero(), [this, pod] { on_break_(pod); }, EventTag{host_component_, "grpc.broken"});
  request_resolution();
  if (!k.retired) connect(c, false);
}

void GrpcChannel::schedule_ping(std::size_t c) {
  Connection& k = connections_[c];
  if (!config_.keepalive_time || k.pinging || k.state != State::kReady) return;
  k.pinging = true;
  const std::uint32_t generation = k.generation;
  k.ping = sim_.schedule_after(*config_.keepalive_time, [this, c, generation] { ping(c, generation); },
                               EventTag{host_component_, "grpc.keepalive"});
}

void GrpcChannel::ping(std::size_t c, std::uint32_t generation) {
  Connection& k = connections_[c];
  if (!running_ || k.generation != generation) return;
  k.pinging = false;
  k.ping = EventId{};
  if (k.active == 0) return;  // no calls under way: no pings (keepalive_permit_without_calls is off)
  const Service::ProbeAnswer answer = upstream_.probe_pod(local_zone_, k.pod, /*connect_only=*/true);
  const bool in_time = answer.after && *answer.after < config_.keepalive_timeout;
  if (in_time && answer.passed) {
    schedule_ping(c);
    return;
  }
  k.pinging = true;  // no further ping while this one is outstanding
  k.ping = sim_.schedule_after(
      in_time ? *answer.after : config_.keepalive_timeout,
      [this, c, generation] {
        if (running_ && connections_[c].generation == generation) broken(c);
      },
      EventTag{host_component_, "grpc.keepalive_timeout"});
}

Duration GrpcChannel::arm_user_timeout(std::size_t c) {
  Connection& k = connections_[c];
  // With keepalive on, gRPC sets TCP_USER_TIMEOUT to the keepalive timeout (proposal A18); otherwise the kernel
  // retransmits for tcp_retries2.
  const Duration limit = config_.keepalive_time ? config_.keepalive_timeout : retransmission_give_up(TcpConfig{});
  if (sim_.is_pending(k.user_timeout)) return limit;
  const std::uint32_t generation = k.generation;
  k.user_timeout = sim_.schedule_after(
      limit,
      [this, c, generation] {
        Connection& waiting = connections_[c];
        if (!running_ || waiting.generation != generation) return;
        waiting.user_timeout = EventId{};
        // The retransmissions got through if the pod answers again by now.
        const Service::ProbeAnswer answer = upstream_.probe_pod(local_zone_, waiting.pod, /*connect_only=*/true);
        if (answer.after && answer.passed) return;
        broken(c);
      },
      EventTag{host_component_, "grpc.tcp_user_timeout"});
  return limit;
}

std::optional<std::size_t> GrpcChannel::connection_to(std::size_t pod) const {
  std::optional<std::size_t> retired;
  for (std::size_t c = 0; c < connections_.size(); ++c) {
    const Connection& k = connections_[c];
    if (k.pod != pod || k.state == State::kIdle) continue;
    if (!k.retired) return c;
    retired = c;
  }
  return retired;
}

std::optional<std::size_t> GrpcChannel::pick() {
  if (!running_ || connections_.empty()) return std::nullopt;
  if (single()) {
    const Connection& k = connections_[0];
    return k.state == State::kReady ? std::optional<std::size_t>(k.pod) : std::nullopt;
  }
  const std::size_t n = connections_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t c = (next_pick_ + i) % n;
    const Connection& k = connections_[c];
    if (k.state == State::kReady && !k.retired) {
      next_pick_ = c + 1;
      return k.pod;
    }
  }
  return std::nullopt;
}

void GrpcChannel::sent(std::size_t pod) {
  const auto c = connection_to(pod);
  if (!c) return;
  ++connections_[*c].active;
  schedule_ping(*c);
}

void GrpcChannel::ended(std::size_t pod) {
  const auto c = connection_to(pod);
  if (c && connections_[*c].active > 0) --connections_[*c].active;
}

void GrpcChannel::abandoned(std::size_t pod) {
  ended(pod);
  const auto c = connection_to(pod);
  if (!c || connections_[*c].state != State::kReady) return;
  // The stream's reset is sent like any data: if nothing acknowledges it, TCP's give-up is armed.
  if (!upstream_.probe_pod(local_zone_, pod, /*connect_only=*/true).after) arm_user_timeout(*c);
}

Duration GrpcChannel::unacknowledged(std::size_t pod) {
  const auto c = connection_to(pod);
  if (!c || connections_[*c].state != State::kReady) return retransmission_give_up(TcpConfig{});
  return arm_user_timeout(*c);
}

void GrpcChannel::reset(std::size_t pod) {
  if (const auto c = connection_to(pod)) broken(*c);
}

}  // namespace drsim
