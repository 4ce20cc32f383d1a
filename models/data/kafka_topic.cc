#include "models/data/kafka_topic.h"

#include <algorithm>
#include <map>

#include "models/data/data_event_kinds.h"
#include "models/topology/network_model.h"
#include "sim/errors.h"
#include "sim/quote.h"
#include "sim/simulation.h"

namespace drsim {

namespace {

enum FailCause : std::size_t { kCauseNoLeader = 0, kCauseNotEnoughReplicas = 1, kCauseTruncated = 2 };
constexpr const char* kCauseNames[] = {"no_leader", "not_enough_replicas", "truncated"};

std::string seconds(Duration d) { return format_seconds(d) + "s"; }

Duration every(Rate rate) { return Duration{static_cast<std::int64_t>(1e9 / rate.per_second)}; }

}  // namespace

KafkaTopic::KafkaTopic(TopicConfig config, FailureDomains& domains, Duration metrics_window)
    : Component("kafka/" + config.name), config_(std::move(config)), domains_(domains), metrics_window_(metrics_window) {
  if (auto problems = config_.validate(); !problems.empty()) {
    throw SimulationError("topic " + quote(config_.name) + ": " + problems[0].field + " " + problems[0].message);
  }
  const Topology& topology = domains_.topology();
  auto resolve = [&](const std::string& zone) {
    auto z = topology.find_zone(zone);
    if (!z) throw SimulationError("topic " + quote(config_.name) + ": unknown zone " + quote(zone));
    return *z;
  };
  for (const BrokerConfig& b : config_.brokers) brokers_.push_back(Broker{resolve(b.zone), b.zone});

  // Rack-aware assignment: brokers alternated by zone (zones in order of first
  // appearance, brokers in list order), then RF consecutive brokers per partition.
  std::vector<ZoneIndex> zone_order;
  std::map<ZoneIndex, std::vector<std::size_t>> by_zone;
  for (std::size_t b = 0; b < brokers_.size(); ++b) {
    if (!by_zone.contains(brokers_[b].zone)) zone_order.push_back(brokers_[b].zone);
    by_zone[brokers_[b].zone].push_back(b);
  }
  std::vector<std::size_t> alternated;
  for (std::size_t round = 0; alternated.size() < brokers_.size(); ++round) {
    for (ZoneIndex z : zone_order) {
      if (round < by_zone[z].size()) alternated.push_back(by_zone[z][round]);
    }
  }
  partitions_.resize(config_.partitions);
  for (std::size_t p = 0; p < partitions_.size(); ++p) {
    for (std::size_t j = 0; j < config_.replication_factor; ++j) {
      partitions_[p].replicas.push_back(Replica{alternated[(p + j) % alternated.size()]});
    }
    partitions_[p].leader = 0;
  }

  c_produced_.resize(topology.zone_count());
  c_failed_.resize(topology.zone_count());
  for (const TopicProducerConfig& producer : config_.producers) {
    std::optional<ZoneIndex> zone;
    if (!producer.zone.empty()) {
      zone = resolve(producer.zone);
      add_producer_zone(*zone);
    }
    fixed_rate_zones_.push_back(zone);
  }
}

void KafkaTopic::add_producer_zone(ZoneIndex zone) {
  if (std::find(producer_zones_.begin(), producer_zones_.end(), zone) != producer_zones_.end()) return;
  if (metrics_) throw SimulationError("topic " + quote(config_.name) + ": producer zones are declared before the run");
  producer_zones_.push_back(zone);
}

// ---- queries ----

bool KafkaTopic::broker_live(std::size_t b) const { return brokers_[b].up && !brokers_[b].fenced; }

std::vector<std::size_t> KafkaTopic::replicas(std::size_t p) const {
  std::vector<std::size_t> out;
  for (const Replica& r : partitions_[p].replicas) out.push_back(r.broker);
  return out;
}

std::optional<std::size_t> KafkaTopic::leader(std::size_t p) const {
  const Partition& part = partitions_[p];
  if (!part.leader) return std::nullopt;
  return part.replicas[*part.leader].broker;
}

std::vector<std::size_t> KafkaTopic::isr(std::size_t p) const {
  std::vector<std::size_t> out;
  for (const Replica& r : partitions_[p].replicas) {
    if (r.in_isr) out.push_back(r.broker);
  }
  return out;
}

std::uint64_t KafkaTopic::replica_offset(std::size_t p, std::size_t broker) const {
  const Partition& part = partitions_[p];
  for (std::size_t r = 0; r < part.replicas.size(); ++r) {
    if (part.replicas[r].broker == broker) return part.leader == r ? part.leo : part.replicas[r].offset;
  }
  throw SimulationError("topic " + quote(config_.name) + ": broker " + std::to_string(broker) +
                        " holds no replica of partition " + std::to_string(p));
}

std::uint64_t KafkaTopic::high_watermark(std::size_t p) const {
  const Partition& part = partitions_[p];
  std::uint64_t hw = part.leo;
  for (std::size_t r = 0; r < part.replicas.size(); ++r) {
    if (part.replicas[r].in_isr && part.leader != r) hw = std::min(hw, part.replicas[r].offset);
  }
  return hw;
}

const KafkaTopic::Message& KafkaTopic::message(std::size_t p, std::uint64_t offset) const {
  const Partition& part = partitions_[p];
  if (offset < part.log_start || offset >= part.leo) {
    throw SimulationError("topic " + quote(config_.name) + ": offset " + std::to_string(offset) +
                          " is outside partition " + std::to_string(p) + "'s log");
  }
  return part.log[offset - part.log_start];
}

bool KafkaTopic::readable_from(std::size_t p, ZoneIndex zone) const {
  const Partition& part = partitions_[p];
  return leader_serving(part) && reachable(zone, brokers_[part.replicas[*part.leader].broker].zone);
}

void KafkaTopic::add_reader(std::function<std::uint64_t(std::size_t)> needed_from,
                            std::function<void(std::size_t)> on_readable) {
  readers_.push_back(Reader{std::move(needed_from), std::move(on_readable)});
}

Duration KafkaTopic::offline_partition_time() const {
  Duration total = offline_time_;
  for (const Partition& part : partitions_) {
    if (part.offline_since) total += now() - *part.offline_since;
  }
  return total;
}

bool KafkaTopic::reachable(ZoneIndex a, ZoneIndex b) const {
  return a == b || domains_.network().path(a, b).reachable;
}

Duration KafkaTopic::round_trip(ZoneIndex a, ZoneIndex b) const {
  return a == b ? Duration::zero() : 2 * domains_.network().path(a, b).one_way;
}

bool KafkaTopic::leader_serving(const Partition& part) const {
  return part.leader && broker_live(part.replicas[*part.leader].broker);
}

bool KafkaTopic::connected(const Partition& part, const Replica& r) const {
  if (!leader_serving(part) || !broker_live(r.broker)) return false;
  return reachable(brokers_[r.broker].zone, brokers_[part.replicas[*part.leader].broker].zone);
}

std::size_t KafkaTopic::isr_count(const Partition& part) const {
  return static_cast<std::size_t>(
      std::count_if(part.replicas.begin(), part.replicas.end(), [](const Replica& r) { return r.in_isr; }));
}

std::string KafkaTopic::partition_name(std::size_t p) const { return config_.name + "-" + std::to_string(p); }

// ---- lifecycle ----

void KafkaTopic::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  const Topology& topology = domains_.topology();
  const Labels topic{{"topic", config_.name}};
  for (ZoneIndex z : producer_zones_) {
    c_produced_[z] = metrics_->counter("kafka.produced", {{"topic", config_.name}, {"zone", topology.zone_name(z)}});
    for (std::size_t cause = 0; cause < 3; ++cause) {
      c_failed_[z][cause] = metrics_->counter(
          "kafka.failed_produces",
          {{"topic", config_.name}, {"zone", topology.zone_name(z)}, {"cause", kCauseNames[cause]}});
    }
  }
  l_produce_ = metrics_->latency("kafka.produce_latency", topic);
  c_lost_ = metrics_->counter("kafka.lost_messages", topic);
  g_offline_ = metrics_->gauge("kafka.offline_partitions", topic);
  g_under_replicated_ = metrics_->gauge("kafka.under_replicated_partitions", topic);
  g_under_min_isr_ = metrics_->gauge("kafka.under_min_isr_partitions", topic);
  for (std::size_t p = 0; p < partitions_.size(); ++p) {
    partitions_[p].g_isr = metrics_->gauge("kafka.isr_size", {{"topic", config_.name}, {"partition", std::to_string(p)}},
                                           static_cast<double>(config_.replication_factor));
  }
  for (std::size_t b = 0; b < brokers_.size(); ++b) {
    brokers_[b].g_leaders = metrics_->gauge(
        "kafka.leaders", {{"topic", config_.name}, {"broker", std::to_string(b)}, {"zone", brokers_[b].zone_name}});
  }
  domains_.on_change([this] { on_change(); });
}

