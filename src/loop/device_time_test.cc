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

TEST_F(DeviceTimeTest, SurvivesReopeningTheWorkspace) {
  add_device_seconds(ws, "qkv", 2.0, "screen");
  auto reopened = store::Workspace::open(dir.path()).value();
  add_device_seconds(reopened, "qkv", 1.0, "screen");
  EXPECT_DOUBLE_EQ(device_seconds(reopened, "qkv"), 3.0);
}

}  // namespace
}  // namespace headway::loop
