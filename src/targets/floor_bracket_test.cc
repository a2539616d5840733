// The floor of a timing's own seconds: measured before and after it on a shared host, the timing
// done again while its floor moved, a measurement shared by two timings in a row, and the facts
// measured once elsewhere. The loop tests' target gives its `:bandwidths=` in turn.
#include "targets/floor_bracket.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kernels/contract.h"
#include "targets/fact_names.h"
#include "targets/testing/loop_test_target_test_support.h"

namespace headway::targets {
namespace {

std::unique_ptr<Target> target_with(const std::string& spec) {
  auto target = testing::make_loop_test_target(spec);
  EXPECT_TRUE(target->identity().found) << target->identity().error;
  return target;
}

std::vector<const KernelContract*> attn_out() {
  const KernelContract* k = builtin_kernel("attn_out");
  EXPECT_NE(k, nullptr);
  return {k};
}

// Counts the timing's runs; each succeeds.
struct CountedTiming {
  int runs = 0;
  std::function<bool()> fn() {
    return [this] {
      ++runs;
      return true;
    };
  }
};

TEST(FloorBracket, OnASharedHostTheFloorIsFromTheFasterOfTheMeasurementsBeforeAndAfter) {
  const auto target = target_with("test-1:host=shared:bandwidths=40,44,48,100");
  FloorBracket bracket(*target);
  CountedTiming timing;
  const auto first = bracket.around(attn_out(), timing.fn());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(first->around);
  EXPECT_TRUE(first->held);
  EXPECT_EQ(first->timings, 1);
  EXPECT_EQ(timing.runs, 1);
  EXPECT_DOUBLE_EQ(first->facts.values.at(kReadBandwidth), 44.0);
  EXPECT_EQ(first->facts.repeats.at(kReadBandwidth), (std::vector<double>{40.0, 44.0}));
  EXPECT_NEAR(first->moved, 0.1, 1e-12);  // 44 against 40 GB/s: floors 10% apart
  EXPECT_EQ(first->text({kReadBandwidth}), "read_bandwidth 44 GB/s (40 before, 44 after)");
  EXPECT_EQ(first->movement(), "");
  EXPECT_NE(first->facts.measured.at(0).method.find("just before (40) and just after (44)"),
            std::string::npos)
      << first->facts.measured.at(0).method;
  // The next timing's before is the last one's after (44), not a fresh measurement (48, 100).
  const auto second = bracket.around(attn_out(), timing.fn());
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->facts.repeats.at(kReadBandwidth), (std::vector<double>{44.0, 48.0}));
  EXPECT_TRUE(second->held);
  EXPECT_EQ(timing.runs, 2);
}

TEST(FloorBracket, ATimingWhoseFloorMovedIsDoneAgainBetweenFreshMeasurements) {
  const auto target = target_with("test-1:host=shared:bandwidths=40,80,80");
  FloorBracket bracket(*target);
  CountedTiming timing;
  const auto floor = bracket.around(attn_out(), timing.fn());
  ASSERT_TRUE(floor) << floor.error().message;
  EXPECT_EQ(timing.runs, 2);
  EXPECT_EQ(floor->timings, 2);
  EXPECT_TRUE(floor->held);
  EXPECT_EQ(floor->facts.repeats.at(kReadBandwidth), (std::vector<double>{80.0, 80.0}));
  EXPECT_DOUBLE_EQ(floor->facts.values.at(kReadBandwidth), 80.0);
  EXPECT_DOUBLE_EQ(floor->moved, 0.0);
  EXPECT_EQ(floor->movement(), "timed 2 times, the floor having moved during the earlier ones");
}

TEST(FloorBracket, AFloorThatNeverHoldsIsSaidSoAfterTheLastTiming) {
  const auto target = target_with("test-1:host=shared:bandwidths=40,80");
  FloorBracket bracket(*target, {0.15, 3, {}});
  CountedTiming timing;
  const auto floor = bracket.around(attn_out(), timing.fn());
  ASSERT_TRUE(floor) << floor.error().message;
  EXPECT_EQ(timing.runs, 3);
  EXPECT_EQ(floor->timings, 3);
  EXPECT_FALSE(floor->held);
  EXPECT_NEAR(floor->moved, 1.0, 1e-12);  // 40 against 80 GB/s: one floor twice the other
  // The third timing's measurements: 40 (the second's after), then 80.
  EXPECT_EQ(floor->facts.repeats.at(kReadBandwidth), (std::vector<double>{40.0, 80.0}));
  EXPECT_DOUBLE_EQ(floor->facts.values.at(kReadBandwidth), 80.0);  // the faster spell
  EXPECT_EQ(floor->movement(), "the floor moved by 100% during the readings in each of 3 timings");
}

TEST(FloorBracket, ATimingThatBeatsItsFloorIsDoneAgain) {
  const auto target = target_with("test-1:host=shared:bandwidths=40,40,42");
  FloorBracket bracket(*target);
  CountedTiming timing;
  std::vector<double> judged;  // the read bandwidth of each facts the readings were judged by
  const auto floor = bracket.around(attn_out(), timing.fn(), [&](const FloorFacts& facts) {
    judged.push_back(facts.values.at(kReadBandwidth));
    return judged.size() == 1;  // the first timing's readings beat its floor
  });
  ASSERT_TRUE(floor) << floor.error().message;
  EXPECT_EQ(timing.runs, 2);
  EXPECT_EQ(judged, (std::vector<double>{40.0, 42.0}));
  EXPECT_TRUE(floor->held);
  EXPECT_FALSE(floor->beaten);
  EXPECT_EQ(floor->beaten_timings, 1);
  EXPECT_EQ(floor->moved_timings, 0);
  EXPECT_EQ(floor->movement(),
            "timed 2 times, the readings having beaten the floor during the earlier ones");
}

TEST(FloorBracket, ReadingsThatAlwaysBeatTheFloorAreSaidToAfterTheLastTiming) {
  const auto target = target_with("test-1:host=shared:bandwidths=40");
  FloorBracket bracket(*target, {0.15, 3, {}});
  CountedTiming timing;
  const auto floor =
      bracket.around(attn_out(), timing.fn(), [](const FloorFacts&) { return true; });
  ASSERT_TRUE(floor) << floor.error().message;
  EXPECT_EQ(timing.runs, 3);
  EXPECT_TRUE(floor->beaten);
  EXPECT_EQ(floor->movement(), "the readings beat the floor in each of 3 timings");
  // A floor that moved during the first timing and was beaten in the others is said as such.
  const auto moved_target = target_with("test-1:host=shared:bandwidths=40,80,80,80");
  FloorBracket moved_bracket(*moved_target, {0.15, 3, {}});
  const auto mixed =
      moved_bracket.around(attn_out(), timing.fn(), [](const FloorFacts&) { return true; });
  ASSERT_TRUE(mixed) << mixed.error().message;
  EXPECT_EQ(mixed->moved_timings, 1);
  EXPECT_EQ(mixed->beaten_timings, 2);
  EXPECT_EQ(mixed->movement(), "the readings of the last of 3 timings beat the floor");
  // Without the judgement the same readings are taken once.
  CountedTiming unjudged;
  const auto once = bracket.around(attn_out(), unjudged.fn());
  ASSERT_TRUE(once) << once.error().message;
  EXPECT_EQ(unjudged.runs, 1);
  EXPECT_FALSE(once->beaten);
}

TEST(FloorBracket, AFailedTimingIsNotDoneAgain) {
  const auto target = target_with("test-1:host=shared:bandwidths=40,80");
  FloorBracket bracket(*target);
  int runs = 0;
  const auto floor = bracket.around(attn_out(), [&] {
    ++runs;
    return false;
  });
  ASSERT_TRUE(floor) << floor.error().message;
  EXPECT_EQ(runs, 1);
  EXPECT_FALSE(floor->held);
}

TEST(FloorBracket, ElsewhereTheFactsAreMeasuredOnceForEveryTiming) {
  const auto target = target_with("test-1:bandwidths=40,80");
  FloorBracket bracket(*target);
  CountedTiming timing;
  for (int i = 0; i < 3; ++i) {
    const auto floor = bracket.around(attn_out(), timing.fn());
    ASSERT_TRUE(floor) << floor.error().message;
    EXPECT_FALSE(floor->around);
    EXPECT_TRUE(floor->held);
    EXPECT_EQ(floor->timings, 1);
    EXPECT_DOUBLE_EQ(floor->facts.values.at(kReadBandwidth), 40.0);
    EXPECT_EQ(floor->text({kReadBandwidth}), "read_bandwidth 40 GB/s");
  }
  EXPECT_EQ(timing.runs, 3);
}

TEST(FloorBracket, AMissingFloorFactIsTheError) {
  const auto target = target_with("test-1:host=shared:bandwidths=none");
  FloorBracket bracket(*target);
  CountedTiming timing;
  const auto floor = bracket.around(attn_out(), timing.fn());
  ASSERT_FALSE(floor);
  EXPECT_EQ(floor.error().code, ErrorCode::kEnvironment);
  EXPECT_EQ(floor.error().message, "the loop-test target did not measure read_bandwidth");
  EXPECT_EQ(timing.runs, 0);
}

// Given the facts to measure (a floor recheck's: the memory floor's), the bracket measures no
// other: here not the decode ceiling, which the target's floors would otherwise take.
TEST(FloorBracket, MeasuresOnlyTheFactsItIsGiven) {
  const auto target = target_with("test-1:host=shared:bandwidths=40,40:decodes=20,20");
  for (const bool memory_only : {false, true}) {
    FloorBracketOptions options;
    if (memory_only) options.facts = target->memory_floor_facts();
    FloorBracket bracket(*target, options);
    CountedTiming timing;
    const auto floor = bracket.around(attn_out(), timing.fn());
    ASSERT_TRUE(floor) << floor.error().message;
    EXPECT_EQ(floor->facts.values.count(kDecodeF8), memory_only ? 0u : 1u) << memory_only;
    EXPECT_DOUBLE_EQ(floor->facts.values.at(kReadBandwidth), 40.0);
  }
}

// Each measurement takes the readings the bracket is given (a floor recheck's fewer), and the
// bracket's default is the facts' own.
TEST(FloorBracket, MeasuresWithTheReadingsItIsGiven) {
  const auto target = target_with("test-1:host=shared:bandwidths=40,40");
  for (const int readings : {5, FactOptions{}.readings}) {
    FloorBracketOptions options;
    if (readings != FactOptions{}.readings) options.readings = readings;
    FloorBracket bracket(*target, options);
    CountedTiming timing;
    const auto floor = bracket.around(attn_out(), timing.fn());
    ASSERT_TRUE(floor) << floor.error().message;
    const std::string& method = floor->facts.measured.at(0).method;
    EXPECT_NE(method.find(fmt::format("({} readings)", readings)), std::string::npos) << method;
  }
}

}  // namespace
}  // namespace headway::targets
