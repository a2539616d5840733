// The decode step over one session per kernel: step order, the warm-up, the sums, failures.
#include "targets/decode_step.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace headway::targets {
namespace {

// Kernel `id`'s session: its n-th reading (warm-up included) is (id + 1) ms + n us, so that every
// reading differs; every reading is logged as id into a log shared by the sessions.
class StepSession final : public Session {
 public:
  StepSession(int id, std::vector<int>* log) : id_(id), log_(log) {}
  int arms() const override { return 1; }
  Result<double> reading(int i) override {
    EXPECT_EQ(i, 0);
    log_->push_back(id_);
    if (n_ == fail_at) return invalid_input("the runner died");
    return (id_ + 1) * 1e-3 + (n_++) * 1e-6;
  }
  std::optional<ArmBreach> verify_arms() override { return breach; }
  int fail_at = -1;
  std::optional<ArmBreach> breach;

 private:
  int id_;
  std::vector<int>* log_;
  int n_ = 0;
};

const std::vector<std::string> kStepNames = {"qkv", "attn_out", "ffn"};

TEST(DecodeStep, ReadsTheKernelsInStepOrderAndSumsEachRound) {
  std::vector<int> log;
  StepSession a(0, &log), b(1, &log), c(2, &log);
  const StepRounds r = read_decode_step({&a, &b, &c}, kStepNames, 3, 1);
  ASSERT_TRUE(r.ok()) << r.failure;
  EXPECT_EQ(log, (std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}));
  ASSERT_EQ(r.seconds.size(), 3u);
  ASSERT_EQ(r.step_seconds.size(), 3u);
  for (size_t round = 0; round < 3; ++round) {
    // The warm-up round is dropped: round 0 holds each session's second reading.
    const double n = static_cast<double>(round + 1);
    ASSERT_EQ(r.seconds[round].size(), 3u);
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_DOUBLE_EQ(r.seconds[round][k], (static_cast<double>(k) + 1) * 1e-3 + n * 1e-6);
    }
    EXPECT_DOUBLE_EQ(r.step_seconds[round], 6e-3 + 3 * n * 1e-6);
  }
}

TEST(DecodeStep, AFailedReadingNamesItsKernelAndKeepsTheRoundsRead) {
  std::vector<int> log;
  StepSession a(0, &log), b(1, &log), c(2, &log);
  b.fail_at = 2;  // its third reading: round 1 after one warm-up round
  const StepRounds r = read_decode_step({&a, &b, &c}, kStepNames, 5, 1);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.cheated);
  EXPECT_NE(r.failure.find("attn_out: the runner died"), std::string::npos) << r.failure;
  EXPECT_EQ(r.step_seconds.size(), 1u);
}

TEST(DecodeStep, ABreachFoundAfterTheRoundsIsCheating) {
  std::vector<int> log;
  StepSession a(0, &log), b(1, &log), c(2, &log);
  c.breach = ArmBreach{0, "a timed output was wrong"};
  const StepRounds r = read_decode_step({&a, &b, &c}, kStepNames, 2, 0);
  EXPECT_TRUE(r.cheated);
  EXPECT_NE(r.failure.find("ffn: a timed output was wrong"), std::string::npos) << r.failure;
}

// after_round runs after each timed round's readings, not after a warm-up round's: -1 in the log.
TEST(DecodeStep, AfterRoundRunsBetweenTimedRoundsAndItsFailureEndsTheRun) {
  std::vector<int> log;
  StepSession a(0, &log), b(1, &log), c(2, &log);
  int calls = 0;
  const StepRounds r = read_decode_step({&a, &b, &c}, kStepNames, 2, 1, [&] {
    log.push_back(-1);
    ++calls;
    return std::string();
  });
  ASSERT_TRUE(r.ok()) << r.failure;
  EXPECT_EQ(log, (std::vector<int>{0, 1, 2, 0, 1, 2, -1, 0, 1, 2, -1}));
  EXPECT_EQ(calls, 2);

  const StepRounds failed = read_decode_step({&a, &b, &c}, kStepNames, 4, 0, [&] {
    return ++calls == 4 ? std::string("no bandwidth measured") : std::string();
  });
  EXPECT_FALSE(failed.ok());
  EXPECT_FALSE(failed.cheated);
  EXPECT_EQ(failed.failure, "after round 2: no bandwidth measured");
  EXPECT_EQ(failed.step_seconds.size(), 2u) << "the rounds read before it stay";
}

}  // namespace
}  // namespace headway::targets
