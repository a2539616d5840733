#include "statistics/calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "statistics/reference_rule.h"
#include "statistics/special_functions.h"

namespace headway::statistics {
namespace {

// The sim target's way: simulated devices, s0 from the configured cv.
Result<CalibrateResult> calibrate_sim(const CalibrateRequest& r) {
  return calibrate(r, sim_device_factory, s0_for_cv(r.cv));
}

constexpr double kCv = 0.005;

DeviceFactory sim(NoiseModel noise, double effect_pct, uint64_t seed = 11,
                  double drift_per_reading = SimConfig{}.drift_per_reading,
                  double ar_phi = SimConfig{}.ar_phi) {
  SimConfig base;
  base.noise = noise;
  base.cv = kCv;
  base.effect_pct = effect_pct;
  base.drift_per_reading = drift_per_reading;
  base.ar_phi = ar_phi;
  return [base, seed](int i) {
    SimConfig c = base;
    c.seed = mix_seed(seed, static_cast<uint64_t>(i));
    return std::make_unique<SimDevice>(c);
  };
}

BettingConfig betting() {
  BettingConfig c;
  c.s0 = s0_for_cv(kCv);
  return c;
}

RuleFactory betting_rule() {
  return [] { return std::make_unique<BettingRule>(betting()); };
}

CalibrationConfig decisions(int n, uint64_t seed = 11) {
  CalibrationConfig c;
  c.decisions = n;
  c.seed = seed;
  return c;
}

// Test-only broken variant 1: the betting test with a fixed order (head always first).
class HeadFirstBetting final : public DecisionRule {
 public:
  HeadFirstBetting() : inner_(betting()) {}
  Arm first_arm(int, Rng&) override { return Arm::kHead; }
  std::optional<Outcome> observe(double d) override { return inner_.observe(d); }
  int max_pairs() const override { return inner_.max_pairs(); }

 private:
  BettingRule inner_;
};

// Test-only broken variant 2: a one-sided t-test at 5% after every pair (random order).
class EveryPairTTest final : public DecisionRule {
 public:
  Arm first_arm(int, Rng& coin) override { return coin.coin() ? Arm::kCandidate : Arm::kHead; }
  std::optional<Outcome> observe(double d) override {
    d_.push_back(d);
    const int n = static_cast<int>(d_.size());
    if (n >= 2 && paired_t_statistic(d_) <= -critical()[static_cast<size_t>(n)]) {
      return Outcome::kFaster;
    }
    if (n >= 24) return Outcome::kInconclusive;
    return std::nullopt;
  }
  int max_pairs() const override { return 24; }

