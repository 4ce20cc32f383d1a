#pragma once
// A host component for pool tests: owns one or more ConnectionPools (as a
// service's pods would), collects what its borrowers hear, and runs
// arbitrary actions at chosen simulated times.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/data/connection_pool.h"
#include "sim/simulation.h"

namespace drsim {

class PoolHost : public Component, public QueryClient {
 public:
  struct Heard {
    std::uint64_t token;
    SimTime at;
    QueryResult result;
  };

  // zone: the topology zone of the pods (for the endpoint's round trip).
  PoolHost(PoolConfig config, PoolEndpoint& endpoint, std::size_t pools = 1, std::uint32_t zone = 0)
      : Component("host"), config_(std::move(config)), endpoint_(endpoint), pool_count_(pools), zone_(zone) {}

  ConnectionPool& pool(std::size_t i = 0) { return *pools_[i]; }
  WindowedMetrics& metrics() { return *metrics_; }
  std::vector<Heard> heard;

  // Borrow-query-return on pool `p` at time t.
  void submit_at(SimTime t, std::uint64_t token, std::uint32_t queries = 1, std::size_t p = 0) {
    call_at(t, [this, token, queries, p] { pools_[p]->execute(*this, token, queries); });
  }
  void call_at(SimTime t, std::function<void()> action) {
    actions_.push_back(std::move(action));
    const std::size_t i = actions_.size() - 1;
    schedule_at(t, "test.action", [this, i] { actions_[i](); });
  }
  SimTime time() const { return now(); }

  void on_query_done(std::uint64_t token, const QueryResult& result) override {
    heard.push_back({token, now(), result});
  }

 protected:
  void attach() override {
    metrics_.emplace(recorder());
    for (std::size_t i = 0; i < pool_count_; ++i) {
      const std::string pod = "api-a-" + std::to_string(i);
      pool_metrics_.push_back(
          std::make_unique<PoolMetrics>(*metrics_, Labels{{"service", "api"}, {"zone", "a"}, {"pod", pod}}));
      pools_.push_back(std::make_unique<ConnectionPool>(sim(), id(), pod + "/pool", config_, endpoint_, zone_,
                                                        pool_metrics_.back().get()));
    }
  }
  void start() override {
    for (auto& p : pools_) p->start();
  }
  void stop() override { metrics_->finish(now()); }

 private:
  PoolConfig config_;
  PoolEndpoint& endpoint_;
  std::size_t pool_count_;
  std::uint32_t zone_;
  std::optional<WindowedMetrics> metrics_;
  std::vector<std::unique_ptr<PoolMetrics>> pool_metrics_;
  std::vector<std::unique_ptr<ConnectionPool>> pools_;
  std::vector<std::function<void()>> actions_;
};

}  // namespace drsim
