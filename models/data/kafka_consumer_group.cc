#include "models/data/kafka_consumer_group.h"

#include <algorithm>

#include "models/data/data_event_kinds.h"
#include "sim/errors.h"
#include "sim/quote.h"
#include "sim/simulation.h"

namespace drsim {

namespace {
std::string seconds(Duration d) { return format_seconds(d) + "s"; }
}  // namespace

KafkaConsumerGroup::KafkaConsumerGroup(ConsumerGroupConfig config, KafkaTopic& topic, FailureDomains& domains,
                                       Duration metrics_window)
    : Component("kafka/" + topic.config().name + "/" + config.name),
      config_(std::move(config)),
      topic_(topic),
      domains_(domains),
      metrics_window_(metrics_window) {
  if (auto problems = config_.validate(); !problems.empty()) {
    throw SimulationError("consumer group " + quote(config_.name) + ": " + problems[0].field + " " +
                          problems[0].message);
  }
  const Topology& topology = domains_.topology();
  for (const ConsumerInstancesConfig& instances : config_.instances) {
    auto zone = topology.find_zone(instances.zone);
    if (!zone) throw SimulationError("consumer group " + quote(config_.name) + ": unknown zone " + quote(instances.zone));
    if (std::find(member_zones_.begin(), member_zones_.end(), *zone) == member_zones_.end()) {
      member_zones_.push_back(*zone);
    }
    for (std::uint32_t i = 0; i < instances.count; ++i) {
      Member m;
      m.zone = *zone;
      m.id = instances.zone + "-" + std::to_string(i);
      members_.push_back(std::move(m));
    }
  }
  partitions_.resize(topic_.partition_count());
  topic_.add_reader([this](std::size_t p) { return partitions_[p].committed; },
                    [this](std::size_t p) { on_readable(p); });
}

std::uint64_t KafkaConsumerGroup::clamp(std::size_t p, std::uint64_t offset) const {
  return std::min(offset, topic_.log_end(p));
}

std::uint64_t KafkaConsumerGroup::lag_messages() const {
  std::uint64_t lag = 0;
  for (std::size_t p = 0; p < partitions_.size(); ++p) {
    const std::uint64_t hw = topic_.high_watermark(p), committed = clamp(p, partitions_[p].committed);
    if (hw > committed) lag += hw - committed;
  }
  return lag;
}

Duration KafkaConsumerGroup::lag() const {
  Duration worst{};
  for (std::size_t p = 0; p < partitions_.size(); ++p) {
    const std::uint64_t committed = clamp(p, partitions_[p].committed);
    if (committed < topic_.high_watermark(p) && committed >= topic_.log_start(p)) {
      worst = std::max(worst, now() - topic_.message(p, committed).appended);
    }
  }
  return worst;
}

// ---- lifecycle ----

void KafkaConsumerGroup::attach() {
  metrics_.emplace(recorder(), WindowedMetricsConfig{.window = metrics_window_});
  const Topology& topology = domains_.topology();
  const std::string& topic = topic_.config().name;
  const Labels labels{{"topic", topic}, {"group", config_.name}};
  c_consumed_.resize(topology.zone_count());
  g_members_.resize(topology.zone_count());
  c_by_producer_zone_.resize(topology.zone_count());
  for (ZoneIndex z : member_zones_) {
    const Labels zl{{"topic", topic}, {"group", config_.name}, {"zone", topology.zone_name(z)}};
    c_consumed_[z] = metrics_->counter("kafka.consumed", zl);
    g_members_[z] = metrics_->gauge("kafka.consumer_members", zl);
  }
  for (ZoneIndex z : topic_.producer_zones()) {
    c_by_producer_zone_[z] = metrics_->counter("kafka.consumed_by_producer_zone",
                                               {{"topic", topic}, {"group", config_.name}, {"zone", topology.zone_name(z)}});
  }
  l_delay_ = metrics_->latency("kafka.consume_delay", labels);
  g_lag_messages_ = metrics_->gauge("kafka.consumer_lag_messages", labels);
  g_lag_s_ = metrics_->gauge("kafka.consumer_lag_s", labels);
  c_redelivered_ = metrics_->counter("kafka.redelivered", labels);
  domains_.on_change([this] { on_change(); });
}

void KafkaConsumerGroup::start() {
  started_ = true;
  // The group starts assigned, as after its first rebalance.
  for (Member& m : members_) {
    m.up = domains_.zone_up(m.zone);
    m.in_group = m.up;
    m.state = m.up ? State::kJoined : State::kDead;
  }
  rebalancing_ = true;
  maybe_complete_rebalance();
  // Members were not started in lock-step: each one's first poll comes at a random moment of its first
  // cycle. (A rebalance, by contrast, does restart them together.)
  const double cycle = to_seconds(config_.batch_processing_time + config_.fetch_max_wait);
  for (std::size_t i = 0; i < members_.size(); ++i) {
    Member& m = members_[i];
    if (m.state != State::kPolling) continue;
    cancel(m.poll_event);
    m.poll_event = schedule_after(Duration{static_cast<std::int64_t>(rng().uniform(0, cycle) * 1e9)}, "kafka.poll",
                                  [this, i] { poll(i); });
  }
  update_member_gauges();
  sample_lag();
}

void KafkaConsumerGroup::stop() {
  metrics_->finish(now());
  const Labels labels{{"topic", topic_.config().name}, {"group", config_.name}};
  recorder().kpi("kafka.consumed", labels, static_cast<double>(consumed_));
  recorder().kpi("kafka.redelivered", labels, static_cast<double>(redelivered_));
  recorder().kpi("kafka.rebalances", labels, rebalances_);
  recorder().kpi("kafka.max_consumer_lag_messages", labels, static_cast<double>(max_lag_messages_));
  recorder().kpi("kafka.max_consumer_lag_seconds", labels, to_seconds(max_lag_));
}

void KafkaConsumerGroup::sample_lag() {
  const std::uint64_t messages = lag_messages();
  const Duration age = lag();
  max_lag_messages_ = std::max(max_lag_messages_, messages);
  max_lag_ = std::max(max_lag_, age);
  metrics_->set(g_lag_messages_, now(), static_cast<double>(messages));
  metrics_->set(g_lag_s_, now(), to_seconds(age));
  schedule_after(metrics_window_, "kafka.lag_sample", [this] { sample_lag(); });
}

void KafkaConsumerGroup::update_member_gauges() {
  std::vector<double> alive(g_members_.size(), 0);
  for (const Member& m : members_) {
    if (m.up && m.in_group) ++alive[m.zone];
  }
  for (ZoneIndex z : member_zones_) metrics_->set(*g_members_[z], now(), alive[z]);
}

// ---- members coming and going ----

void KafkaConsumerGroup::on_change() {
  if (!started_) return;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    Member& m = members_[i];
    const bool up = domains_.zone_up(m.zone);
    if (m.up && !up) {
      m.up = false;
      cancel(m.poll_event);  // a batch in progress is lost with the process
      m.state = State::kDead;
      m.batch.clear();
      const std::int64_t hb = to_ns(config_.heartbeat_interval);
      const SimTime last_heartbeat{Duration{to_ns(now()) / hb * hb}};
      const SimTime expires = std::max(now(), last_heartbeat + config_.session_timeout);
      log_event(event_kinds::consumer_group::kMemberDown,
                "member " + m.id + "; its session expires at " + seconds(expires.time_since_epoch()));
      m.expire_event = schedule_at(expires, "kafka.session_expiry", [this, i] { expire(i); });
    } else if (!m.up && up) {
      m.up = true;
      cancel(m.expire_event);
      m.in_group = true;
      m.state = State::kWaiting;
      log_event(event_kinds::consumer_group::kMemberReturned, "member " + m.id + " rejoins the group");
      start_rebalance("member " + m.id + " joined");
    }
  }
  update_member_gauges();
}

