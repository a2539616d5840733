// How bench shows a chip fact and the floors of its rounds.
#include "cli/floor_facts.h"

#include <gtest/gtest.h>

namespace headway::cli {
namespace {

std::vector<targets::ChipFact> two_facts() {
  return {{"read_bandwidth", 61.14, "GB/s", 3.25, "streamed reads"},
          {"decode_ceiling_f8", 40.5, "GB/s", std::nullopt, "the decoders alone"}};
}

TEST(FactDisplay, AFactIsShownWithItsSpreadWhereItHasOne) {
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

// The rounds' bandwidth in the JSON, in round order; nothing where a round lacks the fact.
TEST(FactDisplay, RoundFloorsGiveEachRoundsBandwidthOrNothing) {
  nlohmann::json out;
  add_round_floors({{{"read_bandwidth", 41.5}}, {{"read_bandwidth", 38.25}}}, "after each round",
                   "a row", false, &out);
  EXPECT_EQ(out["round_read_bandwidth_gbps"], nlohmann::json({41.5, 38.25}));
  nlohmann::json other;
  add_round_floors({{{"read_bandwidth", 41.5}}, {{"hbm_bandwidth", 900.0}}}, "after each round",
                   "a row", false, &other);
  EXPECT_FALSE(other.contains("round_read_bandwidth_gbps")) << other.dump();
}

}  // namespace
}  // namespace headway::cli
