// Side-by-side timing over a session: the rotation, the warm-up, and how a failure or a breach
// fails every result.
#include "targets/side_by_side.h"

#include <gtest/gtest.h>

namespace headway::targets {
namespace {

// Arm i reads (i + 1) ms; reading number `fail_at` (0-based, over all arms) fails; verify_arms
// reports `breach` when set.
class ScriptedSession final : public Session {
 public:
  int arms() const override { return 3; }
  Result<double> reading(int i) override {
    order.push_back(i);
    if (static_cast<int>(order.size()) - 1 == fail_at) return invalid_input("the device fell over");
    return (i + 1) * 1e-3;
  }
  std::optional<ArmBreach> verify_arms() override {
    ++verifications;
    return breach;
  }
  std::vector<int> order;
  int fail_at = -1;
  int verifications = 0;
  std::optional<ArmBreach> breach;
};

const std::vector<Artifact> kArtifacts = {{"a", {}, {}}, {"b", {}, {}}, {"c", {}, {}}};

TEST(ReadSideBySide, RotatesTheFirstArmAndDropsTheWarmUp) {
  ScriptedSession s;
  const auto out = read_side_by_side(s, kArtifacts, 2, 1);
  EXPECT_EQ(s.order, (std::vector<int>{0, 1, 2, 1, 2, 0, 2, 0, 1}));
  ASSERT_EQ(out.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(out[static_cast<size_t>(i)].ok());
    EXPECT_EQ(out[static_cast<size_t>(i)].seconds.size(), 2u);
    EXPECT_DOUBLE_EQ(out[static_cast<size_t>(i)].median_seconds, (i + 1) * 1e-3);
  }
  EXPECT_EQ(s.verifications, 1);
}

TEST(ReadSideBySide, AFailedReadingFailsEveryArmAndNamesIt) {
  ScriptedSession s;
  s.fail_at = 4;  // round 0 (after one warm-up round) reads 1, 2, 0: the second is arm 2
  const auto out = read_side_by_side(s, kArtifacts, 2, 1);
  for (const auto& t : out) {
    EXPECT_EQ(t.failure, "c: the device fell over");
    EXPECT_FALSE(t.cheated);
  }
}

TEST(ReadSideBySide, ABreachMarksEveryResultCheated) {
  ScriptedSession s;
  s.breach = ArmBreach{1, "a timed call: `residual`[3] not written"};
  const auto out = read_side_by_side(s, kArtifacts, 1, 0);
  for (const auto& t : out) {
    EXPECT_EQ(t.failure, "b: a timed call: `residual`[3] not written");
    EXPECT_TRUE(t.cheated);
  }
  ScriptedSession failing;
  failing.fail_at = 0;
  failing.breach = ArmBreach{0, "wrote into input `attn`"};
  EXPECT_TRUE(read_side_by_side(failing, kArtifacts, 1, 0)[2].cheated);
}

}  // namespace
}  // namespace headway::targets
