// The screen stage on the sim target: each failure lands on its node status, in-process.
#include "loop/screen.h"

#include <gtest/gtest.h>

#include "targets/registry/registry.h"

namespace headway::loop {
namespace {

using trees::NodeStatus;

ScreenResult screen(const std::string& source, const LintHook& lint = {}) {
  static const auto sim = targets::make_target("sim");
  return screen_candidate(*find_kernel("qkv"), source, *sim, {}, lint);
}

// The loop's tests (here, sim_kernel_test_support.h, optimizer_sim_test.cc, ...) write candidates
// in the sim target's candidate language and pass its toolchain specs to make_target: both are
// the sim target's published interface, its docs through Target::docs(), not its internals.
TEST(Screen, TheLoopsTestsSpeakTheSimTargetsDocumentedLanguage) {
  const auto sim = targets::make_target("sim");
  std::string docs;
  for (const auto& file : sim->docs().files) docs += file.text;
  for (const char* word : {"`sim-x F`", "`sim-best P_NAME v PENALTY`", "`sim-build-error",
                           "`sim-wrong`", "`sim-crash`", "`sim-hang`", "`sim-cheat`",
                           "`when P_NAME=v`", "`:stop-after=N`", "`sim-1`", "`missing`"}) {
    EXPECT_NE(docs.find(word), std::string::npos) << word;
  }
}

TEST(Screen, ACorrectCandidatePassesWithItsArtifact) {
  const ScreenResult r = screen("sim-x 0.5\n");
  EXPECT_TRUE(r.passed) << r.reason;
  EXPECT_FALSE(r.artifact.id.empty());
  EXPECT_EQ(r.evidence["toolchain"], "sim:sim-1");
}

TEST(Screen, FailuresMapToNodeStatuses) {
  EXPECT_EQ(screen("sim-build-error 'x' was not declared in this scope\n").status,
            NodeStatus::kBuildFailed);
  EXPECT_EQ(screen("sim-wrong\n").status, NodeStatus::kIncorrect);
  EXPECT_EQ(screen("sim-crash\n").status, NodeStatus::kCrashed);
  EXPECT_EQ(screen("sim-hang\n").status, NodeStatus::kTimedOut);
  const ScreenResult build = screen("sim-build-error 'x' was not declared in this scope\n");
  EXPECT_FALSE(build.passed);
  EXPECT_NE(build.evidence["diagnostics"].get<std::string>().find("error: 'x'"), std::string::npos);
  EXPECT_EQ(build.reason, "does not build with sim toolchain sim-1");
}

TEST(Screen, LintRejectsBeforeBuilding) {
  const ScreenResult r =
      screen("sim-x 0.5\n", [](const std::string&) { return std::optional<std::string>("no"); });
  EXPECT_EQ(r.status, NodeStatus::kLintRejected);
  EXPECT_EQ(r.reason, "no");
}

}  // namespace
}  // namespace headway::loop
