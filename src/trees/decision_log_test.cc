#include "trees/decision_log.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "statistics/mixed_paired_device.h"
#include "store/database.h"
#include "trees/tree_test_support.h"

namespace headway::trees {
namespace {

using statistics::Outcome;

class TreeDecisions : public ::testing::Test, public TreeFixture {
 protected:
  DecisionLog log_{tree()};

  // Records `pairs` pairs: head first in even pairs; the head takes head_s, the candidate cand_s
  // (+ a small per-pair drift).
  void record_pairs(int64_t test_id, int pairs, double head_s, double cand_s) {
    const auto t = log_.test(test_id).value();
    for (int p = 0; p < pairs; ++p) {
      const bool head_first = p % 2 == 0;
      for (int pos = 0; pos < 2; ++pos) {
        const bool is_head = (pos == 0) == head_first;
        TestReading r;
        r.node_id = is_head ? t.head_node : t.candidate_node;
        r.pair_index = p;
        r.position = pos;
        r.start_ns = int64_t{1000} * (2 * p + pos);
        r.seconds = (is_head ? head_s : cand_s) + 1e-6 * p;
        r.clock = {{"sm_clock_mhz", 1980}};
        auto ok = log_.record_reading(test_id, r);
        ASSERT_TRUE(ok.ok()) << ok.error().message;
      }
    }
  }

