// The floor facts measured now: every needed fact by name, a missing one named in an environment
// error, and the mean of two measurements taken around some readings.
#include "targets/floor_facts.h"

#include <gtest/gtest.h>

#include "targets/fact_names.h"
#include "targets/registry/registry.h"

namespace headway::targets {
namespace {

std::vector<ChipFact> two_facts() {
  return {{"read_bandwidth", 61.14, "GB/s", 3.25, "streamed reads"},
          {"decode_ceiling_f8", 40.5, "GB/s", std::nullopt, "the decoders alone"}};
}

TEST(FloorFacts, EveryNeededFactIsFoundByName) {
  const Result<FloorFacts> facts =
      floor_facts_from(two_facts(), {"decode_ceiling_f8", "read_bandwidth"}, "cpu");
  ASSERT_TRUE(facts) << facts.error().message;
  EXPECT_DOUBLE_EQ(facts->values.at("read_bandwidth"), 61.14);
  EXPECT_DOUBLE_EQ(facts->values.at("decode_ceiling_f8"), 40.5);
  ASSERT_EQ(facts->measured.size(), 2u);
  EXPECT_EQ(facts->measured[0].name, "read_bandwidth");  // the target's order is kept
}

TEST(FloorFacts, AFactTheTargetDidNotMeasureIsAnEnvironmentError) {
  const Result<FloorFacts> facts =
      floor_facts_from(two_facts(), {"read_bandwidth", "hbm_bandwidth"}, "cuda");
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().code, ErrorCode::kEnvironment);
  EXPECT_EQ(facts.error().message, "the cuda target did not measure hbm_bandwidth");
}

TEST(FloorFacts, TheSimTargetsFloorFactsAreMeasured) {
  const auto target = targets::make_target("sim");
  ASSERT_TRUE(target);
  const Result<FloorFacts> facts = measure_floor_facts(*target);
  ASSERT_TRUE(facts) << facts.error().message;
  ASSERT_FALSE(target->floor_facts().empty());
  for (const auto& name : target->floor_facts()) EXPECT_EQ(facts->values.count(name), 1u) << name;
}

TEST(FloorFacts, AroundSomeReadingsEachFactIsTheMeanOfItsTwoMeasurements) {
  const FloorFacts before = floor_facts_from(two_facts(), {}, "cpu").value();
  std::vector<ChipFact> later = two_facts();
  later[0].value = 40.0;
  const FloorFacts after = floor_facts_from(later, {}, "cpu").value();
  const auto mean = mean_floor_facts(before, after);
  ASSERT_EQ(mean.size(), 2u);
  EXPECT_DOUBLE_EQ(mean.at("read_bandwidth"), (61.14 + 40.0) / 2);
  EXPECT_DOUBLE_EQ(mean.at("decode_ceiling_f8"), 40.5);
  EXPECT_EQ(before_and_after_text(before, after, {"decode_ceiling_f8", "read_bandwidth"}),
            "read_bandwidth 61.14 then 40 GB/s, decode_ceiling_f8 40.5 then 40.5 GB/s");
  EXPECT_EQ(before_and_after_text(before, after, {"read_bandwidth"}),
            "read_bandwidth 61.14 then 40 GB/s");
  // A fact missing from the later measurement is a bug of the caller's, not a silent half.
  const FloorFacts partial = floor_facts_from({later[1]}, {}, "cpu").value();
  EXPECT_THROW(mean_floor_facts(before, partial), std::out_of_range);
}

}  // namespace
}  // namespace headway::targets
