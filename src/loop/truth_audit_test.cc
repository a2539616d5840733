#include "loop/truth_audit.h"

#include <gtest/gtest.h>

#include "loop/loop_kernel_test_support.h"
#include "store/test_temp_dir.h"
#include "trees/decision_log.h"

namespace headway::loop {
namespace {

using statistics::Outcome;

// Ends a test of `candidate` against the head of the moment with `outcome`.
void decide(LoopKernel& k, const trees::Node& candidate, Outcome outcome) {
  trees::DecisionLog log(k.tree());
  const int64_t test = log.begin_test(candidate.id, "betting").value();
  trees::TestDecision d;
  d.outcome = outcome;
  d.pairs = 5;
  ASSERT_TRUE(log.finish_test(test, d).ok());
}

// The loop test target's truth: a source's `time:` factor of the baseline.
TEST(TruthAudit, EachTestIsJudgedAgainstTheTrueTimesOfItsHeadAndCandidate) {
  LoopKernel k("attn_out");
  decide(k, k.add("half", "time: 0.5\n"), Outcome::kFaster);           // a true gain, found
  decide(k, k.add("same", "time: 0.5\n"), Outcome::kFaster);           // equal: a false accept
  decide(k, k.add("faster", "time: 0.45\n"), Outcome::kInconclusive);  // 10% missed
  decide(k, k.add("slower", "time: 0.6\n"), Outcome::kSlower);         // right
  decide(k, k.add("hair", "time: 0.497\n"), Outcome::kSame);           // 0.6%: below a true gain
  trees::DecisionLog log(k.tree());
  log.begin_test(k.add("unfinished", "time: 0.1\n").id, "betting").value();

  const auto audit =
      audit_against_truth(k.ws(), k.target(), *builtin_kernel("attn_out"), k.ws().root() / "b");
  ASSERT_TRUE(audit);
  EXPECT_EQ(audit->judged, 5) << "an unfinished test is not judged";
  EXPECT_EQ(audit->false_accepts, 1);
  EXPECT_EQ(audit->true_gains, 2);
  EXPECT_EQ(audit->false_rejects, 1);
}

TEST(TruthAudit, ATargetThatKnowsNoTruthOrAnUnregisteredKernelGivesNone) {
  LoopKernel hidden("attn_out", "test-1:truth=hidden");
  decide(hidden, hidden.add("half", "time: 0.5\n"), Outcome::kFaster);
  EXPECT_FALSE(audit_against_truth(hidden.ws(), hidden.target(), *builtin_kernel("attn_out"),
                                   hidden.ws().root() / "b"));
  LoopKernel k("attn_out");
  decide(k, k.add("half", "time: 0.5\n"), Outcome::kFaster);
  EXPECT_TRUE(
      audit_against_truth(k.ws(), k.target(), *builtin_kernel("attn_out"), k.ws().root() / "b"));
  EXPECT_FALSE(audit_against_truth(k.ws(), k.target(), *builtin_kernel("qkv"), k.ws().root() / "b"))
      << "not registered";
}

}  // namespace
}  // namespace headway::loop
