#include "loop/head_curve.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "loop/device_time.h"
#include "loop/scripted_run_test_support.h"
#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"
#include "trees/design_tree.h"

namespace headway::loop {
namespace {

TEST(HeadCurve, TheDeviceTimeUntilEveryKernelIsWithinARatioOfItsFloor) {
  // a: floor 1, 4 ms then 1.2 ms at 10 s; b: floor 2, 8 ms then 2.4 ms at 5 s, 2.1 ms at 30 s.
  const std::vector<std::vector<HeadStep>> curves{{{0, 4.0}, {10, 1.2}},
                                                  {{0, 8.0}, {5, 2.4}, {30, 2.1}}};
  const std::vector<double> floors{1.0, 2.0};
  EXPECT_EQ(device_seconds_to_within(curves, floors, 1.25), 10.0) << "b got there first, then a";
  EXPECT_EQ(device_seconds_to_within(curves, floors, 4.0), 0.0) << "the baselines already were";
  EXPECT_FALSE(device_seconds_to_within(curves, floors, 1.10)) << "a never got there";
  EXPECT_FALSE(device_seconds_to_within({}, {}, 2.0));
  EXPECT_FALSE(device_seconds_to_within({{{0, 4.0}}, {}}, floors, 9.0)) << "b has no curve";
  EXPECT_THROW(device_seconds_to_within(curves, {1.0}, 2.0), std::invalid_argument);
}

// Two accepted changes on the loop's test target (racing off: a test each): the curve starts
// at the baseline at device time 0 and steps down at the device time of each acceptance.
TEST(HeadCurve, ARunsCurveStepsDownAtTheDeviceTimeOfEachAcceptedChange) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  auto target = targets::make_test_target();
  const auto summary = run_scripted(ws, *target, {"time: 0.8\n", "time: 0.5\n"}, nullptr, 1.10,
                                    [](OptimizeOptions& o) { o.racing = false; });
  ASSERT_EQ(summary.accepted, 2);
  const auto curve = head_curve(ws, "attn_out");
  ASSERT_EQ(curve.size(), 3u);
  EXPECT_EQ(curve[0].device_seconds, 0.0);
  EXPECT_GT(curve[1].device_seconds, 0.0) << "the simulated device's time counts";
  EXPECT_GT(curve[2].device_seconds, curve[1].device_seconds);
  EXPECT_LE(curve[2].device_seconds, total_device_seconds(ws));
  EXPECT_NEAR(curve[1].head_ms / curve[0].head_ms, 0.8, 0.05);
  EXPECT_NEAR(curve[2].head_ms / curve[0].head_ms, 0.5, 0.05);
  auto tree = trees::DesignTree::open(ws, "attn_out").value();
  const double floor_ms = *tree.record().floor_ms;  // the baseline is 6x its floor
  EXPECT_EQ(device_seconds_to_within({curve}, {floor_ms}, 3.5), curve[2].device_seconds);
  EXPECT_FALSE(device_seconds_to_within({curve}, {floor_ms}, 2.0));
  EXPECT_TRUE(head_curve(ws, "qkv").empty()) << "not registered";
}

}  // namespace
}  // namespace headway::loop
