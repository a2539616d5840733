#include "statistics/reading.h"

#include <gtest/gtest.h>

namespace headway::statistics {
namespace {

Reading sample() {
  Reading r;
  r.kernel = "attn_out";
  r.node = "cpu0";
  r.test_id = 12;
  r.pair_index = 3;
  r.position = 1;
  r.arm = Arm::kCandidate;
  r.start_ns = 1234567890123;
  r.seconds = 0.00125;
  r.clock = nlohmann::json{{"mhz", 3200}};
  return r;
}

TEST(Reading, ArmNames) {
  EXPECT_EQ(to_string(Arm::kHead), "head");
  EXPECT_EQ(to_string(Arm::kCandidate), "candidate");
  EXPECT_EQ(parse_arm("head"), Arm::kHead);
  EXPECT_EQ(parse_arm("candidate"), Arm::kCandidate);
  EXPECT_EQ(parse_arm("Head"), std::nullopt);
  EXPECT_EQ(other(Arm::kHead), Arm::kCandidate);
  EXPECT_EQ(other(Arm::kCandidate), Arm::kHead);
}

TEST(Reading, JsonRoundTrip) {
  const Reading r = sample();
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["arm"], "candidate");
  EXPECT_EQ(j["pair"], 3);
  const auto back = reading_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back.value(), r);
}

TEST(Reading, JsonErrorsNameTheKey) {
  nlohmann::json j = to_json(sample());
  j.erase("seconds");
  auto r = reading_from_json(j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "reading lacks 'seconds'");
  j = to_json(sample());
  j["arm"] = "neither";
  r = reading_from_json(j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "reading has a mistyped 'arm'");
  EXPECT_FALSE(reading_from_json(nlohmann::json::array()).ok());
}

}  // namespace
}  // namespace headway::statistics
