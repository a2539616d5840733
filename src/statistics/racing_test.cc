#include "statistics/racing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <vector>

#include "statistics/sim_device.h"

namespace headway::statistics {
namespace {

TEST(Racing, ExactReadingsGiveTheFullOrder) {
  const std::vector<double> times{5, 3, 8, 1, 7, 2, 6, 4};
  std::vector<int> calls;
  auto read = [&](int i) {
    calls.push_back(i);
    return times[static_cast<size_t>(i)];
  };
  auto r = race(8, RaceConfig{1000, 2}, read);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().ranking, (std::vector<int>{3, 5, 1, 7, 0, 6, 4, 2}));
  // Rounds: 8 x 2, 4 x 4, 2 x 8 readings.
  EXPECT_EQ(r.value().readings_spent, 16 + 16 + 16);
  EXPECT_EQ(r.value().rounds, 3);
  EXPECT_EQ(r.value().readings[3], 2 + 4 + 8);
  EXPECT_EQ(r.value().readings[2], 2);
  EXPECT_EQ(r.value().medians[6], 6.0);
  // Round-robin within a round.
  EXPECT_EQ(std::vector<int>(calls.begin(), calls.begin() + 9),
            (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 0}));
}

TEST(Racing, PicksTheTrulyFastestSimCandidate) {
  const std::vector<double> true_ms{1.00, 1.02, 0.99, 1.03, 1.01, 0.97, 1.00, 1.04};
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::vector<std::unique_ptr<SimDevice>> devices;
    for (size_t i = 0; i < true_ms.size(); ++i) {
      SimConfig c;
      c.head_seconds = true_ms[i] * 1e-3;
      c.cv = 0.005;
      c.noise = NoiseModel::kT3;
      c.seed = mix_seed(seed, i);
      devices.push_back(std::make_unique<SimDevice>(c));
    }
    auto read = [&](int i) {
      nlohmann::json clock;
      return devices[static_cast<size_t>(i)]->run_once(Arm::kHead, &clock);
    };
    const int64_t budget = 100;
    auto r = race(8, RaceConfig{budget, 3}, read);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value().ranking.front(), 5) << "seed " << seed;
    EXPECT_LE(r.value().readings_spent, budget);
    int64_t taken = 0;
    for (const auto& d : devices) taken += d->readings();
    EXPECT_EQ(taken, r.value().readings_spent);
  }
}

TEST(Racing, NeverSpendsMoreThanTheBudget) {
  for (int candidates : {1, 2, 3, 7, 16}) {
    for (int64_t budget = 3L * candidates; budget < 3L * candidates + 150; budget += 7) {
      int64_t calls = 0;
      auto read = [&](int i) {
        ++calls;
        return 1.0 + 0.01 * ((i * 7919) % 13);
      };
      auto r = race(candidates, RaceConfig{budget, 3}, read);
      ASSERT_TRUE(r.ok());
      EXPECT_LE(r.value().readings_spent, budget);
      EXPECT_EQ(r.value().readings_spent, calls);
      std::vector<int> sorted = r.value().ranking;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int> all(static_cast<size_t>(candidates));
      std::iota(all.begin(), all.end(), 0);
      EXPECT_EQ(sorted, all);
    }
  }
}

TEST(Racing, TightBudgetEndsWithAPartialRound) {
  // 8 x 3 = 24, then 6 left for 4 survivors: one reading each (4), halve to 2, stop.
  int64_t calls = 0;
  auto r = race(8, RaceConfig{30, 3}, [&](int i) {
    ++calls;
    return static_cast<double>(i);
  });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().readings_spent, 28);
  EXPECT_EQ(r.value().rounds, 2);
  EXPECT_EQ(r.value().ranking.front(), 0);
}

TEST(Racing, SingleCandidateNeedsNoReadings) {
  auto r = race(1, RaceConfig{10, 3}, [](int) { return 1.0; });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().ranking, std::vector<int>{0});
  EXPECT_EQ(r.value().readings_spent, 0);
  EXPECT_TRUE(std::isnan(r.value().medians[0]));
}

TEST(Racing, Errors) {
  auto read = [](int) { return 1.0; };
  EXPECT_EQ(race(0, RaceConfig{10, 3}, read).error().message, "racing needs candidates, got 0");
  EXPECT_EQ(race(2, RaceConfig{10, 0}, read).error().message,
            "initial readings must be >= 1, got 0");
  EXPECT_EQ(race(4, RaceConfig{11, 3}, read).error().message,
            "a budget of 11 readings cannot give 4 candidates 3 readings each");
}

}  // namespace
}  // namespace headway::statistics
