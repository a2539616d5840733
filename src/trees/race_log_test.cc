#include "trees/race_log.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "trees/tree_test_support.h"

namespace headway::trees {
namespace {

class RaceLogTest : public ::testing::Test, public TreeFixture {
 protected:
  RaceLog log_{tree()};

  RaceReading reading(int64_t node, int index, int arm, double seconds) {
    RaceReading r;
    r.node_id = node;
    r.index = index;
    r.arm = arm;
    r.start_ns = 1000 * index;
    r.seconds = seconds;
    return r;
  }
};

TEST_F(RaceLogTest, KeepsEveryReadingInOrderAndTheRankingByNode) {
  const Node a = add(NodeKind::kDesign, std::nullopt, "a");
  const Node b = add(NodeKind::kDesign, std::nullopt, "b");
  const int64_t race = log_.begin_race(6).value();
  ASSERT_TRUE(log_.record_reading(race, reading(a.id, 0, 0, 2e-3)).ok());
  ASSERT_TRUE(log_.record_reading(race, reading(b.id, 1, 1, 1e-3)).ok());
  ASSERT_TRUE(log_.record_reading(race, reading(a.id, 2, 0, 2.5e-3)).ok());
  EXPECT_FALSE(log_.race(race)->finished_at) << "unfinished until finish_race";
  ASSERT_TRUE(log_.finish_race(race, 3, {b.id, a.id}).ok());

  const auto r = log_.race(race).value();
  EXPECT_EQ(r.kernel, "qkv");
  EXPECT_EQ(r.budget, 6);
  EXPECT_EQ(r.spent, 3);
  EXPECT_EQ(r.ranking, (std::vector<int64_t>{b.id, a.id}));
  EXPECT_TRUE(r.finished_at);
  const auto rs = log_.readings(race);
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs[0].node_id, a.id);
  EXPECT_EQ(rs[1].node_id, b.id);
  EXPECT_EQ(rs[1].arm, 1);
  EXPECT_DOUBLE_EQ(rs[2].seconds, 2.5e-3);
  EXPECT_EQ(rs[2].start_ns, 2000);
}

TEST_F(RaceLogTest, RejectsBadReadingsAndStoresNothingForThem) {
  const Node a = add(NodeKind::kDesign, std::nullopt, "a");
  const int64_t race = log_.begin_race(4).value();
  ASSERT_TRUE(log_.record_reading(race, reading(a.id, 0, 0, 1e-3)).ok());
  EXPECT_FALSE(log_.record_reading(race, reading(a.id, 0, 0, 1e-3)).ok()) << "index taken";
  EXPECT_FALSE(log_.record_reading(race, reading(a.id, 1, -1, 1e-3)).ok());
  EXPECT_FALSE(log_.record_reading(race, reading(a.id, 1, 0, -1.0)).ok());
  EXPECT_FALSE(
      log_.record_reading(race, reading(a.id, 1, 0, std::numeric_limits<double>::infinity())).ok());
  EXPECT_FALSE(log_.record_reading(race, reading(a.id + 100, 1, 0, 1e-3)).ok()) << "no such node";
  EXPECT_FALSE(log_.record_reading(race + 1, reading(a.id, 1, 0, 1e-3)).ok()) << "no such race";
  EXPECT_EQ(log_.readings(race).size(), 1u);
  EXPECT_FALSE(log_.begin_race(0).ok());
}

TEST_F(RaceLogTest, AFinishedRaceTakesNoMoreReadingsAndCannotFinishTwice) {
  const Node a = add(NodeKind::kDesign, std::nullopt, "a");
  const int64_t race = log_.begin_race(2).value();
  EXPECT_FALSE(log_.finish_race(race, 1, {a.id + 100}).ok()) << "ranks a node of no kernel";
  EXPECT_FALSE(log_.race(race)->finished_at) << "a refused finish changes nothing";
  ASSERT_TRUE(log_.finish_race(race, 0, {a.id}).ok());
  EXPECT_FALSE(log_.record_reading(race, reading(a.id, 0, 0, 1e-3)).ok());
  EXPECT_FALSE(log_.finish_race(race, 0, {a.id}).ok());
}

TEST_F(RaceLogTest, AbandoningDeletesOnlyUnfinishedRacesWithTheirReadings) {
  const Node a = add(NodeKind::kDesign, std::nullopt, "a");
  const int64_t done = log_.begin_race(2).value();
  ASSERT_TRUE(log_.record_reading(done, reading(a.id, 0, 0, 1e-3)).ok());
  ASSERT_TRUE(log_.finish_race(done, 1, {a.id}).ok());
  const int64_t killed = log_.begin_race(2).value();
  ASSERT_TRUE(log_.record_reading(killed, reading(a.id, 0, 0, 1e-3)).ok());

  EXPECT_EQ(log_.abandon_unfinished_races(), 1);
  EXPECT_FALSE(log_.race(killed));
  EXPECT_TRUE(log_.readings(killed).empty());
  ASSERT_EQ(log_.races().size(), 1u);
  EXPECT_EQ(log_.readings(done).size(), 1u);
  EXPECT_EQ(log_.abandon_unfinished_races(), 0);
}

}  // namespace
}  // namespace headway::trees