void KafkaTopic::start() {
  started_ = true;
  update_gauges();
  on_change();
  const Duration isr_check = config_.replica_lag_time_max / 2;
  schedule_after(isr_check, "kafka.isr_check", [this] { check_isr_lag(); });
  if (config_.auto_leader_rebalance) {
    schedule_after(config_.leader_imbalance_check_interval, "kafka.imbalance_check",
                   [this] { check_leader_imbalance(); });
  }
  for (std::size_t i = 0; i < config_.producers.size(); ++i) {
    if (fixed_rate_zones_[i]) produce_at_rate(i);
  }
}

void KafkaTopic::stop() {
  metrics_->finish(now());
  const Labels labels{{"topic", config_.name}};
  recorder().kpi("kafka.offline_partition_seconds", labels, to_seconds(offline_partition_time()));
  recorder().kpi("kafka.lost_messages", labels, static_cast<double>(lost_));
  recorder().kpi("kafka.leader_elections", labels, elections_);
  recorder().kpi("kafka.preferred_elections", labels, preferred_elections_);
  Duration worst{};
  for (Duration d : failover_times_) worst = std::max(worst, d);
  recorder().kpi("kafka.max_failover_seconds", labels, to_seconds(worst));
  recorder().kpi("kafka.produced", labels, static_cast<double>(produced_));
  recorder().kpi("kafka.failed_produces", labels, static_cast<double>(failed_));
}

