// JobQueue, the FIFO a pod keeps of jobs waiting for a worker: first in,
// first out across wrap-around and growth, and storage bounded by the
// longest the queue has been, not by how many jobs went through it.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>

#include "models/service/job.h"
#include "sim/rng.h"

namespace drsim {
namespace {

Job job(std::uint64_t token) { return Job{nullptr, token, SimTime{Duration{static_cast<std::int64_t>(token)}}, 7}; }

TEST(JobQueue, StartsEmptyWithoutStorage) {
  const JobQueue q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.capacity(), 0u);
}

TEST(JobQueue, FirstInFirstOutWithEveryField) {
  JobQueue q;
  for (std::uint64_t t = 1; t <= 3; ++t) q.push_back(job(t));
  ASSERT_EQ(q.size(), 3u);
  for (std::uint64_t t = 1; t <= 3; ++t) {
    EXPECT_EQ(q.front().token, t);
    EXPECT_EQ(q.front().arrived, SimTime{Duration{static_cast<std::int64_t>(t)}});
    EXPECT_EQ(q.front().caller_zone, 7u);
    q.pop_front();
  }
  EXPECT_TRUE(q.empty());
}

// Against std::deque, with the queue growing while its contents wrap
// around the end of the ring.
TEST(JobQueue, AgreesWithADequeThroughWrapAroundAndGrowth) {
  JobQueue q;
  std::deque<std::uint64_t> reference;
  RngStream rng(3, "job-queue");
  std::uint64_t next = 0;
  for (int i = 0; i < 100'000; ++i) {
    // Drifts up and down between empty and a few hundred waiting.
    const bool push = reference.empty() || rng.uniform() < (i % 20'000 < 10'000 ? 0.6 : 0.4);
    if (push) {
      q.push_back(job(next));
      reference.push_back(next++);
    } else {
      ASSERT_EQ(q.front().token, reference.front());
      q.pop_front();
      reference.pop_front();
    }
    ASSERT_EQ(q.size(), reference.size());
    if (i % 997 == 0) {
      for (std::size_t k = 0; k < reference.size(); ++k) ASSERT_EQ(q[k].token, reference[k]);
    }
  }
}

TEST(JobQueue, StorageIsBoundedByTheLongestQueueNotByTheJobsSeen) {
  JobQueue q;
  std::uint64_t token = 0;
  for (int round = 0; round < 200'000; ++round) {
    // Up to 5 waiting at a time; a million jobs in all.
    for (int k = 0; k < 5; ++k) q.push_back(job(token++));
    for (int k = 0; k < 5; ++k) q.pop_front();
  }
  EXPECT_EQ(token, 1'000'000u);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.capacity(), 8u);  // the first allocation; never grown
}

TEST(JobQueue, ClearForgetsTheJobsAndKeepsTheStorage) {
  JobQueue q;
  for (std::uint64_t t = 0; t < 20; ++t) q.push_back(job(t));
  const std::size_t capacity = q.capacity();
  EXPECT_GE(capacity, 20u);
  q.clear();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.capacity(), capacity);
  q.push_back(job(42));
  EXPECT_EQ(q.front().token, 42u);
}

}  // namespace
}  // namespace drsim
