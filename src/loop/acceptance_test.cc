#include "loop/acceptance.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "loop/device_time.h"
#include "loop/loop_kernel_test_support.h"
#include "trees/decision_log.h"

namespace headway::loop {
namespace {

using trees::NodeStatus;

TEST(AcceptanceTest, AClearlyFasterCandidateBecomesTheHeadWithEveryReadingStored) {
  LoopKernel k;
  const auto head = k.head();
  const auto cand = k.add("fast", "time: 0.5\n");
  AcceptanceTest test(k.target(), k.kernel(), k.tree(), {});
  const auto r = test.run(head, k.artifact(head), cand, k.artifact(cand));
  ASSERT_EQ(r.outcome, statistics::Outcome::kFaster);
  EXPECT_NEAR(*r.effect_pct, 50.0, 3.0) << "half the baseline's time";
  EXPECT_EQ(k.tree().head().node_id, cand.id);
  EXPECT_EQ(k.tree().node(cand.id)->status, NodeStatus::kAccepted);
  trees::DecisionLog log(k.tree());
  const auto stored = log.test(r.test_id).value();
  EXPECT_EQ(stored.outcome, statistics::Outcome::kFaster);
  EXPECT_EQ(stored.pairs, r.pairs);
  EXPECT_EQ(log.readings(r.test_id).size(), static_cast<size_t>(2 * r.pairs));
  EXPECT_GT(device_seconds(k.ws(), "attn_out"), 0.0);
}

TEST(AcceptanceTest, ATestInProgressTellsItsPairsWealthAndConfirmation) {
  LoopKernel k;
  const auto head = k.head();
  const auto cand = k.add("fast", "time: 0.5\n");
  AcceptanceTest test(k.target(), k.kernel(), k.tree(), {});
  std::vector<std::string> told;
  test.on_progress([&](const std::string& line) { told.push_back(line); });
  const auto r = test.run(head, k.artifact(head), cand, k.artifact(cand));
  ASSERT_EQ(r.outcome, statistics::Outcome::kFaster);
  ASSERT_GE(told.size(), 2u);
  EXPECT_EQ(told.front().rfind("acceptance test, pair 1 of at most 24: FASTER wealth ", 0), 0u)
      << told.front();
  EXPECT_NE(told.front().find(" of 20, SLOWER "), std::string::npos) << told.front();
  const std::string decided = fmt::format("FASTER at pair {}, confirming", r.pairs);
  EXPECT_NE(std::find(told.begin(), told.end(), decided), told.end()) << told.back();
}

TEST(AcceptanceTest, TheDefaultConfirmationReachesItsCallsAtOneCallAReading) {
  // A kernel whose readings make one call (ffn's) verifies one of the candidate's calls a pair.
  const AcceptanceOptions options;
  EXPECT_GE(options.confirm_max_pairs, options.confirm_calls);
  EXPECT_EQ(options.confirm_calls,
            statistics::calls_to_catch(statistics::kWrongShare, statistics::kWrongEscape));
}

TEST(AcceptanceTest, AClearlySlowerCandidateKeepsTheHead) {
  LoopKernel k;
  const auto head = k.head();
  const auto cand = k.add("slow", "time: 1.5\n");
  const auto r = AcceptanceTest(k.target(), k.kernel(), k.tree(), {})
                     .run(head, k.artifact(head), cand, k.artifact(cand));
  EXPECT_EQ(r.outcome, statistics::Outcome::kSlower);
  EXPECT_EQ(k.tree().head().node_id, head.id);
  EXPECT_EQ(k.tree().node(cand.id)->status, NodeStatus::kSlower);
}

TEST(AcceptanceTest, TheWarmUpRunsOncePerHeadAndLaterTestsStartFromItsS0) {
  LoopKernel k;
  const auto head = k.head();
  const auto slow = k.add("slow", "time: 1.5\n");
  const auto slower = k.add("slower", "time: 1.6\n");
  const auto first = AcceptanceTest(k.target(), k.kernel(), k.tree(), {})
                         .run(head, k.artifact(head), slow, k.artifact(slow));
  ASSERT_EQ(first.outcome, statistics::Outcome::kSlower);
  EXPECT_EQ(first.warmup_readings, AcceptanceOptions{}.warmup_readings);
  const auto second = AcceptanceTest(k.target(), k.kernel(), k.tree(), {})
                          .run(head, k.artifact(head), slower, k.artifact(slower));
  ASSERT_EQ(second.outcome, statistics::Outcome::kSlower);
  EXPECT_EQ(second.warmup_readings, 0) << "the head did not change: its s0 is known";
  const double s0 = k.tree().node(slow.id)->evidence.at("rule_config").at("s0").get<double>();
  EXPECT_GT(s0, 0.0);
  EXPECT_EQ(k.tree().node(slower.id)->evidence.at("rule_config").at("s0").get<double>(), s0);

  // A new head has had no test: its first one warms up again.
  const auto fast = k.add("fast", "time: 0.5\n");
  ASSERT_EQ(AcceptanceTest(k.target(), k.kernel(), k.tree(), {})
                .run(head, k.artifact(head), fast, k.artifact(fast))
                .outcome,
            statistics::Outcome::kFaster);
  const auto next = k.add("next", "time: 0.6\n");
  const auto against_new_head =
      AcceptanceTest(k.target(), k.kernel(), k.tree(), {})
          .run(k.tree().node(fast.id).value(), k.artifact(fast), next, k.artifact(next));
  EXPECT_EQ(against_new_head.warmup_readings, AcceptanceOptions{}.warmup_readings);
}

TEST(AcceptanceTest, ACheatingCandidateIsDisqualifiedAndItsTestDeleted) {
  LoopKernel k;
  const auto head = k.head();
  const auto cand = k.add("cheat", "time: 0.2\ncheats: yes\n");
  const auto r = AcceptanceTest(k.target(), k.kernel(), k.tree(), {})
                     .run(head, k.artifact(head), cand, k.artifact(cand));
  EXPECT_FALSE(r.outcome);
  EXPECT_NE(r.disqualified.find("cheats"), std::string::npos);
  EXPECT_EQ(k.tree().head().node_id, head.id) << "a cheat never becomes head";
  trees::DecisionLog log(k.tree());
  EXPECT_TRUE(log.tests().empty());
  EXPECT_EQ(k.ws().db().query_int64("SELECT count(*) FROM readings WHERE test_id IS NOT NULL"), 0);
  EXPECT_GT(device_seconds(k.ws(), "attn_out"), 0.0) << "its device time still counts";
}

TEST(AcceptanceTest, ACheatingHeadIsReportedAndItsTestDeleted) {
  LoopKernel k;
  const auto cheat = k.add("cheat", "time: 0.2\ncheats: yes\n");
  const auto cand = k.add("honest", "time: 0.5\n");
  // The cheat is tested as if it were the head: the loop has no way to make one head, so the
  // test is given its artifact in the head's place.
  const auto head = k.head();
  const auto r = AcceptanceTest(k.target(), k.kernel(), k.tree(), {})
                     .run(head, k.artifact(cheat), cand, k.artifact(cand));
  EXPECT_FALSE(r.outcome);
  EXPECT_NE(r.head_disqualified.find("cheats"), std::string::npos) << r.head_disqualified;
  EXPECT_TRUE(r.disqualified.empty()) << "the candidate was not judged";
  EXPECT_TRUE(trees::DecisionLog(k.tree()).tests().empty());
  EXPECT_EQ(k.tree().node(cand.id)->status, NodeStatus::kProposed);
}

TEST(AcceptanceTest, ADeviceThatStopsLeavesNoTestBehind) {
  // Registration (13 readings: 2 warm-up, 11 timed), then the warm-up and a few pairs.
  LoopKernel k("attn_out", "test-1:stop-after=25");
  const auto head = k.head();
  const auto cand = k.add("same", "time: 1.0\n");
  EXPECT_THROW(AcceptanceTest(k.target(), k.kernel(), k.tree(), {})
                   .run(head, k.artifact(head), cand, k.artifact(cand)),
               targets::DeviceStopped);
  EXPECT_TRUE(trees::DecisionLog(k.tree()).tests().empty());
  EXPECT_EQ(k.ws().db().query_int64("SELECT count(*) FROM readings"), 0);
  EXPECT_EQ(k.tree().node(cand.id)->status, NodeStatus::kProposed) << "it can be tested again";
}

}  // namespace
}  // namespace headway::loop