  TestDecision decision(Outcome outcome, int64_t pairs = 3) {
    TestDecision d;
    d.outcome = outcome;
    d.pairs = pairs;
    d.effect_pct = 12.5;
    d.ci_low = 8.0;
    d.ci_high = 17.0;
    d.note = "betting rule crossed 1/alpha";
    return d;
  }
};

TEST_F(TreeDecisions, FasterAcceptsTheCandidateAndMakesItHeadTogether) {
  const int64_t root = tree().root().id;
  const Node cand = add(NodeKind::kDesign, std::nullopt, "tiled");
  auto id = log_.begin_test(cand.id, "betting");
  ASSERT_TRUE(id.ok()) << id.error().message;
  const auto started = log_.test(*id).value();
  EXPECT_EQ(started.head_node, root);
  EXPECT_EQ(started.candidate_node, cand.id);
  EXPECT_EQ(started.outcome, std::nullopt);
  EXPECT_EQ(started.finished_at, std::nullopt);
  record_pairs(*id, 3, 0.002, 0.001);

  auto finished = log_.finish_test(*id, decision(Outcome::kFaster));
  ASSERT_TRUE(finished.ok()) << finished.error().message;
  EXPECT_EQ(finished->outcome, Outcome::kFaster);
  EXPECT_EQ(finished->pairs, 3);
  EXPECT_EQ(finished->effect_pct, 12.5);
  EXPECT_TRUE(finished->finished_at.has_value());

  const Node after = *tree().node(cand.id);
  EXPECT_EQ(after.status, NodeStatus::kAccepted);
  EXPECT_NE(after.reason.find(fmt::format("FASTER vs #{} in test #{}", root, *id)),
            std::string::npos)
      << after.reason;
  EXPECT_EQ(after.evidence.at("test_id"), *id);
  EXPECT_FALSE(after.evidence.contains("rule_config")) << "none given, none kept";
  const HeadRecord head = tree().head();
  EXPECT_EQ(head.node_id, cand.id);
  EXPECT_EQ(head.test_id, *id);
  ASSERT_TRUE(head.median_ms.has_value());
  EXPECT_NEAR(*head.median_ms, 1.001, 1e-9);  // median of 1.000, 1.001, 1.002 ms
  EXPECT_EQ(tree().head_history().size(), 2u);
}

TEST_F(TreeDecisions, AMultiShapeTestsNewHeadTakesTheFirstShapeSetsReadingsAlone) {
  const Node cand = add(NodeKind::kDesign, std::nullopt, "tiled");
  const int64_t id = log_.begin_test(cand.id, "betting").value();
  // Pairs 0 and 2 at the first shape set (1 ms), pair 1 at the second (9 ms).
  for (int p = 0; p < 3; ++p) {
    for (int pos = 0; pos < 2; ++pos) {
      TestReading r;
      r.node_id = pos == 0 ? tree().root().id : cand.id;
      r.pair_index = p;
      r.position = pos;
      r.seconds = p == 1 ? 0.009 : 0.001 + 1e-6 * p;
      r.clock = {{statistics::kShapeSetKey, p == 1 ? 1 : 0}};
      ASSERT_TRUE(log_.record_reading(id, r).ok());
    }
  }
  ASSERT_TRUE(log_.finish_test(id, decision(Outcome::kFaster)).ok());
  EXPECT_NEAR(*tree().head().median_ms, 1.001, 1e-9) << "the 9 ms at the second set left out";
}

TEST_F(TreeDecisions, ANewHeadWithNoReadingAtTheFirstShapeSetIsTheOldOneLessTheEffect) {
  const double old = *tree().head().median_ms;
  const Node cand = add(NodeKind::kDesign, std::nullopt, "tiled");
  const int64_t id = log_.begin_test(cand.id, "betting").value();
  for (int pos = 0; pos < 2; ++pos) {
    TestReading r;
    r.node_id = pos == 0 ? tree().root().id : cand.id;
    r.position = pos;
    r.seconds = 0.009;
    r.clock = {{statistics::kShapeSetKey, 1}};
    ASSERT_TRUE(log_.record_reading(id, r).ok());
  }
  ASSERT_TRUE(log_.finish_test(id, decision(Outcome::kFaster, 1)).ok());
  EXPECT_NEAR(*tree().head().median_ms, old * (1 - 0.125), 1e-9);
}

TEST_F(TreeDecisions, OtherOutcomesSetTheMatchingStatusAndKeepTheHead) {
  const int64_t root = tree().root().id;
  const std::vector<std::pair<Outcome, NodeStatus>> cases = {
      {Outcome::kSlower, NodeStatus::kSlower},
      {Outcome::kSame, NodeStatus::kSame},
      {Outcome::kInconclusive, NodeStatus::kInconclusive}};
  for (const auto& [outcome, status] : cases) {
    const Node cand =
        add(NodeKind::kDesign, std::nullopt, std::string(statistics::to_string(outcome)));
    const int64_t id = log_.begin_test(cand.id, "betting").value();
    record_pairs(id, 2, 0.001, 0.001);
    auto finished = log_.finish_test(id, decision(outcome));
    ASSERT_TRUE(finished.ok()) << finished.error().message;
    EXPECT_EQ(tree().node(cand.id)->status, status);
    EXPECT_EQ(status_after(outcome), status);
    EXPECT_EQ(tree().head().node_id, root);
  }
  const auto counts = log_.counts();
  EXPECT_EQ(counts.by_outcome.at(Outcome::kSlower), 1);
  EXPECT_EQ(counts.by_outcome.at(Outcome::kSame), 1);
  EXPECT_EQ(counts.by_outcome.at(Outcome::kInconclusive), 1);
  EXPECT_EQ(counts.by_outcome.at(Outcome::kFaster), 0);
  EXPECT_EQ(counts.unfinished, 0);
  EXPECT_EQ(tree().head_history().size(), 1u);
}

TEST_F(TreeDecisions, AnInconclusiveCandidateCanBeRetested) {
  const Node cand = add(NodeKind::kDesign, std::nullopt, "maybe");
  const int64_t first = log_.begin_test(cand.id, "betting").value();
  TestDecision inconclusive = decision(Outcome::kInconclusive);
  inconclusive.rule_config = {{"s0", 0.01}, {"alpha", 0.05}};
  ASSERT_TRUE(log_.finish_test(first, inconclusive).ok());
  EXPECT_EQ(tree().node(cand.id)->evidence.at("rule_config"), inconclusive.rule_config);
  const int64_t second = log_.begin_test(cand.id, "betting").value();
  record_pairs(second, 1, 0.002, 0.001);
  TestDecision faster = decision(Outcome::kFaster);
  faster.rule_config = {{"s0", 0.02}, {"alpha", 0.01}};
  ASSERT_TRUE(log_.finish_test(second, faster).ok());
  // The evidence is the last test's, settings included.
  EXPECT_EQ(tree().node(cand.id)->evidence.at("test_id"), second);
  EXPECT_EQ(tree().node(cand.id)->evidence.at("rule_config"), faster.rule_config);
  EXPECT_EQ(tree().head().node_id, cand.id);
  EXPECT_EQ(tree().head().test_id, second);
  EXPECT_EQ(log_.tests().size(), 2u);
}

TEST_F(TreeDecisions, FinishChangesNothingWhenAnyPartFails) {
  const int64_t root = tree().root().id;
  const Node a = add(NodeKind::kDesign, std::nullopt, "a");
  const Node b = add(NodeKind::kDesign, std::nullopt, "b");
  const int64_t ta = log_.begin_test(a.id, "betting").value();
  const int64_t tb = log_.begin_test(b.id, "betting").value();
  record_pairs(ta, 2, 0.002, 0.001);
  record_pairs(tb, 2, 0.002, 0.001);
  ASSERT_TRUE(log_.finish_test(ta, decision(Outcome::kFaster)).ok());

  // b was tested against the root, which is no longer the head: FASTER cannot stand.
  auto stale = log_.finish_test(tb, decision(Outcome::kFaster));
  ASSERT_FALSE(stale.ok());
  EXPECT_NE(stale.error().message.find(fmt::format("moved from #{} to #{}", root, a.id)),
            std::string::npos)
      << stale.error().message;
  EXPECT_EQ(log_.test(tb)->outcome, std::nullopt);
  EXPECT_EQ(log_.test(tb)->finished_at, std::nullopt);
  EXPECT_EQ(tree().node(b.id)->status, NodeStatus::kProposed);
  EXPECT_EQ(tree().head().node_id, a.id);

  // The candidate's status moved on meanwhile: the outcome is not written either.
  ASSERT_TRUE(tree().set_status(b.id, NodeStatus::kCrashed, "SIGSEGV").ok());
  auto late = log_.finish_test(tb, decision(Outcome::kSlower));
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(log_.test(tb)->outcome, std::nullopt);
  EXPECT_EQ(tree().node(b.id)->status, NodeStatus::kCrashed);

  auto twice = log_.finish_test(ta, decision(Outcome::kSlower));
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("already finished"), std::string::npos);
  EXPECT_EQ(tree().node(a.id)->status, NodeStatus::kAccepted);
  EXPECT_FALSE(log_.finish_test(9999, decision(Outcome::kSame)).ok());
  EXPECT_FALSE(log_.finish_test(ta, decision(Outcome::kSame, -1)).ok());
}

TEST_F(TreeDecisions, BeginRequiresATestableCandidateOtherThanTheHead) {
  EXPECT_FALSE(log_.begin_test(tree().root().id, "betting").ok());
  EXPECT_FALSE(log_.begin_test(9999, "betting").ok());
  const Node broken = add(NodeKind::kDesign, std::nullopt, "broken");
  ASSERT_TRUE(tree().set_status(broken.id, NodeStatus::kBuildFailed, "error").ok());
  auto r = log_.begin_test(broken.id, "betting");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("build-failed"), std::string::npos) << r.error().message;
  EXPECT_TRUE(log_.tests().empty());
}