void KafkaConsumerGroup::expire(std::size_t i) {
  Member& m = members_[i];
  if (m.up || !m.in_group) return;
  m.in_group = false;
  log_event(event_kinds::consumer_group::kMemberLost,
            "member " + m.id + ": no heartbeat for " + seconds(config_.session_timeout));
  update_member_gauges();
  start_rebalance("member " + m.id + "'s session expired");
}

void KafkaConsumerGroup::start_rebalance(const std::string& why) {
  if (!rebalancing_) {
    rebalancing_ = true;
    rebalance_started_ = now();
    ++rebalances_;
    log_event(event_kinds::consumer_group::kRebalance, "generation " + std::to_string(generation_ + 1) + ": " + why);
  }
  // Members waiting on a fetch join at once; busy ones when their batch ends.
  for (std::size_t i = 0; i < members_.size(); ++i) {
    const State s = members_[i].state;
    if (members_[i].up && (s == State::kWaiting || s == State::kPolling)) join(i);
  }
  maybe_complete_rebalance();
}

void KafkaConsumerGroup::join(std::size_t i) {
  Member& m = members_[i];
  cancel(m.poll_event);
  commit(i);  // auto-commit on revocation
  for (std::size_t p : m.assigned) partitions_[p].owner.reset();
  m.assigned.clear();
  m.state = State::kJoined;
}

