#include "statistics/mixed_paired_device.h"

#include <gtest/gtest.h>

#include <cmath>

#include "statistics/pair_runner.h"

namespace headway::statistics {
namespace {

// A device whose arms take fixed times, counting what it was asked.
class FixedTimes final : public PairedDevice {
 public:
  FixedTimes(double head, double candidate) : head_(head), candidate_(candidate) {}
  double run_once(Arm arm, nlohmann::json*) override {
    ++runs;
    return arm == Arm::kHead ? head_ : candidate_;
  }
  void begin_pair() override { ++pairs; }
  void verify_arms() override {
    ++verified;
    if (breach) throw ArmDisqualified(Arm::kCandidate, "wrong output");
  }
  nlohmann::json accounting() const override { return {{"timed_seconds", 0.5}, {"note", "x"}}; }
  int runs = 0, pairs = 0, verified = 0;
  bool breach = false;

 private:
  double head_, candidate_;
};

class NullSink final : public ReadingSink {
 public:
  void record(const Reading&) override {}
};

TEST(MixedPairedDevice, EachPairRunsWhollyOnOneDeviceDrawnUniformly) {
  std::vector<std::unique_ptr<PairedDevice>> devices;
  devices.push_back(std::make_unique<FixedTimes>(1.0, 0.5));  // the candidate 2x faster
  devices.push_back(std::make_unique<FixedTimes>(1.0, 2.0));  // the candidate 2x slower
  devices.push_back(std::make_unique<FixedTimes>(1.0, 1.0));  // the same
  auto* fast = static_cast<FixedTimes*>(devices[0].get());
  auto* slow = static_cast<FixedTimes*>(devices[1].get());
  auto* same = static_cast<FixedTimes*>(devices[2].get());
  MixedPairedDevice mixed(std::move(devices), 42);
  NullSink sink;
  Rng coin(7);
  double sum = 0;
  int counts[3] = {0, 0, 0};
  constexpr int kPairs = 3000;
  for (int i = 0; i < kPairs; ++i) {
    const PairResult r = run_pair(mixed, coin, {"k", "n", 1, i}, sink);
    // Both readings of a pair come from one device: d is one of its three log-ratios exactly.
    const double d = r.d;
    EXPECT_TRUE(std::fabs(d - std::log(0.5)) < 1e-12 || std::fabs(d - std::log(2.0)) < 1e-12 ||
                std::fabs(d) < 1e-12)
        << d;
    ++counts[mixed.current()];
    sum += d;
  }
  EXPECT_EQ(fast->pairs + slow->pairs + same->pairs, kPairs);
  EXPECT_EQ(fast->runs, 2 * fast->pairs);
  for (const int c : counts) EXPECT_NEAR(c, kPairs / 3.0, 4 * std::sqrt(kPairs * 2.0 / 9.0));
  EXPECT_NEAR(sum / kPairs, 0.0, 0.05);  // log 0.5 + log 2 + 0, over three
  const auto acc = mixed.accounting();
  EXPECT_DOUBLE_EQ(acc["timed_seconds"].get<double>(), 1.5);
  EXPECT_EQ(acc["note"], "x");  // every device says the same
  EXPECT_EQ(acc["pairs_per_device"][0], fast->pairs);
}

TEST(MixedPairedDevice, TheSameSeedDrawsTheSameDevicesAndABreachAnywhereCounts) {
  auto make = [](uint64_t seed) {
    std::vector<std::unique_ptr<PairedDevice>> d;
    d.push_back(std::make_unique<FixedTimes>(1.0, 1.0));
    d.push_back(std::make_unique<FixedTimes>(1.0, 1.0));
    return MixedPairedDevice(std::move(d), seed);
  };
  MixedPairedDevice a = make(5), b = make(5), c = make(6);
  bool differs = false;
  for (int i = 0; i < 64; ++i) {
    a.begin_pair();
    b.begin_pair();
    c.begin_pair();
    EXPECT_EQ(a.current(), b.current());
    differs |= a.current() != c.current();
  }
  EXPECT_TRUE(differs);

  std::vector<std::unique_ptr<PairedDevice>> d;
  d.push_back(std::make_unique<FixedTimes>(1.0, 1.0));
  auto breached = std::make_unique<FixedTimes>(1.0, 1.0);
  breached->breach = true;
  d.push_back(std::move(breached));
  MixedPairedDevice mixed(std::move(d), 1);
  EXPECT_THROW(mixed.verify_arms(), ArmDisqualified);
  EXPECT_THROW(MixedPairedDevice({}, 1), std::logic_error);
}

TEST(MixedPairedDevice, EveryReadingsClockNamesTheShapeSetItRanAt) {
  std::vector<std::unique_ptr<PairedDevice>> devices;
  devices.push_back(std::make_unique<FixedTimes>(1.0, 0.5));
  devices.push_back(std::make_unique<FixedTimes>(1.0, 2.0));
  MixedPairedDevice mixed(std::move(devices), 3);
  for (int i = 0; i < 20; ++i) {
    mixed.begin_pair();
    nlohmann::json clock;
    const double seconds = mixed.run_once(Arm::kCandidate, &clock);
    ASSERT_TRUE(clock.is_object()) << clock;
    EXPECT_EQ(clock[kShapeSetKey], mixed.current());
    EXPECT_EQ(seconds, mixed.current() == 0 ? 0.5 : 2.0);
  }
}

}  // namespace
}  // namespace headway::statistics
