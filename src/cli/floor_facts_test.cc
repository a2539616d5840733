// The floor facts bench measures: every needed fact by name, a missing one named in an
// environment error, and how a fact is shown.
#include "cli/floor_facts.h"

#include <gtest/gtest.h>

#include "targets/registry/registry.h"

namespace headway::cli {
namespace {

std::vector<targets::ChipFact> two_facts() {
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

TEST(FloorFacts, AFactIsShownWithItsSpreadWhereItHasOne) {
  const auto facts = two_facts();
  EXPECT_EQ(fact_line(facts[0]), "read_bandwidth: 61.14 GB/s (cv 3.2%)");
  EXPECT_EQ(fact_line(facts[1]), "decode_ceiling_f8: 40.5 GB/s");
  const nlohmann::json j = fact_json(facts[1]);
  EXPECT_EQ(j["name"], "decode_ceiling_f8");
  EXPECT_DOUBLE_EQ(j["value"].get<double>(), 40.5);
  EXPECT_TRUE(j["spread_pct"].is_null());
  EXPECT_EQ(j["method"], "the decoders alone");
  EXPECT_DOUBLE_EQ(fact_json(facts[0])["spread_pct"].get<double>(), 3.25);
}

TEST(FloorFacts, TheSimTargetsFloorFactsAreMeasured) {
  const auto target = targets::make_target("sim");
  ASSERT_TRUE(target);
  const FloorFacts facts = measure_floor_facts(*target);
  ASSERT_FALSE(target->floor_facts().empty());
  for (const auto& name : target->floor_facts()) EXPECT_EQ(facts.values.count(name), 1u) << name;
}

}  // namespace
}  // namespace headway::cli
