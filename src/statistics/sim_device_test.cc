#include "statistics/sim_device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace headway::statistics {
namespace {

std::vector<double> log_readings(SimConfig c, int n, Arm arm = Arm::kHead) {
  SimDevice device(c);
  std::vector<double> out;
  nlohmann::json clock;
  for (int i = 0; i < n; ++i) out.push_back(std::log(device.run_once(arm, &clock)));
  return out;
}

double mean(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double sd(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0.0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

TEST(NoiseModel, Names) {
  for (NoiseModel m : kAllNoiseModels) EXPECT_EQ(parse_noise_model(to_string(m)).value(), m);
  EXPECT_EQ(to_string(NoiseModel::kAr1Drift), "ar1-drift");
  const auto bad = parse_noise_model("gaussian");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "unknown noise model 'gaussian' (valid: normal, t3, spikes, ar1-drift, step)");
}

TEST(SimDevice, TrueTimesFollowTheEffect) {
  SimConfig c;
  c.head_seconds = 2e-3;
  c.effect_pct = 1.5;
  SimDevice device(c);
  EXPECT_DOUBLE_EQ(device.true_seconds(Arm::kHead), 2e-3);
  EXPECT_DOUBLE_EQ(device.true_seconds(Arm::kCandidate), 2e-3 * 0.985);
  c.effect_pct = -2.0;
  EXPECT_DOUBLE_EQ(SimDevice(c).true_seconds(Arm::kCandidate), 2e-3 * 1.02);
}

TEST(SimDevice, NormalNoiseHasTheCv) {
  SimConfig c;
  c.cv = 0.005;
  c.effect_pct = 3.0;
  const auto head = log_readings(c, 20000, Arm::kHead);
  const auto cand = log_readings(c, 20000, Arm::kCandidate);
  EXPECT_NEAR(sd(head), 0.005, 0.0002);
  EXPECT_NEAR(mean(head), std::log(1e-3), 0.0002);
  EXPECT_NEAR(mean(cand) - mean(head), std::log(0.97), 0.0003);
}

TEST(SimDevice, T3HasTheCvAndHeavyTails) {
  SimConfig c;
  c.noise = NoiseModel::kT3;
  const auto x = log_readings(c, 100000);
  const double m = mean(x);
  int beyond = 0;
  for (double v : x) beyond += std::fabs(v - m) > 4 * 0.005 ? 1 : 0;
  // P(|T3| / sqrt(3) > 4) = P(|T3| > 6.93) = 0.0062, versus 6e-5 for a normal.
  EXPECT_NEAR(static_cast<double>(beyond) / 1e5, 0.0062, 0.0012);
  // The sample sd of t3 converges slowly (infinite fourth moment): loose bound.
  EXPECT_NEAR(sd(x), 0.005, 0.0008);
}

TEST(SimDevice, SpikesHitFivePercentOfReadings) {
  SimConfig c;
  c.noise = NoiseModel::kSpikes;
  const auto x = log_readings(c, 40000);
  int spikes = 0;
  double worst = 0.0;
  for (double v : x) {
    const double ratio = std::exp(v) / 1e-3;
    if (ratio > 1.4) ++spikes;
    worst = std::max(worst, ratio);
  }
  EXPECT_NEAR(spikes / 40000.0, 0.05, 0.004);
  EXPECT_LT(worst, 3.0 * 1.03);
}

TEST(SimDevice, Ar1DriftIsAutocorrelatedAndDrifts) {
  SimConfig c;
  c.noise = NoiseModel::kAr1Drift;
  c.ar_phi = 0.9;
  c.drift_per_reading = -0.2;
  double lag1 = 0.0;
  double slope = 0.0;
  const int devices = 50;
  const int n = 400;
  for (int k = 0; k < devices; ++k) {
    c.seed = 100 + static_cast<uint64_t>(k);
    auto x = log_readings(c, n);
    // Remove the known drift, then the lag-1 correlation of an AR(1) is phi.
    std::vector<double> a;
    for (int i = 0; i < n; ++i) {
      a.push_back(x[static_cast<size_t>(i)] - std::log(1e-3) + 0.2 * 0.005 * i);
    }
    double num = 0.0, den = 0.0;
    for (int i = 0; i < n; ++i) den += a[static_cast<size_t>(i)] * a[static_cast<size_t>(i)];
    for (int i = 1; i < n; ++i) num += a[static_cast<size_t>(i)] * a[static_cast<size_t>(i - 1)];
    lag1 += num / den / devices;
    slope += (x[n - 1] - x[0]) / (n - 1) / devices;
  }
  EXPECT_NEAR(lag1, 0.9, 0.02);
  EXPECT_NEAR(slope, -0.2 * 0.005, 0.0002);
}

TEST(SimDevice, StepShiftsTheLevel) {
  SimConfig c;
  c.noise = NoiseModel::kStep;
  c.cv = 0.001;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    c.seed = seed;
    SimDevice device(c);
    ASSERT_GE(device.step_at(), 0);
    ASSERT_LT(device.step_at(), 48);
    nlohmann::json clock;
    for (int i = 0; i < 48; ++i) {
      const double ratio = device.run_once(Arm::kHead, &clock) / 1e-3;
      if (i < device.step_at()) {
        EXPECT_NEAR(ratio, 1.0, 0.006);
      } else {
        EXPECT_NEAR(ratio, 1.03, 0.006);
      }
    }
  }
}

TEST(SimDevice, SeededAndWithAVirtualClock) {
  SimConfig c;
  c.noise = NoiseModel::kSpikes;
  c.seed = 77;
  EXPECT_EQ(log_readings(c, 50), log_readings(c, 50));
  SimConfig other = c;
  other.seed = 78;
  EXPECT_NE(log_readings(c, 50), log_readings(other, 50));
  SimDevice device(c);
  nlohmann::json clock;
  EXPECT_EQ(device.now_ns(), 0);
  const double t = device.run_once(Arm::kHead, &clock);
  EXPECT_EQ(device.now_ns(), std::llround(t * 1e9) + 1'000'000);
  EXPECT_EQ(device.readings(), 1);
}

TEST(SimConfig, Validation) {
  SimConfig c;
  EXPECT_TRUE(validate(c).ok());
  c.cv = 0.0;
  EXPECT_EQ(validate(c).error().message, "cv must be positive, got 0");
  c = SimConfig{};
  c.effect_pct = 100.0;
  EXPECT_EQ(validate(c).error().message, "effect must be below 100%, got 100%");
  c = SimConfig{};
  c.ar_phi = 1.0;
  EXPECT_EQ(validate(c).error().message, "ar_phi must be in [0, 1), got 1");
  EXPECT_THROW(SimDevice{c}, std::invalid_argument);
  c = SimConfig{};
  c.step_horizon = 0;
  EXPECT_EQ(validate(c).error().message, "step horizon must be >= 1, got 0");
}

}  // namespace
}  // namespace headway::statistics
