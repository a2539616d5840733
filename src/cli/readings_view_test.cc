// How bench shows readings: the interval's ends are order statistics of the readings, bimodal
// readings name their two groups, and the JSON carries both.
#include "cli/readings_view.h"

#include <gtest/gtest.h>

namespace headway::cli {
namespace {

// Eleven readings: the 95% interval of their median runs from the 2nd to the 10th smallest.
const std::vector<double> kEleven = {1.9, 1.0, 1.3, 1.1, 1.5, 1.2, 1.4, 1.6, 1.7, 1.8, 9.0};

TEST(ReadingsView, SecondsBecomeMillisecondsInOrder) {
  EXPECT_EQ(to_ms({0.0025, 0.001, 2.0}), (std::vector<double>{2.5, 1.0, 2000.0}));
  EXPECT_TRUE(to_ms({}).empty());
}

TEST(ReadingsView, TheIntervalIsTheSecondAndTenthOfElevenReadings) {
  EXPECT_EQ(interval_text(kEleven), "[1.100, 1.900]");
  const nlohmann::json j = readings_json(kEleven);
  EXPECT_DOUBLE_EQ(j["median_ms"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["median_interval_ms"][0].get<double>(), 1.1);
  EXPECT_DOUBLE_EQ(j["median_interval_ms"][1].get<double>(), 1.9);
  EXPECT_GE(j["interval_coverage"].get<double>(), 0.95);
  EXPECT_EQ(j["readings_ms"].size(), kEleven.size());
}

TEST(ReadingsView, TwoTightGroupsAreBimodalAndNamed) {
  std::vector<double> ms;
  for (int i = 0; i < 10; ++i) ms.push_back(0.70 + 0.001 * i);
  for (int i = 0; i < 10; ++i) ms.push_back(1.40 + 0.001 * i);
  const std::string text = bimodal_text(ms);
  EXPECT_EQ(text.rfind("bimodal: 0.70", 0), 0u) << text;
  EXPECT_NE(text.find("| 1.40"), std::string::npos) << text;
  EXPECT_NE(text.find("(10 | 10)"), std::string::npos) << text;
  const nlohmann::json j = readings_json(ms);
  EXPECT_TRUE(j["bimodal"].get<bool>());
  ASSERT_EQ(j["modes_ms"].size(), 2u);
  EXPECT_LT(j["modes_ms"][0].get<double>(), 0.75);
  EXPECT_GT(j["modes_ms"][1].get<double>(), 1.35);
}

TEST(ReadingsView, OneGroupIsNotBimodal) {
  std::vector<double> ms;
  for (int i = 0; i < 20; ++i) ms.push_back(1.0 + 0.01 * i);
  EXPECT_EQ(bimodal_text(ms), "");
  EXPECT_TRUE(readings_json(ms)["modes_ms"].is_null());
}

TEST(ReadingsView, ARowBelowItsFloorSaysItIsAFloorToFixBesideItsModes) {
  std::vector<double> one_mode;
  for (int i = 0; i < 20; ++i) one_mode.push_back(1.0 + 0.01 * i);
  EXPECT_EQ(reading_notes(one_mode, 1.05), "");
  EXPECT_EQ(reading_notes(one_mode, 0.90),
            "  0.90x: below its floor (at least 0.97x): a floor to fix, not a result");
  std::vector<double> two_modes;
  for (int i = 0; i < 10; ++i) {
    two_modes.push_back(0.7 + 0.001 * i);
    two_modes.push_back(1.4 + 0.001 * i);
  }
  const std::string both = reading_notes(two_modes, 0.5);
  EXPECT_EQ(both.rfind("  bimodal: ", 0), 0u) << both;
  EXPECT_NE(both.find("  0.50x: below its floor"), std::string::npos) << both;
}

}  // namespace
}  // namespace headway::cli
