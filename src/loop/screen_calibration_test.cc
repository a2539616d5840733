#include "loop/screen_calibration.h"

#include <gtest/gtest.h>

#include "store/test_temp_dir.h"
#include "trees/design_tree.h"

namespace headway::loop {
namespace {

class ScreenCalibrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_.emplace(store::Workspace::create(dir_.path()).value());
    auto tree =
        trees::DesignTree::create(*ws_, {"qkv", "command", {}, {}, ""}, "// base\n").value();
    head_ = tree.head().node_id;
    for (int i = 0; i < 6; ++i) {
      trees::NewNode n;
      n.design = "d";
      n.source = "// candidate " + std::to_string(i) + "\n";
      nodes_.push_back(tree.add(n).value().node.id);
    }
  }
  void add(int i, double predicted, double measured, const char* source = "race") {
    record_screen_calibration(*ws_, {"qkv", nodes_[static_cast<size_t>(i)], head_, "command:toy:1",
                                     predicted, measured, source});
  }
  store::TestTempDir dir_;
  std::optional<store::Workspace> ws_;
  int64_t head_ = 0;
  std::vector<int64_t> nodes_;
};

TEST_F(ScreenCalibrationTest, NothingRecordedIsNoFigure) {
  const auto s = summarize_screen_calibration(*ws_);
  EXPECT_EQ(s.candidates, 0);
  EXPECT_FALSE(s.spearman.has_value());
  EXPECT_FALSE(s.false_gain_rate().has_value());
  EXPECT_TRUE(static_cost_trusted(s));
}

TEST_F(ScreenCalibrationTest, RankCorrelationAndPredictedGainsTheDeviceDidNotShow) {
  add(0, 30, 25);
  add(1, 20, 22);
  add(2, 10, -5);  // predicted a gain, measured a loss
  add(3, -5, -8);
  add(4, 15, 3);
  const auto s = summarize_screen_calibration(*ws_, "qkv");
  EXPECT_EQ(s.candidates, 5);
  EXPECT_EQ(s.predicted_gains, 4);
  EXPECT_EQ(s.false_gains, 1);
  EXPECT_DOUBLE_EQ(*s.false_gain_rate(), 0.25);
  // Ranks predicted 5 4 2 1 3, measured 5 4 2 1 3: the same order.
  EXPECT_DOUBLE_EQ(*s.spearman, 1.0);
  EXPECT_TRUE(static_cost_trusted(s));
  EXPECT_EQ(summarize_screen_calibration(*ws_, "ffn").candidates, 0);
}

TEST_F(ScreenCalibrationTest, ATestsEffectReplacesTheRaceFigure) {
  add(0, 30, 25);
  add(0, 30, -2, "test");
  add(0, 30, 40);  // a later race of the same candidate does not override its test
  const auto s = summarize_screen_calibration(*ws_);
  EXPECT_EQ(s.candidates, 1);
  EXPECT_EQ(s.false_gains, 1);
}

TEST_F(ScreenCalibrationTest, AnUnrankingStaticCostIsNotTrusted) {
  add(0, 30, -20);
  add(1, 20, -10);
  add(2, 10, 0);
  add(3, 0, 10);
  add(4, -10, 20);
  const auto s = summarize_screen_calibration(*ws_);
  EXPECT_DOUBLE_EQ(*s.spearman, -1.0);
  EXPECT_FALSE(static_cost_trusted(s));
}

TEST_F(ScreenCalibrationTest, RowsAreAppendOnly) {
  add(0, 1, 1);
  EXPECT_ANY_THROW(ws_->db().exec("DELETE FROM screen_calibration"));
}

}  // namespace
}  // namespace headway::loop