 private:
  // t_{0.95, n-1} for n = 2..24.
  static const std::vector<double>& critical() {
    static const std::vector<double> table = [] {
      std::vector<double> t(25, 0.0);
      for (int n = 2; n <= 24; ++n) t[static_cast<size_t>(n)] = student_t_quantile(0.95, n - 1);
      return t;
    }();
    return table;
  }
  std::vector<double> d_;
};

std::string noise_name(const ::testing::TestParamInfo<NoiseModel>& param) {
  std::string name(to_string(param.param));
  for (char& ch : name) ch = ch == '-' ? '_' : ch;
  return name;
}

class AaByNoise : public ::testing::TestWithParam<NoiseModel> {};

// 2000 A/A decisions: the betting test's false FASTER (and false SLOWER) rate must be small.
TEST_P(AaByNoise, BettingKeepsFalseFasterBelowAlpha) {
  const CalibrationReport r =
      run_calibration(decisions(2000), sim(GetParam(), 0.0), betting_rule());
  const OutcomeCount& faster = r.of(Outcome::kFaster);
  const OutcomeCount& slower = r.of(Outcome::kSlower);
  EXPECT_LE(faster.rate, 0.03);
  EXPECT_LT(faster.ci95.lower, 0.05);
  EXPECT_LE(r.faster_upper95, 0.05);
  EXPECT_LE(slower.rate, 0.03);
  EXPECT_NEAR(r.stats.candidate_first_fraction, 0.5, 0.03);
  EXPECT_NEAR(r.stats.d_negative_fraction, 0.5, 0.03);
  EXPECT_LE(r.mean_pairs, 24.0);
  int64_t total = 0;
  for (const OutcomeCount& o : r.outcomes) total += o.count;
  EXPECT_EQ(total, 2000);
}

// The same calibration exposes a t-test after every pair, on every noise model.
TEST_P(AaByNoise, CalibrationCatchesATTestAfterEveryPair) {
  const CalibrationReport r = run_calibration(decisions(2000), sim(GetParam(), 0.0),
                                              [] { return std::make_unique<EveryPairTTest>(); });
  EXPECT_GT(r.of(Outcome::kFaster).ci95.lower, 0.10) << r.of(Outcome::kFaster).rate;
}

INSTANTIATE_TEST_SUITE_P(AllModels, AaByNoise, ::testing::ValuesIn(kAllNoiseModels), noise_name);

// A device that speeds up by one CV per reading (AR(1) phi 0.5 on top): with the head always
// first the candidate always looks faster, and the calibration shows it; the coin removes it.
TEST(Calibration, CatchesAFixedOrderUnderDrift) {
  const DeviceFactory drifting = sim(NoiseModel::kAr1Drift, 0.0, 11, -1.0, 0.5);
  const CalibrationReport fixed = run_calibration(
      decisions(2000), drifting, [] { return std::make_unique<HeadFirstBetting>(); });
  EXPECT_GT(fixed.of(Outcome::kFaster).ci95.lower, 0.10) << fixed.of(Outcome::kFaster).rate;
  EXPECT_EQ(fixed.stats.candidate_first_fraction, 0.0);
  const CalibrationReport coin = run_calibration(decisions(2000), drifting, betting_rule());
  EXPECT_LE(coin.of(Outcome::kFaster).rate, 0.03);
  EXPECT_LE(coin.faster_upper95, 0.05);
}

// The seed system's rule exceeds its nominal 5% (two looks), as the seed system measured.
TEST(Calibration, ReferenceRuleExceedsItsNominalAlpha) {
  const CalibrationReport r = run_calibration(decisions(2000), sim(NoiseModel::kNormal, 0.0), [] {
    return std::make_unique<ReferenceRule>(ReferenceConfig{});
  });
  EXPECT_GT(r.of(Outcome::kFaster).ci95.lower, 0.05) << r.of(Outcome::kFaster).rate;
  EXPECT_LT(r.of(Outcome::kFaster).rate, 0.12);
  EXPECT_EQ(r.of(Outcome::kSlower).count, 0);
  // Fixed ABBA order: 2 of 5 or 5 of 11 pairs put the candidate first.
  EXPECT_GE(r.stats.candidate_first_fraction, 0.4);
  EXPECT_LE(r.stats.candidate_first_fraction, 5.0 / 11.0);
}

class PowerByNoise : public ::testing::TestWithParam<NoiseModel> {};

// True gain 1.5% at CV 0.5%: FASTER at least 99% of the time in at most 8 pairs on average
// (9 with 5% spikes, where a tenth of the pairs carry a 1.5-3x outlier that the clipped bet
// counts at full weight against the truth).
TEST_P(PowerByNoise, GainOfOneAndAHalfPercentIsFaster) {
  const CalibrationReport r =
      run_calibration(decisions(1000), sim(GetParam(), 1.5), betting_rule());
  EXPECT_GE(r.of(Outcome::kFaster).rate, 0.99);
  EXPECT_LE(r.mean_pairs, GetParam() == NoiseModel::kSpikes ? 9.0 : 8.0);
}

TEST_P(PowerByNoise, LossOfOneAndAHalfPercentIsSlower) {
  const CalibrationReport r =
      run_calibration(decisions(1000), sim(GetParam(), -1.5), betting_rule());
  EXPECT_GE(r.of(Outcome::kSlower).rate, 0.99);
  EXPECT_EQ(r.of(Outcome::kFaster).count, 0);
}

INSTANTIATE_TEST_SUITE_P(AllModels, PowerByNoise, ::testing::ValuesIn(kAllNoiseModels), noise_name);

TEST(Calibration, StatisticsOfTheSimulatedNoise) {
  // Normal noise: head CV ~ 0.5%, independent readings (rho ~ 0), independent d's.
  const CalibrationReport normal =
      run_calibration(decisions(1000), sim(NoiseModel::kNormal, 0.0), betting_rule());
  EXPECT_NEAR(normal.stats.head_cv, kCv, 0.0007);
  EXPECT_NEAR(normal.stats.in_pair_rho, 0.0, 0.06);
  EXPECT_NEAR(normal.stats.lag1_autocorr, 0.0, 0.06);
  EXPECT_NEAR(normal.stats.second_vs_first_pct, 0.0, 0.05);
  // AR(1) phi 0.9 shared by both arms: the two readings of a pair are strongly correlated.
  const CalibrationReport ar =
      run_calibration(decisions(1000), sim(NoiseModel::kAr1Drift, 0.0), betting_rule());
  EXPECT_GT(ar.stats.in_pair_rho, 0.6);
  // The drift (device speeds up) makes the second reading of a pair faster.
  EXPECT_LT(ar.stats.second_vs_first_pct, -0.05);
}

TEST(Calibration, LogReceivesEveryReading) {
  MemorySink log;
  CalibrationConfig c = decisions(20);
  c.log = &log;
  c.kernel = "attn";
  const CalibrationReport r = run_calibration(c, sim(NoiseModel::kNormal, 0.0), betting_rule());
  EXPECT_EQ(static_cast<double>(log.readings().size()), 2.0 * r.mean_pairs * 20);
  EXPECT_EQ(log.readings().front().kernel, "attn");
  EXPECT_EQ(log.readings().back().test_id, 19);
  EXPECT_THROW(run_calibration(decisions(0), sim(NoiseModel::kNormal, 0.0), betting_rule()),
               std::invalid_argument);
}

TEST(EstimateS0, WarmUpEstimatesSqrtTwoCv) {
  double sum = 0.0;
  for (int i = 0; i < 50; ++i) {
    auto device = sim(NoiseModel::kNormal, 0.0, 3)(i);
    sum += estimate_s0(*device, 64).value();
  }
  EXPECT_NEAR(sum / 50, s0_for_cv(kCv), 0.0004);
}

TEST(EstimateS0, ConstantReadingsAreAnError) {
  class Constant final : public PairedDevice {
   public:
    double run_once(Arm, nlohmann::json*) override { return 1.0; }
  } device;
  const auto s0 = estimate_s0(device, 16);
  ASSERT_FALSE(s0.ok());
  EXPECT_EQ(s0.error().message, "the warm-up readings do not vary; give s0 explicitly (--s0)");
  EXPECT_FALSE(estimate_s0(device, 2).ok());
}

TEST(CalibrateRequest, BadInputIsAOneLineError) {
  auto bad = [](auto edit) {
    CalibrateRequest r;
    edit(r);
    const Status valid = validate(r);
    EXPECT_FALSE(valid.ok());
    return valid.ok() ? std::string() : valid.error().message;
  };
  EXPECT_TRUE(validate(CalibrateRequest{}).ok());
  EXPECT_EQ(bad([](auto& r) { r.decisions = 0; }), "decisions must be at least 1, got 0");
  EXPECT_EQ(bad([](auto& r) { r.cv = 0.0; }), "cv must be positive, got 0%");
  EXPECT_EQ(bad([](auto& r) { r.alpha = 1.0; }), "alpha must be in (0, 1), got 1");
  EXPECT_EQ(bad([](auto& r) { r.alpha = 0.0; }), "alpha must be in (0, 1), got 0");
  EXPECT_EQ(bad([](auto& r) { r.cap = 1; }), "the pair cap must be at least 2, got 1");
  EXPECT_EQ(bad([](auto& r) { r.effect_pct = 100.0; }), "effect must be below 100%, got 100%");
  EXPECT_EQ(bad([](auto& r) { r.s0 = -0.1; }), "s0 must be positive, got -0.1");
  CalibrateRequest r;
  r.decisions = -3;
  EXPECT_EQ(calibrate_sim(r).error().message, "decisions must be at least 1, got -3");
}

TEST(Calibrate, SimRunIsReproducibleAndCarriesTheJsonFields) {
  CalibrateRequest r;
  r.decisions = 200;
  r.noise = NoiseModel::kStep;
  r.effect_pct = 0.75;
  r.seed = 99;
  const auto a = calibrate_sim(r);
  const auto b = calibrate_sim(r);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok());
  nlohmann::json ja = to_json(a.value());
  nlohmann::json jb = to_json(b.value());
  // Everything but the wall time is reproducible.
  EXPECT_GT(ja["wall_seconds"].get<double>(), 0.0) << "200 decisions take time";
  ja.erase("wall_seconds");
  jb.erase("wall_seconds");
  EXPECT_EQ(ja.dump(), jb.dump());
  for (const char* key :
       {"decisions", "faster_rate", "faster_rate_upper95", "slower_rate", "same_rate",
        "inconclusive_rate", "mean_pairs", "head_cv", "in_pair_rho", "lag1_autocorr",
        "candidate_first_fraction", "d_negative_fraction", "s0", "outcomes"}) {
    EXPECT_TRUE(ja.contains(key)) << key;
  }
  EXPECT_EQ(ja["decisions"], 200);
  EXPECT_EQ(ja["s0_source"], "configured cv");
  EXPECT_NEAR(ja["s0"].get<double>(), s0_for_cv(0.005), 1e-15);
  EXPECT_EQ(ja["outcomes"]["FASTER"]["count"].get<double>() / 200.0, ja["faster_rate"]);
  const double sum = ja["faster_rate"].get<double>() + ja["slower_rate"].get<double>() +
                     ja["same_rate"].get<double>() + ja["inconclusive_rate"].get<double>();
  EXPECT_NEAR(sum, 1.0, 1e-12);
  r.seed = 100;
  EXPECT_NE(to_json(calibrate_sim(r).value()).dump(), ja.dump());
}

TEST(Calibrate, WarmUpSetsS0OffSim) {
  const DeviceFactoryMaker maker = [](const CalibrateRequest& request) {
    SimConfig base;
    base.cv = 0.01;
    const uint64_t seed = request.seed;
    return DeviceFactory([base, seed](int i) {
      SimConfig c = base;
      c.seed = mix_seed(seed, static_cast<uint64_t>(i));
      return std::make_unique<SimDevice>(c);
    });
  };
  CalibrateRequest r;
  r.target = "calibration-test-target";
  r.decisions = 50;
  r.warmup_readings = 200;
  const auto result = calibrate(r, maker, std::nullopt);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.value().s0_source, "warm-up of 200 head readings");
  EXPECT_NEAR(result.value().s0, s0_for_cv(0.01), 0.003);
  EXPECT_TRUE(result.value().s0_adapted);
  r.adapt_s0 = false;
  EXPECT_FALSE(calibrate(r, maker, std::nullopt).value().s0_adapted);
  r.adapt_s0.reset();
  r.s0 = 0.02;
  EXPECT_EQ(calibrate(r, maker, std::nullopt).value().s0_source, "--s0");
  EXPECT_FALSE(calibrate(r, maker, std::nullopt).value().s0_adapted);
  const DeviceFactoryMaker throws = [](const CalibrateRequest&) -> DeviceFactory {
    throw std::runtime_error("kernel 'x' is unknown");
  };
  r.target = "calibration-test-throws";
  EXPECT_EQ(calibrate(r, throws, std::nullopt).error().message, "kernel 'x' is unknown");
}