TEST_F(TreeDecisions, AReadingIsStoredAtMostOncePerPairAndPosition) {
  const Node cand = add(NodeKind::kDesign, std::nullopt, "tiled");
  const int64_t id = log_.begin_test(cand.id, "betting").value();
  TestReading r;
  r.node_id = cand.id;
  r.pair_index = 0;
  r.position = 1;
  r.seconds = 0.001;
  ASSERT_TRUE(log_.record_reading(id, r).ok());
  r.seconds = 0.002;
  r.node_id = tree().root().id;
  auto again = log_.record_reading(id, r);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("already has a reading for pair 0 position 1"),
            std::string::npos)
      << again.error().message;
  ASSERT_EQ(log_.readings(id).size(), 1u);
  EXPECT_EQ(log_.readings(id)[0].seconds, 0.001);

  // The UNIQUE index holds even for a writer that bypasses the log.
  try {
    ws().db().exec(fmt::format(
        "INSERT INTO readings(test_id, kernel, node_id, pair_index, position, start_ns, seconds) "
        "VALUES ({}, 'qkv', {}, 0, 1, 0, 0.5)",
        id, cand.id));
    FAIL() << "duplicate reading inserted";
  } catch (const store::StoreError& e) {
    EXPECT_EQ(e.code(), SQLITE_CONSTRAINT_UNIQUE);
  }
  EXPECT_EQ(log_.readings(id).size(), 1u);
}

