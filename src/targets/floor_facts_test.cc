// The floor facts measured now: every needed fact by name, a missing one named in an environment
// error, and one measurement at a time.
#include "targets/floor_facts.h"

#include <gtest/gtest.h>

#include "targets/fact_names.h"
#include "targets/registry/registry.h"
#include "targets/testing/loop_test_target_test_support.h"

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

// One measurement each time: the loop tests' target gives its bandwidths in turn.
TEST(FloorFacts, EachMeasurementIsTheTargetsNextReading) {
  const auto target = targets::testing::make_loop_test_target("test-1:bandwidths=50,25");
  ASSERT_TRUE(target->identity().found) << target->identity().error;
  for (const double expected : {50.0, 25.0, 50.0}) {
    const Result<FloorFacts> facts = measure_floor_facts(*target);
    ASSERT_TRUE(facts) << facts.error().message;
    EXPECT_DOUBLE_EQ(facts->values.at(kReadBandwidth), expected);
    EXPECT_EQ(facts->repeats.at(kReadBandwidth), std::vector<double>{expected});
  }
  // A target that measures nothing fails, naming the fact.
  const auto silent = targets::testing::make_loop_test_target("test-1:bandwidths=none");
  const Result<FloorFacts> none = measure_floor_facts(*silent);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::kEnvironment);
  EXPECT_EQ(none.error().message, "the loop-test target did not measure read_bandwidth");
}

// A floor recheck measures only what memory floors need: on the cpu target the read bandwidth,
// not the decode ceilings, and the floors of those give memory_ms alone.
TEST(FloorFacts, TheCpuTargetMeasuresOnlyItsMemoryFloorsFactsWhenAskedForThem) {
  const auto target = targets::make_target("cpu");
  ASSERT_TRUE(target);
  EXPECT_EQ(target->memory_floor_facts(), std::vector<std::string>{kReadBandwidth});
  const Result<FloorFacts> facts = measure_floor_facts(*target, target->memory_floor_facts());
  ASSERT_TRUE(facts) << facts.error().message;
  EXPECT_EQ(facts->values.count(kDecodeF8), 0u);
  EXPECT_EQ(facts->values.count(kDecodeNvfp4), 0u);
  EXPECT_GT(facts->values.at(kReadBandwidth), 0.0);
  const KernelFloors ffn = target->floors(*builtin_kernel("ffn"), facts->values);
  EXPECT_GT(ffn.memory_ms, 0.0);
  EXPECT_FALSE(ffn.instruction_ms);
}

}  // namespace
}  // namespace headway::targets
