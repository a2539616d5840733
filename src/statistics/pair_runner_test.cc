#include "statistics/pair_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace headway::statistics {
namespace {

// Returns scripted durations per arm and remembers the call order.
class ScriptedDevice final : public PairedDevice {
 public:
  ScriptedDevice(double head, double candidate) : head_(head), candidate_(candidate) {}
  double run_once(Arm arm, nlohmann::json* clock_out) override {
    calls.push_back(arm);
    *clock_out = nlohmann::json{{"call", calls.size()}};
    return arm == Arm::kHead ? head_ : candidate_;
  }
  int64_t now_ns() override { return static_cast<int64_t>(calls.size()) * 10; }
  std::vector<Arm> calls;

 private:
  double head_;
  double candidate_;
};

TEST(PairRunner, OrderedPairLogsBothReadings) {
  ScriptedDevice device(2.0, 1.0);
  MemorySink sink;
  const PairResult r = run_pair_ordered(device, Arm::kCandidate, {"k", "n", 7, 3}, sink);
  EXPECT_NEAR(r.d, std::log(0.5), 1e-15);
  EXPECT_EQ(r.first, Arm::kCandidate);
  ASSERT_EQ(device.calls, (std::vector<Arm>{Arm::kCandidate, Arm::kHead}));
  ASSERT_EQ(sink.readings().size(), 2u);
  const Reading& a = sink.readings()[0];
  const Reading& b = sink.readings()[1];
  EXPECT_EQ(a.arm, Arm::kCandidate);
  EXPECT_EQ(a.position, 0);
  EXPECT_EQ(a.seconds, 1.0);
  EXPECT_EQ(a.start_ns, 0);
  EXPECT_EQ(a.clock["call"], 1);
  EXPECT_EQ(b.arm, Arm::kHead);
  EXPECT_EQ(b.position, 1);
  EXPECT_EQ(b.start_ns, 10);
  EXPECT_EQ(b.kernel, "k");
  EXPECT_EQ(b.node, "n");
  EXPECT_EQ(b.test_id, 7);
  EXPECT_EQ(b.pair_index, 3);
}

TEST(PairRunner, DIsCandidateOverHeadWhicheverGoesFirst) {
  ScriptedDevice device(1.0, 1.1);
  MemorySink sink;
  EXPECT_NEAR(run_pair_ordered(device, Arm::kHead, {}, sink).d, std::log(1.1), 1e-15);
  EXPECT_NEAR(run_pair_ordered(device, Arm::kCandidate, {}, sink).d, std::log(1.1), 1e-15);
}

TEST(PairRunner, CoinIsFairAndSeeded) {
  ScriptedDevice device(1.0, 1.0);
  MemorySink sink;
  Rng coin(11);
  Rng replay(11);
  int candidate_first = 0;
  for (int i = 0; i < 4000; ++i) {
    const PairResult r = run_pair(device, coin, {"k", "n", 0, i}, sink);
    EXPECT_EQ(r.first, replay.coin() ? Arm::kCandidate : Arm::kHead);
    candidate_first += r.first == Arm::kCandidate ? 1 : 0;
  }
  EXPECT_NEAR(candidate_first / 4000.0, 0.5, 0.03);
}

TEST(PairRunner, InvalidDurationThrows) {
  MemorySink sink;
  ScriptedDevice zero(0.0, 1.0);
  EXPECT_THROW(run_pair_ordered(zero, Arm::kHead, {}, sink), std::runtime_error);
  ScriptedDevice nan(1.0, std::numeric_limits<double>::quiet_NaN());
  EXPECT_THROW(run_pair_ordered(nan, Arm::kHead, {}, sink), std::runtime_error);
}

}  // namespace
}  // namespace headway::statistics