TEST_F(TreeDecisions, MalformedReadingsAreRefused) {
  const Node cand = add(NodeKind::kDesign, std::nullopt, "tiled");
  const Node bystander = add(NodeKind::kDesign, std::nullopt, "other");
  const int64_t id = log_.begin_test(cand.id, "betting").value();
  TestReading good;
  good.node_id = cand.id;
  good.seconds = 0.001;
  auto with = [&](auto change) {
    TestReading r = good;
    change(r);
    return log_.record_reading(id, r);
  };
  EXPECT_FALSE(with([&](TestReading& r) { r.node_id = bystander.id; }).ok());
  EXPECT_FALSE(with([](TestReading& r) { r.position = 2; }).ok());
  EXPECT_FALSE(with([](TestReading& r) { r.pair_index = -1; }).ok());
  EXPECT_FALSE(with([](TestReading& r) { r.seconds = std::nan(""); }).ok());
  EXPECT_FALSE(with([](TestReading& r) { r.seconds = -1.0; }).ok());
  EXPECT_FALSE(log_.record_reading(9999, good).ok());
  EXPECT_TRUE(log_.readings(id).empty());
  ASSERT_TRUE(log_.finish_test(id, decision(Outcome::kInconclusive, 0)).ok());
  auto after = log_.record_reading(id, good);
  ASSERT_FALSE(after.ok());
  EXPECT_NE(after.error().message.find("already finished"), std::string::npos);
}

TEST_F(TreeDecisions, UnfinishedTestsAreAbandonedWithTheirReadings) {
  const Node a = add(NodeKind::kDesign, std::nullopt, "a");
  const Node b = add(NodeKind::kDesign, std::nullopt, "b");
  const int64_t done = log_.begin_test(a.id, "betting").value();
  record_pairs(done, 2, 0.002, 0.003);
  ASSERT_TRUE(log_.finish_test(done, decision(Outcome::kSlower)).ok());
  const int64_t open1 = log_.begin_test(b.id, "betting").value();
  record_pairs(open1, 3, 0.002, 0.001);
  const int64_t open2 = log_.begin_test(b.id, "betting").value();
  EXPECT_EQ(log_.counts().unfinished, 2);

  EXPECT_EQ(log_.abandon_unfinished_tests(), 2);
  EXPECT_EQ(log_.test(open1), std::nullopt);
  EXPECT_EQ(log_.test(open2), std::nullopt);
  EXPECT_TRUE(log_.readings(open1).empty());
  EXPECT_EQ(ws().db().query_int64("SELECT count(*) FROM readings WHERE test_id NOT IN "
                                  "(SELECT id FROM tests)"),
            0);
  EXPECT_EQ(log_.readings(done).size(), 4u);
  EXPECT_EQ(log_.counts().unfinished, 0);
  EXPECT_EQ(log_.counts().by_outcome.at(Outcome::kSlower), 1);
  EXPECT_EQ(tree().node(b.id)->status, NodeStatus::kProposed);
  EXPECT_EQ(log_.abandon_unfinished_tests(), 0);

  // The candidate can be tested afresh, from pair 0.
  const int64_t fresh = log_.begin_test(b.id, "betting").value();
  record_pairs(fresh, 3, 0.002, 0.001);
  EXPECT_EQ(log_.readings(fresh).size(), 6u);
}

TEST_F(TreeDecisions, AbandoningOneTestLeavesTheOthersInFlight) {
  const Node a = add(NodeKind::kDesign, std::nullopt, "a");
  const Node b = add(NodeKind::kDesign, std::nullopt, "b");
  const int64_t first = log_.begin_test(a.id, "betting").value();
  record_pairs(first, 2, 0.002, 0.001);
  const int64_t second = log_.begin_test(b.id, "betting").value();
  record_pairs(second, 2, 0.002, 0.001);

  ASSERT_TRUE(log_.abandon_test(first).ok());
  EXPECT_EQ(log_.test(first), std::nullopt);
  EXPECT_TRUE(log_.readings(first).empty());
  EXPECT_EQ(log_.readings(second).size(), 4u) << "the other test is still in flight";
  EXPECT_FALSE(log_.abandon_test(first).ok()) << "already gone";

  ASSERT_TRUE(log_.finish_test(second, decision(Outcome::kSlower)).ok());
  EXPECT_FALSE(log_.abandon_test(second).ok()) << "a finished test counts";
  EXPECT_EQ(log_.readings(second).size(), 4u);
}

}  // namespace
}  // namespace headway::trees