void KafkaConsumerGroup::maybe_complete_rebalance() {
  if (!rebalancing_) return;
  std::vector<std::size_t> joined;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    const Member& m = members_[i];
    if (!m.in_group) continue;
    if (m.state != State::kJoined) return;  // still processing, or dead and not yet expired
    joined.push_back(i);
  }
  rebalancing_ = false;
  ++generation_;
  // Everything restarts from the committed offsets.
  for (std::size_t p = 0; p < partitions_.size(); ++p) {
    PartitionState& ps = partitions_[p];
    ps.committed = clamp(p, ps.committed);
    const std::uint64_t processed = clamp(p, ps.processed);
    if (processed > ps.committed) {
      redelivered_ += processed - ps.committed;
      metrics_->add(c_redelivered_, now(), static_cast<double>(processed - ps.committed));
    }
    ps.position = ps.processed = ps.committed;
    ps.owner.reset();
  }
  const std::size_t n = joined.size(), partitions = partitions_.size();
  std::string summary;
  for (std::size_t k = 0; k < n; ++k) {
    Member& m = members_[joined[k]];
    m.assigned.clear();
    m.next_partition = 0;
    if (config_.assignor == "roundrobin") {
      for (std::size_t p = k; p < partitions; p += n) m.assigned.push_back(p);
    } else {  // range: the first (partitions % n) members get one more
      const std::size_t base = partitions / n, extra = partitions % n;
      const std::size_t first = k * base + std::min(k, extra);
      const std::size_t count = base + (k < extra ? 1 : 0);
      for (std::size_t p = first; p < first + count; ++p) m.assigned.push_back(p);
    }
    for (std::size_t p : m.assigned) partitions_[p].owner = joined[k];
    summary += (summary.empty() ? "" : ", ") + m.id + ": " + std::to_string(m.assigned.size());
  }
  if (started_ && rebalances_ > 0) {
    log_event(event_kinds::consumer_group::kAssigned, "generation " + std::to_string(generation_) + " after " +
                                                          seconds(now() - rebalance_started_) + ": " +
                                                          (n == 0 ? "no members" : summary));
  }
  for (std::size_t i : joined) {
    Member& m = members_[i];
    m.last_commit = now();
    m.state = State::kPolling;
    m.poll_event = schedule_after(Duration::zero(), "kafka.poll", [this, i] { poll(i); });
  }
}

// ---- the poll loop ----

void KafkaConsumerGroup::commit(std::size_t i) {
  Member& m = members_[i];
  for (std::size_t p : m.assigned) partitions_[p].committed = partitions_[p].position;
  m.last_commit = now();
}

void KafkaConsumerGroup::on_readable(std::size_t p) {
  if (!started_) return;
  const auto owner = partitions_[p].owner;
  if (!owner || members_[*owner].state != State::kWaiting) return;
  Member& m = members_[*owner];
  cancel(m.poll_event);
  m.state = State::kPolling;
  const std::size_t i = *owner;
  m.poll_event = schedule_after(Duration::zero(), "kafka.poll", [this, i] { poll(i); });
}

void KafkaConsumerGroup::poll(std::size_t i) {
  Member& m = members_[i];
  if (!m.up) return;
  if (rebalancing_) {
    join(i);
    maybe_complete_rebalance();
    return;
  }
  if (now() - m.last_commit >= config_.auto_commit_interval) commit(i);
  m.batch.clear();
  std::uint64_t budget = config_.max_poll_records, records = 0;
  const std::size_t n = m.assigned.size();
  for (std::size_t k = 0; k < n && budget > 0; ++k) {
    const std::size_t p = m.assigned[(m.next_partition + k) % n];
    PartitionState& ps = partitions_[p];
    ps.position = clamp(p, ps.position);
    ps.processed = clamp(p, ps.processed);
    if (!topic_.readable_from(p, m.zone)) continue;
    const std::uint64_t hw = topic_.high_watermark(p);
    if (ps.position >= hw) continue;
    const std::uint64_t take = std::min(hw - ps.position, budget);
    m.batch.push_back(Range{p, ps.position, ps.position + take});
    ps.position += take;
    budget -= take;
    records += take;
  }
  if (n > 0) m.next_partition = (m.next_partition + 1) % n;
  if (records == 0) {
    m.state = State::kWaiting;
    m.poll_event = schedule_after(config_.fetch_max_wait, "kafka.poll", [this, i] { poll(i); });
    return;
  }
  m.state = State::kProcessing;
  const Duration busy = config_.batch_processing_time + static_cast<std::int64_t>(records) * config_.record_processing_time;
  m.poll_event = schedule_after(busy, "kafka.batch_done", [this, i] { finish_batch(i); });
}

void KafkaConsumerGroup::finish_batch(std::size_t i) {
  Member& m = members_[i];
  std::uint64_t done = 0;
  for (const Range& r : m.batch) {
    // An unclean election may have truncated the log under the batch.
    const std::uint64_t to = clamp(r.partition, r.to);
    for (std::uint64_t o = std::max(r.from, topic_.log_start(r.partition)); o < to; ++o) {
      const KafkaTopic::Message& msg = topic_.message(r.partition, o);
      metrics_->observe(l_delay_, now(), now() - msg.appended);
      if (c_by_producer_zone_[msg.origin]) metrics_->add(*c_by_producer_zone_[msg.origin], now());
      ++done;
    }
    PartitionState& ps = partitions_[r.partition];
    ps.processed = std::max(clamp(r.partition, ps.processed), to);
  }
  m.batch.clear();
  consumed_ += done;
  metrics_->add(*c_consumed_[m.zone], now(), static_cast<double>(done));
  m.state = State::kPolling;
  poll(i);
}

}  // namespace drsim