// A given s0 taken as a prior (--s0 with --adapt-s0) reaches the decisions: with s0 three times
// the spread of d, a 3% gain is found far more often than with the same s0 fixed.
TEST(Calibrate, AGivenS0AdaptsWhenAskedTo) {
  CalibrateRequest r;
  r.decisions = 400;
  r.cv = 0.035;  // the spread of d about 5%
  r.effect_pct = 3.0;
  r.s0 = 0.15;
  const auto fixed = calibrate_sim(r);
  r.adapt_s0 = true;
  const auto adapted = calibrate_sim(r);
  ASSERT_TRUE(fixed.ok() && adapted.ok());
  EXPECT_FALSE(fixed.value().s0_adapted);
  EXPECT_TRUE(adapted.value().s0_adapted);
  EXPECT_GT(adapted.value().report.of(Outcome::kFaster).rate,
            fixed.value().report.of(Outcome::kFaster).rate + 0.1);
}

TEST(Calibrate, SimFactorySeedsEachDecision) {
  CalibrateRequest request;
  request.seed = 5;
  request.effect_pct = 2.0;
  const DeviceFactory factory = sim_device_factory(request);
  auto a = factory(0);
  auto a_again = factory(0);
  auto b = factory(1);
  nlohmann::json clock;
  const double ta = a->run_once(Arm::kHead, &clock);
  EXPECT_EQ(ta, a_again->run_once(Arm::kHead, &clock));
  EXPECT_NE(ta, b->run_once(Arm::kHead, &clock));
  auto* sim = dynamic_cast<SimDevice*>(a.get());
  ASSERT_NE(sim, nullptr);
  EXPECT_DOUBLE_EQ(sim->true_seconds(Arm::kCandidate), sim->true_seconds(Arm::kHead) * 0.98);
  request.cv = -1.0;
  EXPECT_THROW(sim_device_factory(request), std::invalid_argument);
}

}  // namespace
}  // namespace headway::statistics
