#pragma once
// A Kafka-style partitioned log (docs/sources.md section 4: "message queues lose
// half their shards but stay up; Kafka partition leaders fail over"):
// partitions replicated over brokers in zones, the in-sync replica set (ISR),
// leader election by the controller, and what producers see meanwhile.
// Semantics of Apache Kafka 3.6 in KRaft mode (models/data/topic_config.h
// lists the settings and their defaults).
//
//   assignment   the brokers are listed alternating by zone (a0, b0, c0, a1,
//                ...), as Kafka's rack-aware assignment does; partition p's
//                replicas are the replicationFactor brokers from position p
//                on, round-robin, and the first is its preferred leader.
//                (Kafka also starts at a random broker and shifts followers;
//                this assignment is the same without the randomness)
//   replication  a follower that is up and reaches its leader is caught up
//                at once (its fetch round trip is milliseconds). One that is
//                down or cut off stops at its offset; when it reaches the
//                leader again it fetches replicaFetchMaxBytes per round trip
//                until it has the log end, and rejoins the ISR then
//   ISR          the leader drops a follower that has not been caught up for
//                replicaLagTimeMax, checked every replicaLagTimeMax / 2 (as
//                the broker's isr-expiration task); the controller drops a
//                fenced broker from every ISR at once, except the last member
//                (KRaft keeps it: the partition is then offline)
//   high water   the smallest offset of the ISR: what consumers may read and
//                what acks=all producers are acknowledged for. A dead ISR
//                follower holds it (produces wait) until it leaves the ISR
//   controller   brokers heartbeat every brokerHeartbeatInterval (from t = 0);
//                a broker whose heartbeats stop is fenced brokerSessionTimeout
//                after its last one. Then each partition it led gets the first
//                live ISR member of its replica list as leader; none: the
//                partition is offline until an ISR member returns, or, with
//                uncleanLeaderElection, the first live replica leads and what
//                it lacks of the acknowledged log is lost (counted). The
//                controller quorum itself is taken to be available and to
//                reach every up broker; its metadata round trips (ms) are not
//                modelled
//   truncation   a new leader's log is the partition's log: messages past its
//                end are gone (acknowledged ones are lost messages, the
//                others failed produces)
//   preferred    every leaderImbalanceCheckInterval a broker that leads fewer
//                than (1 - leaderImbalancePerBroker) of the partitions it is
//                preferred for gets them back where it is in the ISR
//   produce      from a zone, to a partition by key hash (uniform): fails at
//                once when the leader is down, fenced or unreachable from the
//                producer's zone (the producer's timeout and retries are not
//                modelled: a failure is one failed send), or with acks=all
//                when the ISR is below minInsyncReplicas. Its latency is the
//                producer-leader round trip plus, for acks=all, the wait for
//                the high water mark (the slowest ISR round trip, or until a
//                dead ISR follower is dropped). A send waiting for the mark
//                fails if the ISR is below minInsyncReplicas when it passes
//                (NOT_ENOUGH_REPLICAS_AFTER_APPEND; the message stays in the
//                log). kafka.produced counts what the leader appended, so such
//                a message is both produced and a failed send
//
// Recorded per window (labels topic; zone, partition or broker where said):
// kafka.produced{zone}, kafka.failed_produces{zone, cause: no_leader |
// not_enough_replicas | truncated}, kafka.produce_latency_*, kafka.isr_size
// {partition}, kafka.under_replicated_partitions, kafka.under_min_isr_partitions,
// kafka.offline_partitions, kafka.leaders{broker, zone}, kafka.lost_messages.
// KPIs: kafka.offline_partition_seconds, kafka.lost_messages,
// kafka.leader_elections, kafka.preferred_elections, kafka.max_failover_seconds
// (a leader's broker down -> the partition led again), kafka.produced,
// kafka.failed_produces. Events: the kafka.* kinds
// (models/data/data_event_kinds.h).
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/data/topic_config.h"
#include "models/metrics/windowed_metrics.h"
#include "models/topology/failure_domains.h"
#include "sim/component.h"

namespace drsim {

class KafkaTopic : public Component {
 public:
  KafkaTopic(TopicConfig config, FailureDomains& domains, Duration metrics_window = std::chrono::seconds(1));

  enum class ProduceResult { kAppended, kNoLeader, kNotEnoughReplicas };
  // One message from a zone, to a partition drawn uniformly (key hash).
  ProduceResult produce(ZoneIndex from);
  ProduceResult produce_to(std::size_t partition, ZoneIndex from);

  // Zones that produce; the builder declares service producers' zones before
  // the run starts (fixed-rate producers' zones are declared by the config).
  void add_producer_zone(ZoneIndex zone);
  const std::vector<ZoneIndex>& producer_zones() const { return producer_zones_; }