void KafkaTopic::produce_at_rate(std::size_t producer) {
  produce(*fixed_rate_zones_[producer]);
  schedule_after(every(config_.producers[producer].rate), "kafka.produce", [this, producer] {
    produce_at_rate(producer);
  });
}

// ---- producing ----

KafkaTopic::ProduceResult KafkaTopic::produce(ZoneIndex from) {
  return produce_to(static_cast<std::size_t>(rng().below(partitions_.size())), from);
}

void KafkaTopic::fail_produce(ZoneIndex from, std::size_t cause, std::uint64_t n) {
  failed_ += n;
  if (from < c_failed_.size() && c_failed_[from][cause]) {
    metrics_->add(*c_failed_[from][cause], now(), static_cast<double>(n));
  }
}

KafkaTopic::ProduceResult KafkaTopic::produce_to(std::size_t p, ZoneIndex from) {
  if (from >= c_produced_.size() || !c_produced_[from]) {
    throw SimulationError("topic " + quote(config_.name) + ": zone " + std::to_string(from) +
                          " was not declared as a producer zone");
  }
  Partition& part = partitions_[p];
  if (!leader_serving(part) || !reachable(from, brokers_[part.replicas[*part.leader].broker].zone)) {
    fail_produce(from, kCauseNoLeader);
    return ProduceResult::kNoLeader;
  }
  if (config_.acks_all() && isr_count(part) < config_.min_insync_replicas) {
    fail_produce(from, kCauseNotEnoughReplicas);
    return ProduceResult::kNotEnoughReplicas;
  }
  ++part.leo;
  part.log.push_back(Message{now(), from});
  // Caught-up followers fetch it within a round trip: they have it.
  for (std::size_t r = 0; r < part.replicas.size(); ++r) {
    Replica& rep = part.replicas[r];
    if (part.leader != r && !rep.fetching && !rep.behind_since && connected(part, rep)) rep.offset = part.leo;
  }
  ++produced_;
  metrics_->add(*c_produced_[from], now());
  if (!config_.acks_all()) {
    metrics_->observe(l_produce_, now(), round_trip(from, brokers_[part.replicas[*part.leader].broker].zone));
  }
  advance_high_watermark(p);
  return ProduceResult::kAppended;
}

