#include "loop/device_time.h"

#include <gtest/gtest.h>

#include "store/test_temp_dir.h"

namespace headway::loop {
namespace {

struct DeviceTimeTest : ::testing::Test {
  store::TestTempDir dir;
  store::Workspace ws = store::Workspace::create(dir.path()).value();
};

TEST_F(DeviceTimeTest, AddsUpPerKernelAndKeepsKernelsApart) {
  EXPECT_EQ(device_seconds(ws, "qkv"), 0.0);
  EXPECT_TRUE(device_seconds_split(ws, "qkv").empty());
  add_device_seconds(ws, "qkv", 1.5, "screen");
  add_device_seconds(ws, "qkv", 0.25, "screen");
  add_device_seconds(ws, "ffn", 4.0, "screen");
  EXPECT_DOUBLE_EQ(device_seconds(ws, "qkv"), 1.75);
  EXPECT_DOUBLE_EQ(device_seconds(ws, "ffn"), 4.0);
  EXPECT_EQ(device_seconds_split(ws, "qkv"), (std::map<std::string, double>{{"screen", 1.75}}));
}

TEST_F(DeviceTimeTest, AccountingSplitsTheTimeAndTheRestIsOther) {
  add_device_seconds(ws, "attn_out", 10.0, "other",
                     {{"timed_seconds", 2.0}, {"guard_seconds", 3.0}, {"unknown_seconds", 9.0}});
  const auto split = device_seconds_split(ws, "attn_out");
  EXPECT_DOUBLE_EQ(split.at("timed"), 2.0);
  EXPECT_DOUBLE_EQ(split.at("guard"), 3.0);
  EXPECT_DOUBLE_EQ(split.at("other"), 5.0) << "what the accounting does not cover";
  EXPECT_FALSE(split.count("unknown")) << "only the known activities are kept";
  EXPECT_DOUBLE_EQ(device_seconds(ws, "attn_out"), 10.0);
}

TEST_F(DeviceTimeTest, TheDecisionRateCountsFinishedTestsPerDeviceHourOfEveryKernel) {
  EXPECT_EQ(decision_rate(ws).decisions, 0);
  EXPECT_EQ(decision_rate(ws).per_device_hour, 0.0) << "no device time yet";
  ws.db().exec("INSERT INTO kernels(name, target) VALUES ('qkv', 'cpu'), ('ffn', 'cpu')");
  ws.db().exec(
      "INSERT INTO nodes(id, kernel, parent_id, kind, source_hash, status) VALUES "
      "(1, 'qkv', NULL, 'baseline', 'a', 'accepted'), (2, 'qkv', 1, 'design', 'b', 'accepted'), "
      "(3, 'ffn', NULL, 'baseline', 'c', 'accepted'), (4, 'ffn', 3, 'design', 'd', 'same')");
  ws.db().exec(
      "INSERT INTO tests(kernel, head_node, candidate_node, rule, outcome, finished_at) VALUES "
      "('qkv', 1, 2, 'betting', 'FASTER', 'now'), ('ffn', 3, 4, 'betting', 'SAME', 'now'), "
      "('ffn', 3, 4, 'betting', NULL, NULL)");
  add_device_seconds(ws, "qkv", 600.0, "other",
                     {{"timed_seconds", 200.0}, {"guard_seconds", 100.0}});
  add_device_seconds(ws, "ffn", 300.0, "screen");
  add_device_seconds(ws, "ffn", 300.0, "other", {{"timed_seconds", 250.0}});
  const DecisionRate rate = decision_rate(ws);
  EXPECT_EQ(rate.decisions, 2) << "the unfinished test is no decision";
  EXPECT_DOUBLE_EQ(rate.device_seconds, 1200.0);
  EXPECT_DOUBLE_EQ(rate.per_device_hour, 6.0);
  EXPECT_DOUBLE_EQ(rate.timed_share, 450.0 / 900.0) << "the screen's 300 s are left out";
  EXPECT_EQ(describe(rate),
            "2 decisions in 1200 device-seconds, 6.0 a device-hour; timed calls 50% of the "
            "device time outside the screen");
  const DecisionRate back = decision_rate_from_json(to_json(rate));
  EXPECT_EQ(back.decisions, 2);
  EXPECT_DOUBLE_EQ(back.timed_share, 0.5);
  EXPECT_EQ(decision_rate_from_json(nullptr).decisions, 0);
}

TEST_F(DeviceTimeTest, SurvivesReopeningTheWorkspace) {
  add_device_seconds(ws, "qkv", 2.0, "screen");
  auto reopened = store::Workspace::open(dir.path()).value();
  add_device_seconds(reopened, "qkv", 1.0, "screen");
  EXPECT_DOUBLE_EQ(device_seconds(reopened, "qkv"), 3.0);
}

}  // namespace
}  // namespace headway::loop
