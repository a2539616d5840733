#include "loop/race.h"

#include <gtest/gtest.h>

#include <cmath>

#include "loop/device_time.h"
#include "loop/loop_kernel_test_support.h"
#include "trees/race_log.h"

namespace headway::loop {
namespace {

using trees::RaceLog;

TEST(Race, RanksTheFastestFirstAndStoresEveryReadingAsTaken) {
  LoopKernel k;
  const auto slow = k.add("slow", "time: 0.9\n");
  const auto fast = k.add("fast", "time: 0.3\n");
  const auto mid = k.add("mid", "time: 0.6\n");
  Race race(k.target(), k.kernel(), k.tree(), {3, 24});
  const auto r = race.run(
      {{slow.id, k.artifact(slow)}, {fast.id, k.artifact(fast)}, {mid.id, k.artifact(mid)}},
      std::nullopt);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().ranking, (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(r.value().winner(), 1);
  EXPECT_FALSE(r.value().head_median);
  EXPECT_LT(r.value().medians[1], r.value().medians[2]);

  RaceLog log(k.tree());
  const auto stored = log.race(r.value().race_id).value();
  EXPECT_TRUE(stored.finished_at);
  EXPECT_EQ(stored.ranking, (std::vector<int64_t>{fast.id, mid.id, slow.id}));
  const auto readings = log.readings(stored.id);
  ASSERT_EQ(static_cast<int64_t>(readings.size()), *stored.spent);
  EXPECT_GE(readings.size(), 9u) << "three initial readings of each entrant at least";
  const int64_t node_of_arm[] = {slow.id, fast.id, mid.id};
  for (size_t i = 0; i < readings.size(); ++i) {
    EXPECT_EQ(readings[i].index, static_cast<int>(i));
    EXPECT_EQ(readings[i].node_id, node_of_arm[readings[i].arm]);
  }
  // The readings are the race's: the fast entrant's median is the median of its stored ones.
  std::vector<double> fast_s;
  for (const auto& x : readings)
    if (x.node_id == fast.id) fast_s.push_back(x.seconds);
  std::sort(fast_s.begin(), fast_s.end());
  const double median = fast_s.size() % 2
                            ? fast_s[fast_s.size() / 2]
                            : (fast_s[fast_s.size() / 2 - 1] + fast_s[fast_s.size() / 2]) / 2;
  EXPECT_DOUBLE_EQ(r.value().medians[1], median);
  EXPECT_GT(device_seconds(k.ws(), "attn_out"), 0.0);
}

// On a target that times on shared cores, entrants within 5% of the winner are ranked again by
// one core's readings: the one that does more with one core wins; one further behind keeps its
// place whatever it does on one core.
TEST(Race, TiedEntrantsAreRankedAgainByOneCoresReadings) {
  LoopKernel k("attn_out", "test-1:host=shared");
  const auto wide = k.add("wide", "time: 0.50\none-core: 3\n");
  const auto lean = k.add("lean", "time: 0.52\none-core: 1.5\n");
  const auto behind = k.add("behind", "time: 0.60\none-core: 0.5\n");
  Race race(k.target(), k.kernel(), k.tree(), {3, 24});
  const auto r = race.run(
      {{wide.id, k.artifact(wide)}, {lean.id, k.artifact(lean)}, {behind.id, k.artifact(behind)}},
      std::nullopt);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().ranking, (std::vector<int>{1, 0, 2}));
  const auto& one_core = r.value().one_core_medians;
  ASSERT_TRUE(one_core[0] && one_core[1]);
  EXPECT_NEAR(*one_core[0] / *one_core[1], (0.50 * 3) / (0.52 * 1.5), 0.1);
  EXPECT_FALSE(one_core[2]) << "not tied: not read on one core";
  EXPECT_EQ(RaceLog(k.tree()).race(r.value().race_id)->ranking,
            (std::vector<int64_t>{lean.id, wide.id, behind.id}))
      << "the stored ranking is the one after the tie-break";
  // The one-core readings are timed calls too: the kernel's timed seconds hold them besides the
  // race's own readings.
  double raced = 0.0;
  for (const auto& x : RaceLog(k.tree()).readings(r.value().race_id)) raced += x.seconds;
  EXPECT_GT(device_seconds_split(k.ws(), "attn_out").at("timed") - raced,
            2 * (*one_core[0] + *one_core[1]));
  // The target times on all its cores again after the race.
  const auto after = k.target().time_side_by_side(k.kernel(), {k.artifact(wide)}, 3, 7);
  ASSERT_TRUE(after[0].ok()) << after[0].failure;
  EXPECT_NEAR(after[0].median_seconds / r.value().medians[0], 1.0, 0.05);
}

TEST(Race, NoTieBreakWhereTheTargetDoesNotTimeOnThisMachinesCores) {
  LoopKernel k;
  const auto wide = k.add("wide", "time: 0.50\none-core: 3\n");
  const auto lean = k.add("lean", "time: 0.55\none-core: 1.5\n");
  Race race(k.target(), k.kernel(), k.tree(), {3, 24});
  const auto r = race.run({{wide.id, k.artifact(wide)}, {lean.id, k.artifact(lean)}}, std::nullopt);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().ranking, (std::vector<int>{0, 1}));
  EXPECT_FALSE(r.value().one_core_medians[0] || r.value().one_core_medians[1]);
}

TEST(Race, TheHeadRunsUnrankedAndItsReadingsAreKept) {
  LoopKernel k;
  const auto a = k.add("a", "time: 0.5\n");
  const auto b = k.add("b", "time: 0.7\n");
  const auto head = k.head();
  Race race(k.target(), k.kernel(), k.tree(), {3, 6});
  const auto r = race.run({{a.id, k.artifact(a)}, {b.id, k.artifact(b)}},
                          RaceEntrant{head.id, k.artifact(head)});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r.value().head_median);
  // The baseline (the head) is twice as slow as a.
  EXPECT_NEAR(*r.value().head_median / r.value().medians[0], 2.0, 0.1);
  EXPECT_EQ(r.value().ranking.size(), 2u) << "the head is not ranked";
  int head_readings = 0;
  for (const auto& x : RaceLog(k.tree()).readings(r.value().race_id)) {
    if (x.node_id == head.id) {
      EXPECT_EQ(x.arm, 2);
      ++head_readings;
    }
  }
  EXPECT_EQ(head_readings, 3);
}