void KafkaTopic::advance_high_watermark(std::size_t p) {
  Partition& part = partitions_[p];
  if (!leader_serving(part)) return;  // nothing is acknowledged without a live leader
  const std::uint64_t hw = high_watermark(p);
  if (hw <= part.acked) return;
  if (config_.acks_all()) {
    // Acknowledged once the high water mark passes: the slowest connected ISR follower's round trip after
    // the leader has the message, or until the follower holding it back left the ISR or caught up.
    const ZoneIndex leader_zone = brokers_[part.replicas[*part.leader].broker].zone;
    Duration quorum{};
    for (std::size_t r = 0; r < part.replicas.size(); ++r) {
      const Replica& rep = part.replicas[r];
      if (part.leader != r && rep.in_isr && connected(part, rep)) {
        quorum = std::max(quorum, round_trip(leader_zone, brokers_[rep.broker].zone));
      }
    }
    // An ISR already below minInsyncReplicas when the mark passes fails the waiting sends, although the
    // messages stay in the log (Kafka's NOT_ENOUGH_REPLICAS_AFTER_APPEND).
    const bool too_few = isr_count(part) < config_.min_insync_replicas;
    for (std::uint64_t o = std::max(part.acked, part.log_start); o < hw; ++o) {
      const Message& m = part.log[o - part.log_start];
      if (too_few) {
        fail_produce(m.origin, kCauseNotEnoughReplicas);
      } else {
        metrics_->observe(l_produce_, now(), (now() - m.appended) + round_trip(m.origin, leader_zone) + quorum);
      }
    }
  }
  part.acked = hw;
  for (const Reader& reader : readers_) reader.on_readable(p);
  trim(p);
}

void KafkaTopic::trim(std::size_t p) {
  Partition& part = partitions_[p];
  std::uint64_t keep = part.acked;
  for (const Reader& reader : readers_) keep = std::min(keep, reader.needed_from(p));
  while (part.log_start < keep && !part.log.empty()) {
    part.log.pop_front();
    ++part.log_start;
  }
}

// ---- brokers coming and going ----

void KafkaTopic::on_change() {
  if (!started_) return;
  for (std::size_t b = 0; b < brokers_.size(); ++b) {
    Broker& broker = brokers_[b];
    const bool up = domains_.zone_up(broker.zone);
    if (broker.up && !up) {
      broker.up = false;
      broker.down_since = now();
      for (Partition& part : partitions_) {
        if (leader(&part - partitions_.data()) == b && !part.leader_down_since) part.leader_down_since = now();
      }
      // The controller last heard the broker at its last heartbeat.
      const std::int64_t hb = to_ns(config_.broker_heartbeat_interval);
      const SimTime last_heartbeat{Duration{to_ns(now()) / hb * hb}};
      const SimTime fence_at = std::max(now(), last_heartbeat + config_.broker_session_timeout);
      log_event(event_kinds::kafka::kBrokerDown, "broker " + std::to_string(b) + " (" + broker.zone_name +
                                                     "); last heartbeat at " +
                                                     seconds(last_heartbeat.time_since_epoch()) + ", fenced at " +
                                                     seconds(fence_at.time_since_epoch()) + " unless it returns");
      broker.fence_event = schedule_at(fence_at, "kafka.fence", [this, b] { fence(b); });
    } else if (!broker.up && up) {
      broker.up = true;
      cancel(broker.fence_event);
      if (broker.fenced) {
        unfence(b);
      } else {
        log_event(event_kinds::kafka::kBrokerReturned,
                  "broker " + std::to_string(b) + " (" + broker.zone_name + ") before it was fenced");
        for (Partition& part : partitions_) {
          if (leader(&part - partitions_.data()) == b) part.leader_down_since.reset();
        }
      }
    }
  }
  for (std::size_t p = 0; p < partitions_.size(); ++p) {
    refresh_followers(p);
    advance_high_watermark(p);
  }
  update_gauges();
}

