#pragma once
// A Kafka consumer group reading a KafkaTopic (docs/sources.md section 4: "MQ
// traffic follows the RPC traffic ratio with a 5-10 s lag"): members placed
// in zones, partitions assigned to them, and the poll loop whose cadence is
// where the lag between producing and consuming comes from. Kafka 3.6
// semantics and defaults (models/data/topic_config.h).
//
//   poll loop    each member, one thread: poll returns up to maxPollRecords
//                from its partitions' positions up to the high water mark
//                (partitions taken in turn, the first one rotating); an
//                empty poll waits until data arrives or fetchMaxWait; then
//                it processes the batch for batchProcessingTime +
//                n x recordProcessingTime and polls again. A poll commits
//                the positions when autoCommitInterval has passed since the
//                last commit (enable.auto.commit).
//                With a per-batch cost B and utilisation rho = rate x
//                recordProcessingTime, a member polls every T = B / (1 - rho)
//                in steady state, and a record waits between T (it arrived
//                as a poll began) and 2T (just after one) from being
//                produced to being processed
//                Members start out of step: each one's first poll comes at
//                a random moment within batchProcessingTime + fetchMaxWait
//   membership   a member whose zone fails stops at once (its batch is lost);
//                the coordinator removes it sessionTimeout after its last
//                heartbeat (every heartbeatInterval from t = 0) and the group
//                rebalances. A member whose zone returns rejoins at once,
//                which also rebalances
//   rebalance    eager, as the classic protocol with the range or round-robin
//                assignor: every member stops at its next poll (a busy one
//                finishes its batch first), commits its positions and joins;
//                once every member the coordinator still counts has joined
//                (a dead one blocks it until its session expires),
//                partitions are assigned over the joined members in list
//                order and consumption restarts from the committed offsets.
//                What a lost member had processed but not committed is
//                processed again (counted as redelivered)
//   coordinator  taken to be available and to reach every member; a
//                member fetches from a partition while its leader is up and
//                reachable from the member's zone
//
// Recorded per window (labels topic, group; zone where said):
// kafka.consumed{zone: the members'}, kafka.consumed_by_producer_zone{zone:
// where the records were produced}, kafka.consume_delay_* (produced ->
// processed), kafka.consumer_lag_messages (high water mark - committed
// offset, summed over partitions, as kafka-consumer-groups.sh reports it) and
// kafka.consumer_lag_s (age of the oldest uncommitted record, worst
// partition), both sampled at each window's start, kafka.consumer_members
// {zone} (alive members the group counts), kafka.redelivered. KPIs:
// kafka.consumed, kafka.redelivered, kafka.rebalances,
// kafka.max_consumer_lag_messages, kafka.max_consumer_lag_seconds.
// Events: the consumer_group.* kinds (models/data/data_event_kinds.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/data/kafka_topic.h"
#include "models/data/topic_config.h"
#include "models/metrics/windowed_metrics.h"
#include "models/topology/failure_domains.h"
#include "sim/component.h"

namespace drsim {

class KafkaConsumerGroup : public Component {
 public:
  KafkaConsumerGroup(ConsumerGroupConfig config, KafkaTopic& topic, FailureDomains& domains,
                     Duration metrics_window = std::chrono::seconds(1));

  const ConsumerGroupConfig& config() const { return config_; }
  std::size_t member_count() const { return members_.size(); }
  ZoneIndex member_zone(std::size_t m) const { return members_[m].zone; }
  // The partitions the member owns (empty while rebalancing or dead).
  const std::vector<std::size_t>& assignment(std::size_t m) const { return members_[m].assigned; }
  std::optional<std::size_t> owner(std::size_t p) const { return partitions_[p].owner; }
  bool rebalancing() const { return rebalancing_; }
  std::uint64_t committed(std::size_t p) const { return partitions_[p].committed; }
  std::uint64_t processed(std::size_t p) const { return partitions_[p].processed; }
  std::uint64_t consumed() const { return consumed_; }
  std::uint64_t redelivered() const { return redelivered_; }
  std::uint32_t rebalances() const { return rebalances_; }
  // Kafka's consumer lag: high water mark - committed offset, summed.
  std::uint64_t lag_messages() const;
  // Age of the oldest record past the committed offset, worst partition.
  Duration lag() const;

 protected:
  void attach() override;
  void start() override;
  void stop() override;

 private:
  enum class State { kDead, kWaiting, kPolling, kProcessing, kJoined };
  struct Range {
    std::size_t partition = 0;
    std::uint64_t from = 0, to = 0;
  };
  struct Member {
    ZoneIndex zone = 0;
    std::string id;
    bool up = true;
    bool in_group = true;  // the coordinator counts it
    State state = State::kWaiting;
    std::vector<std::size_t> assigned;
    std::size_t next_partition = 0;
    std::vector<Range> batch;
    EventId poll_event, expire_event;
    SimTime last_commit{};
  };
  struct PartitionState {
    std::uint64_t position = 0, processed = 0, committed = 0;
    std::optional<std::size_t> owner;
  };

  void on_change();
  void on_readable(std::size_t p);
  void poll(std::size_t m);
  void finish_batch(std::size_t m);
  void commit(std::size_t m);
  void expire(std::size_t m);
  void start_rebalance(const std::string& why);
  void join(std::size_t m);
  void maybe_complete_rebalance();
  void sample_lag();
  void update_member_gauges();
  std::uint64_t clamp(std::size_t p, std::uint64_t offset) const;

  ConsumerGroupConfig config_;
  KafkaTopic& topic_;
  FailureDomains& domains_;
  Duration metrics_window_;
  std::vector<Member> members_;
  std::vector<PartitionState> partitions_;
  std::vector<ZoneIndex> member_zones_;  // distinct, in order of appearance
  bool started_ = false;
  bool rebalancing_ = false;
  SimTime rebalance_started_{};
  std::uint32_t rebalances_ = 0, generation_ = 0;
  std::uint64_t consumed_ = 0, redelivered_ = 0;
  std::uint64_t max_lag_messages_ = 0;
  Duration max_lag_{};

  std::optional<WindowedMetrics> metrics_;
  std::vector<std::optional<CounterId>> c_consumed_;          // by member zone
  std::vector<std::optional<CounterId>> c_by_producer_zone_;  // by origin zone
  std::vector<std::optional<GaugeId>> g_members_;             // by member zone
  LatencyId l_delay_;
  GaugeId g_lag_messages_, g_lag_s_;
  CounterId c_redelivered_;
};

}  // namespace drsim
