#include "agents/retry_policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace headway::agents {
namespace {

TEST(RetryPolicy, RetriesTooManyRequestsAndServerErrorsOnly) {
  EXPECT_TRUE(retryable_status(429));
  EXPECT_TRUE(retryable_status(500));
  EXPECT_TRUE(retryable_status(503));
  EXPECT_TRUE(retryable_status(529));
  EXPECT_TRUE(retryable_status(599));
  EXPECT_FALSE(retryable_status(200));
  EXPECT_FALSE(retryable_status(400));
  EXPECT_FALSE(retryable_status(401));
  EXPECT_FALSE(retryable_status(404));
  EXPECT_FALSE(retryable_status(600));
}

TEST(RetryPolicy, ParsesRetryAfterSeconds) {
  EXPECT_EQ(parse_retry_after("7"), Seconds(7.0));
  EXPECT_EQ(parse_retry_after(" 0.5 "), Seconds(0.5));
  EXPECT_EQ(parse_retry_after("0"), Seconds(0.0));
  EXPECT_EQ(parse_retry_after(""), std::nullopt);
  EXPECT_EQ(parse_retry_after("-3"), std::nullopt);
  EXPECT_EQ(parse_retry_after("1.2.3"), std::nullopt);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), std::nullopt);
}

TEST(RetryPolicy, BackoffIsFullJitterUnderADoublingCap) {
  RetryPolicy policy;
  policy.base_backoff = Seconds(1.0);
  policy.max_backoff = Seconds(5.0);
  policy.seed = 42;
  Backoff backoff(policy);
  double largest[6] = {};
  for (int draw = 0; draw < 2000; ++draw) {
    for (int retry = 1; retry <= 5; ++retry) {
      const double wait = backoff.delay(retry).count();
      ASSERT_GE(wait, 0.0);
      largest[retry] = std::max(largest[retry], wait);
    }
  }
  const double caps[6] = {0, 1, 2, 4, 5, 5};
  for (int retry = 1; retry <= 5; ++retry) {
    EXPECT_LE(largest[retry], caps[retry]) << retry;
    EXPECT_GT(largest[retry], 0.9 * caps[retry]) << retry;  // the whole range is drawn
  }
}

TEST(RetryPolicy, ASeedGivesTheSameWaits) {
  RetryPolicy policy;
  policy.seed = 7;
  Backoff a(policy), b(policy);
  for (int retry = 1; retry <= 4; ++retry) EXPECT_EQ(a.delay(retry), b.delay(retry));
}

TEST(RetryPolicy, RetryAfterIsALowerBoundCappedAtTheMaximum) {
  RetryPolicy policy;
  policy.base_backoff = Seconds(0.001);
  policy.max_retry_after = Seconds(120.0);
  policy.seed = 1;
  Backoff backoff(policy);
  EXPECT_GE(backoff.delay(1, Seconds(3.0)).count(), 3.0);
  EXPECT_LE(backoff.delay(1, Seconds(3.0)).count(), 3.0);
  EXPECT_EQ(backoff.delay(1, Seconds(1000.0)), Seconds(120.0));
}

TEST(RetryPolicy, SleepGoesThroughTheInjectedFunction) {
  std::vector<Seconds> waits;
  RetryPolicy policy;
  policy.sleep = [&](Seconds wait) { waits.push_back(wait); };
  Backoff backoff(policy);
  backoff.sleep(Seconds(30.0));
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0], Seconds(30.0));
}

}  // namespace
}  // namespace headway::agents