void KafkaTopic::fence(std::size_t b) {
  Broker& broker = brokers_[b];
  if (broker.up || broker.fenced) return;
  broker.fenced = true;
  log_event(event_kinds::kafka::kBrokerLost, "broker " + std::to_string(b) + " (" + broker.zone_name + ") fenced " +
                                                 seconds(now() - broker.down_since) + " after it went down");
  for (std::size_t p = 0; p < partitions_.size(); ++p) {
    Partition& part = partitions_[p];
    for (std::size_t r = 0; r < part.replicas.size(); ++r) {
      if (part.replicas[r].broker != b) continue;
      // KRaft drops a fenced broker from the ISR unless it is the last member.
      if (part.replicas[r].in_isr && isr_count(part) > 1) shrink_isr(p, r, "broker fenced");
      if (part.leader == r) elect(p, "leader's broker " + std::to_string(b) + " fenced");
    }
  }
  update_gauges();
}

void KafkaTopic::unfence(std::size_t b) {
  Broker& broker = brokers_[b];
  broker.fenced = false;
  log_event(event_kinds::kafka::kBrokerReturned, "broker " + std::to_string(b) + " (" + broker.zone_name +
                                                     ") unfenced after " + seconds(now() - broker.down_since));
  for (std::size_t p = 0; p < partitions_.size(); ++p) {
    Partition& part = partitions_[p];
    if (part.leader) continue;
    for (std::size_t r = 0; r < part.replicas.size(); ++r) {
      if (part.replicas[r].broker != b) continue;
      if (part.replicas[r].in_isr) {
        become_leader(p, r, false, "its last ISR member returned");
      } else if (config_.unclean_leader_election) {
        become_leader(p, r, true, "an out-of-sync replica returned and no ISR member is alive");
      }
    }
  }
}

// ---- replication and the ISR ----

void KafkaTopic::refresh_followers(std::size_t p) {
  Partition& part = partitions_[p];
  for (std::size_t r = 0; r < part.replicas.size(); ++r) {
    if (part.leader == r) continue;
    Replica& rep = part.replicas[r];
    if (!connected(part, rep)) {
      if (!rep.behind_since) rep.behind_since = now();
      if (rep.fetching) {
        cancel(rep.fetch_event);
        rep.fetching = false;
      }
      continue;
    }
    if (rep.fetching) continue;
    if (rep.offset >= part.leo) {
      caught_up(p, r);
      continue;
    }
    if (!rep.behind_since) rep.behind_since = now();
    rep.fetching = true;
    const Duration rtt = round_trip(brokers_[rep.broker].zone, brokers_[part.replicas[*part.leader].broker].zone);
    rep.fetch_event = schedule_after(rtt, "kafka.replica_fetch", [this, p, r] { fetch_round(p, r); });
  }
}

void KafkaTopic::fetch_round(std::size_t p, std::size_t r) {
  Partition& part = partitions_[p];
  Replica& rep = part.replicas[r];
  rep.fetching = false;
  if (!connected(part, rep)) return;
  const auto per_round =
      static_cast<std::uint64_t>(std::max<std::int64_t>(1, config_.replica_fetch_max_bytes.bytes / config_.message_size.bytes));
  rep.offset = std::min(part.leo, rep.offset + per_round);
  advance_high_watermark(p);
  refresh_followers(p);  // caught up, or the next round
}

void KafkaTopic::caught_up(std::size_t p, std::size_t r) {
  Partition& part = partitions_[p];
  Replica& rep = part.replicas[r];
  rep.offset = part.leo;
  rep.behind_since.reset();
  if (!rep.in_isr) {
    rep.in_isr = true;
    log_event(event_kinds::kafka::kIsrExpand,
              "partition " + partition_name(p) + ": broker " + std::to_string(rep.broker) + " caught up at offset " +
                  std::to_string(rep.offset) + ", ISR size " + std::to_string(isr_count(part)));
    update_gauges();
  }
  advance_high_watermark(p);
}

