// The screen stage on the loop's test target: each failure lands on its node status, in-process.
#include "loop/screen.h"

#include <gtest/gtest.h>

#include "targets/registry/test_targets.h"

namespace headway::loop {
namespace {

using trees::NodeStatus;

ScreenResult screen(const std::string& source, const LintHook& lint = {}) {
  static const auto target = targets::make_test_target();
  return screen_candidate(*builtin_kernel("qkv"), source, *target, {}, lint);
}

TEST(Screen, ACorrectCandidatePassesWithItsArtifact) {
  const ScreenResult r = screen("time: 0.5\n");
  EXPECT_TRUE(r.passed) << r.reason;
  EXPECT_FALSE(r.artifact.id.empty());
  EXPECT_EQ(r.evidence["toolchain"], "loop-test:test-1");
}

TEST(Screen, FailuresMapToNodeStatuses) {
  EXPECT_EQ(screen("build-error: 'x' was not declared in this scope\n").status,
            NodeStatus::kBuildFailed);
  EXPECT_EQ(screen("fails: wrong\n").status, NodeStatus::kIncorrect);
  EXPECT_EQ(screen("fails: crash\n").status, NodeStatus::kCrashed);
  EXPECT_EQ(screen("fails: hang\n").status, NodeStatus::kTimedOut);
  const ScreenResult build = screen("build-error: 'x' was not declared in this scope\n");
  EXPECT_FALSE(build.passed);
  EXPECT_NE(build.evidence["diagnostics"].get<std::string>().find("error: 'x'"), std::string::npos);
  EXPECT_EQ(build.reason, "does not build with loop test toolchain test-1");
}

TEST(Screen, LintRejectsBeforeBuilding) {
  const ScreenResult r =
      screen("time: 0.5\n", [](const std::string&) { return std::optional<std::string>("no"); });
  EXPECT_EQ(r.status, NodeStatus::kLintRejected);
  EXPECT_EQ(r.reason, "no");
}

}  // namespace
}  // namespace headway::loop
