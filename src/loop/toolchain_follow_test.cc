#include "loop/toolchain_follow.h"

#include <gtest/gtest.h>

#include "common/result.h"
#include "knowledge/workspace_target.h"
#include "loop/loop_kernel_test_support.h"

namespace headway::loop {
namespace {

TEST(ToolchainFollower, AnUnchangedToolchainIsNamedAsItIs) {
  LoopKernel k;
  ToolchainFollower follower(k.ws(), k.target());
  const std::string version = k.target().identity().version;
  EXPECT_EQ(follower.follow(), "toolchain " + version);
  EXPECT_EQ(k.target().toolchain(), "test-1");
}

TEST(ToolchainFollower, ANewWorkspaceToolchainIsSelectedOnTheTarget) {
  LoopKernel k;
  ToolchainFollower follower(k.ws(), k.target());
  const std::string was = k.target().identity().version;
  knowledge::set_workspace_toolchain(k.ws(), *targets::make_test_target("test-2"));
  const std::string note = follower.follow();
  EXPECT_EQ(k.target().toolchain(), "test-2");
  EXPECT_EQ(note, "toolchain now test-2 (" + k.target().identity().version + ", was " + was + ")");
  // Seen now: the next follow changes nothing.
  EXPECT_EQ(follower.follow(), "toolchain " + k.target().identity().version);
}

TEST(ToolchainFollower, AToolchainTheTargetCannotUseIsAnEnvironmentFailure) {
  LoopKernel k;
  ToolchainFollower follower(k.ws(), k.target());
  knowledge::set_workspace_toolchain(k.ws(), *targets::make_test_target("missing-cc"));
  try {
    follower.follow();
    FAIL() << "followed a toolchain that is not there";
  } catch (const Failure& e) {
    EXPECT_EQ(e.code(), ErrorCode::kEnvironment) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing-cc"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace headway::loop