void KafkaTopic::shrink_isr(std::size_t p, std::size_t r, const std::string& why) {
  Partition& part = partitions_[p];
  part.replicas[r].in_isr = false;
  log_event(event_kinds::kafka::kIsrShrink, "partition " + partition_name(p) + ": broker " +
                                                std::to_string(part.replicas[r].broker) + " left the ISR (" + why +
                                                "), ISR size " + std::to_string(isr_count(part)));
  advance_high_watermark(p);
  update_gauges();
}

void KafkaTopic::check_isr_lag() {
  for (std::size_t p = 0; p < partitions_.size(); ++p) {
    Partition& part = partitions_[p];
    if (!leader_serving(part)) continue;  // only a live leader shrinks its ISR
    for (std::size_t r = 0; r < part.replicas.size(); ++r) {
      const Replica& rep = part.replicas[r];
      if (part.leader == r || !rep.in_isr || !rep.behind_since) continue;
      if (now() - *rep.behind_since > config_.replica_lag_time_max) {
        shrink_isr(p, r, "not caught up for " + seconds(now() - *rep.behind_since) + ", replicaLagTimeMax " +
                             seconds(config_.replica_lag_time_max));
      }
    }
  }
  schedule_after(config_.replica_lag_time_max / 2, "kafka.isr_check", [this] { check_isr_lag(); });
}

// ---- leadership ----

void KafkaTopic::elect(std::size_t p, const std::string& why) {
  Partition& part = partitions_[p];
  for (std::size_t r = 0; r < part.replicas.size(); ++r) {
    if (part.replicas[r].in_isr && broker_live(part.replicas[r].broker) && part.leader != r) {
      become_leader(p, r, false, why);
      return;
    }
  }
  if (config_.unclean_leader_election) {
    for (std::size_t r = 0; r < part.replicas.size(); ++r) {
      if (broker_live(part.replicas[r].broker) && part.leader != r) {
        become_leader(p, r, true, why + "; no live ISR member");
        return;
      }
    }
  }
  go_offline(p, why);
}

void KafkaTopic::go_offline(std::size_t p, const std::string& why) {
  Partition& part = partitions_[p];
  if (part.leader) part.replicas[*part.leader].offset = part.leo;  // the last leader's log
  part.leader.reset();
  if (!part.offline_since) part.offline_since = now();
  log_event(event_kinds::kafka::kPartitionOffline, "partition " + partition_name(p) + ": " + why +
                                                       "; no live ISR member" +
                                                       (config_.unclean_leader_election ? " and no live replica" : ""));
  refresh_followers(p);
  update_gauges();
}