  const TopicConfig& config() const { return config_; }
  std::size_t partition_count() const { return partitions_.size(); }
  std::size_t broker_count() const { return brokers_.size(); }
  ZoneIndex broker_zone(std::size_t broker) const { return brokers_[broker].zone; }
  // Up, and not fenced by the controller.
  bool broker_live(std::size_t broker) const;
  // The partition's replicas (broker ids), preferred leader first.
  std::vector<std::size_t> replicas(std::size_t p) const;
  // The leader the controller has elected (it may be down and not yet fenced).
  std::optional<std::size_t> leader(std::size_t p) const;
  std::vector<std::size_t> isr(std::size_t p) const;
  bool offline(std::size_t p) const { return !partitions_[p].leader.has_value(); }
  std::uint64_t replica_offset(std::size_t p, std::size_t broker) const;

  // ---- for consumers ----
  struct Message {
    SimTime appended{};
    ZoneIndex origin = 0;
  };
  std::uint64_t log_end(std::size_t p) const { return partitions_[p].leo; }
  std::uint64_t high_watermark(std::size_t p) const;
  std::uint64_t log_start(std::size_t p) const { return partitions_[p].log_start; }
  // offset in [log_start, log_end)
  const Message& message(std::size_t p, std::uint64_t offset) const;
  // A consumer in the zone can fetch: the leader is up and reachable.
  bool readable_from(std::size_t p, ZoneIndex zone) const;
  // A reader (consumer group) says from which offset it still needs each
  // partition (retention keeps the log from the smallest such offset) and
  // hears whenever a partition's high water mark advances.
  void add_reader(std::function<std::uint64_t(std::size_t p)> needed_from,
                  std::function<void(std::size_t p)> on_readable);

  std::uint64_t produced() const { return produced_; }
  std::uint64_t failed_produces() const { return failed_; }
  std::uint64_t lost_messages() const { return lost_; }
  std::uint32_t leader_elections() const { return elections_; }
  std::uint32_t preferred_elections() const { return preferred_elections_; }
  // A leader's broker going down -> the partition led again, per failover.
  const std::vector<Duration>& failover_times() const { return failover_times_; }
  Duration offline_partition_time() const;

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  struct Replica {
    std::size_t broker = 0;
    std::uint64_t offset = 0;
    bool in_isr = true;
    // When it was last caught up with the leader; unset while caught up.
    std::optional<SimTime> behind_since;
    bool fetching = false;
    EventId fetch_event;
  };
  struct Partition {
    std::vector<Replica> replicas;
    std::optional<std::size_t> leader;  // index into replicas
    std::deque<Message> log;            // offsets [log_start, leo)
    std::uint64_t log_start = 0;
    std::uint64_t leo = 0;
    std::uint64_t acked = 0;  // the high water mark last announced
    std::optional<SimTime> leader_down_since;
    std::optional<SimTime> offline_since;
    GaugeId g_isr;
  };
  struct Broker {
    ZoneIndex zone = 0;
    std::string zone_name;
    bool up = true;
    bool fenced = false;
    SimTime down_since{};
    EventId fence_event;
    GaugeId g_leaders;
  };
  struct Reader {
    std::function<std::uint64_t(std::size_t)> needed_from;
    std::function<void(std::size_t)> on_readable;
  };

  bool reachable(ZoneIndex a, ZoneIndex b) const;
  Duration round_trip(ZoneIndex a, ZoneIndex b) const;
  bool leader_serving(const Partition& part) const;
  bool connected(const Partition& part, const Replica& r) const;
  std::size_t isr_count(const Partition& part) const;
  std::string partition_name(std::size_t p) const;

  void on_change();
  void fence(std::size_t broker);
  void unfence(std::size_t broker);
  void refresh_followers(std::size_t p);
  void fetch_round(std::size_t p, std::size_t r);
  void caught_up(std::size_t p, std::size_t r);
  void shrink_isr(std::size_t p, std::size_t r, const std::string& why);
  void elect(std::size_t p, const std::string& why);
  void become_leader(std::size_t p, std::size_t r, bool unclean, const std::string& why);
  void go_offline(std::size_t p, const std::string& why);
  void advance_high_watermark(std::size_t p);
  void trim(std::size_t p);
  void check_isr_lag();
  void check_leader_imbalance();
  void produce_at_rate(std::size_t producer);
  void update_gauges();
  void fail_produce(ZoneIndex from, std::size_t cause, std::uint64_t n = 1);

  TopicConfig config_;
  FailureDomains& domains_;
  Duration metrics_window_;
  std::vector<Broker> brokers_;
  std::vector<Partition> partitions_;
  std::vector<ZoneIndex> producer_zones_;
  std::vector<std::optional<ZoneIndex>> fixed_rate_zones_;  // per config producer
  std::vector<Reader> readers_;
  bool started_ = false;

  std::uint64_t produced_ = 0, failed_ = 0, lost_ = 0;
  std::uint32_t elections_ = 0, preferred_elections_ = 0;
  std::vector<Duration> failover_times_;
  Duration offline_time_{};

  std::optional<WindowedMetrics> metrics_;
  // Per topology zone (only producer zones are declared).
  std::vector<std::optional<CounterId>> c_produced_;
  std::vector<std::array<std::optional<CounterId>, 3>> c_failed_;
  LatencyId l_produce_;
  CounterId c_lost_;
  GaugeId g_offline_, g_under_replicated_, g_under_min_isr_;
};

}  // namespace drsim