TEST(Race, ACheatThatReadsFastestIsFoundOutAndRankedLast) {
  LoopKernel k;
  const auto cheat = k.add("cheat", "time: 0.1\ncheats: yes\n");
  const auto honest = k.add("honest", "time: 0.5\n");
  Race race(k.target(), k.kernel(), k.tree(), {3, 12});
  const auto r =
      race.run({{cheat.id, k.artifact(cheat)}, {honest.id, k.artifact(honest)}}, std::nullopt);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r.value().cheated[0]);
  EXPECT_NE(r.value().cheated[0]->find("cheats"), std::string::npos);
  EXPECT_FALSE(r.value().cheated[1]);
  EXPECT_EQ(r.value().winner(), 1);
  EXPECT_TRUE(std::isinf(r.value().medians[0]));
  EXPECT_EQ(RaceLog(k.tree()).race(r.value().race_id)->ranking,
            (std::vector<int64_t>{honest.id, cheat.id}));
}

// Entrants are verified in the race's order until one is found right: two cheats that read
// fastest are both found out, and the honest entrant behind them wins; a cheat behind the
// winner is not checked (no decision reads its readings), so it is only raced out.
TEST(Race, EntrantsAreVerifiedInOrderUntilOneIsRight) {
  LoopKernel k;
  const auto first = k.add("first", "time: 0.1\ncheats: yes\n");
  const auto second = k.add("second", "time: 0.2\ncheats: yes\n");
  const auto honest = k.add("honest", "time: 0.5\n");
  const auto slow_cheat = k.add("slow_cheat", "time: 0.9\ncheats: yes\n");
  Race race(k.target(), k.kernel(), k.tree(), {3, 24});
  const auto r = race.run({{first.id, k.artifact(first)},
                           {second.id, k.artifact(second)},
                           {honest.id, k.artifact(honest)},
                           {slow_cheat.id, k.artifact(slow_cheat)}},
                          std::nullopt);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r.value().cheated[0]);
  EXPECT_TRUE(r.value().cheated[1]) << "the second leader was checked once the first was wrong";
  EXPECT_FALSE(r.value().cheated[2]);
  EXPECT_FALSE(r.value().cheated[3]) << "a loser behind a right leader is not checked";
  EXPECT_EQ(r.value().winner(), 2);
  EXPECT_EQ(r.value().ranking, (std::vector<int>{2, 3, 0, 1}));
}

TEST(Race, ADeviceThatStopsLeavesAnUnfinishedRaceThatIsDiscarded) {
  LoopKernel k("attn_out", "test-1:stop-after=13");  // registration (2 warm-up, 11 timed) spends it
  const auto a = k.add("a", "time: 0.5\n");
  const auto b = k.add("b", "time: 0.7\n");
  Race race(k.target(), k.kernel(), k.tree(), {3, 12});
  EXPECT_THROW(race.run({{a.id, k.artifact(a)}, {b.id, k.artifact(b)}}, std::nullopt),
               targets::DeviceStopped);
  RaceLog log(k.tree());
  ASSERT_EQ(log.races().size(), 1u);
  EXPECT_FALSE(log.races()[0].finished_at);
  discard_unfinished_decisions(k.tree());
  EXPECT_TRUE(log.races().empty());
}

TEST(Race, AnArtifactThatCannotRunIsAnError) {
  LoopKernel k;
  const auto a = k.add("a", "time: 0.5\n");
  targets::Artifact broken = k.artifact(a);
  broken.meta["fails"] = "crash";
  Race race(k.target(), k.kernel(), k.tree(), {3, 12});
  const auto r = race.run({{a.id, k.artifact(a)}, {a.id, broken}}, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cannot start the race"), std::string::npos);
  EXPECT_TRUE(RaceLog(k.tree()).races().empty()) << "no race began";
}

}  // namespace
}  // namespace headway::loop