void KafkaTopic::become_leader(std::size_t p, std::size_t r, bool unclean, const std::string& why) {
  Partition& part = partitions_[p];
  if (part.leader) part.replicas[*part.leader].offset = part.leo;  // the old leader's log, as a follower's
  Replica& chosen = part.replicas[r];
  if (chosen.fetching) {
    cancel(chosen.fetch_event);
    chosen.fetching = false;
  }
  const std::uint64_t end = chosen.offset;
  std::uint64_t lost = 0;
  if (end < part.leo) {
    // The new leader's log is the partition's log: what it lacks is gone. Acknowledged messages are lost;
    // the others' producers were never acknowledged (their sends fail).
    lost = part.acked > end ? part.acked - end : 0;
    for (std::uint64_t o = std::max({end, part.acked, part.log_start}); o < part.leo; ++o) {
      fail_produce(part.log[o - part.log_start].origin, kCauseTruncated);
    }
    const std::uint64_t drop = std::min<std::uint64_t>(part.leo - end, part.log.size());
    part.log.erase(part.log.end() - static_cast<std::ptrdiff_t>(drop), part.log.end());
    part.leo = end;
    part.log_start = std::min(part.log_start, end);
    part.acked = std::min(part.acked, end);
    for (Replica& other : part.replicas) other.offset = std::min(other.offset, end);
    if (lost > 0) {
      lost_ += lost;
      metrics_->add(c_lost_, now(), static_cast<double>(lost));
    }
  }
  if (unclean) {
    for (std::size_t o = 0; o < part.replicas.size(); ++o) part.replicas[o].in_isr = (o == r);
    log_event(event_kinds::kafka::kUncleanElection, "partition " + partition_name(p) + ": out-of-sync broker " +
                                                        std::to_string(part.replicas[r].broker) + " leads; " +
                                                        std::to_string(lost) + " acknowledged messages lost");
  }
  part.leader = r;
  part.replicas[r].behind_since.reset();
  ++elections_;
  std::string took;
  if (part.leader_down_since) {
    failover_times_.push_back(now() - *part.leader_down_since);
    took = ", " + seconds(now() - *part.leader_down_since) + " after the previous leader went down";
    part.leader_down_since.reset();
  }
  if (part.offline_since) {
    offline_time_ += now() - *part.offline_since;
    part.offline_since.reset();
  }
  log_event(event_kinds::kafka::kLeaderElected,
            "partition " + partition_name(p) + ": broker " + std::to_string(part.replicas[r].broker) + " (" +
                brokers_[part.replicas[r].broker].zone_name + ") leads (" + why + ")" + took);
  refresh_followers(p);
  advance_high_watermark(p);
  update_gauges();
}

void KafkaTopic::check_leader_imbalance() {
  for (std::size_t b = 0; b < brokers_.size(); ++b) {
    if (!broker_live(b)) continue;
    std::vector<std::size_t> not_led;
    std::size_t preferred = 0;
    for (std::size_t p = 0; p < partitions_.size(); ++p) {
      if (partitions_[p].replicas[0].broker != b) continue;
      ++preferred;
      if (partitions_[p].leader != 0) not_led.push_back(p);
    }
    if (preferred == 0 ||
        static_cast<double>(not_led.size()) / static_cast<double>(preferred) <= config_.leader_imbalance_per_broker.value) {
      continue;
    }
    for (std::size_t p : not_led) {
      Partition& part = partitions_[p];
      const Replica& rep = part.replicas[0];
      // A preferred replica election moves leadership only to a caught-up ISR member.
      if (!rep.in_isr || rep.behind_since || rep.fetching || !connected(part, rep)) continue;
      part.replicas[*part.leader].offset = part.leo;
      part.leader = 0;
      ++preferred_elections_;
      log_event(event_kinds::kafka::kLeaderElected, "partition " + partition_name(p) + ": broker " + std::to_string(b) +
                                                        " (" + brokers_[b].zone_name +
                                                        ") leads again (preferred replica election)");
      refresh_followers(p);
      advance_high_watermark(p);
    }
    update_gauges();
  }
  schedule_after(config_.leader_imbalance_check_interval, "kafka.imbalance_check",
                 [this] { check_leader_imbalance(); });
}

void KafkaTopic::update_gauges() {
  if (!metrics_) return;
  double offline = 0, under_replicated = 0, under_min_isr = 0;
  std::vector<double> leaders(brokers_.size(), 0);
  for (const Partition& part : partitions_) {
    const std::size_t in_sync = isr_count(part);
    if (!part.leader) {
      ++offline;
    } else {
      ++leaders[part.replicas[*part.leader].broker];
    }
    if (in_sync < part.replicas.size()) ++under_replicated;
    if (in_sync < config_.min_insync_replicas) ++under_min_isr;
    metrics_->set(part.g_isr, now(), static_cast<double>(in_sync));
  }
  metrics_->set(g_offline_, now(), offline);
  metrics_->set(g_under_replicated_, now(), under_replicated);
  metrics_->set(g_under_min_isr_, now(), under_min_isr);
  for (std::size_t b = 0; b < brokers_.size(); ++b) metrics_->set(brokers_[b].g_leaders, now(), leaders[b]);
}

}  // namespace drsim
