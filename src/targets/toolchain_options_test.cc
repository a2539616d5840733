#include "targets/toolchain_options.h"

#include <gtest/gtest.h>

namespace headway::targets {
namespace {

using Options = std::vector<ToolchainOption>;

TEST(ToolchainOptions, EachOptionAfterTheNameInOrder) {
  EXPECT_EQ(toolchain_options("sim-1"), Options{});
  EXPECT_EQ(toolchain_options("sim-1:stop-after=30"),
            (Options{{"stop-after", "30", "stop-after=30"}}));
  EXPECT_EQ(
      toolchain_options("test-1:bandwidths=50,60:truth=hidden"),
      (Options{{"bandwidths", "50,60", "bandwidths=50,60"}, {"truth", "hidden", "truth=hidden"}}));
  EXPECT_EQ(toolchain_options("x:a=b=c"), (Options{{"a", "b=c", "a=b=c"}}))
      << "the first '=' splits";
}

TEST(ToolchainOptions, MalformedOptionsAreKeptForTheTargetToRefuse) {
  EXPECT_EQ(toolchain_options("x:flag"), (Options{{"flag", "", "flag"}}));
  EXPECT_EQ(toolchain_options("x::a=1:"), (Options{{"", "", ""}, {"a", "1", "a=1"}, {"", "", ""}}));
  EXPECT_EQ(toolchain_options("x:=v"), (Options{{"", "v", "=v"}}));
}

TEST(ToolchainOptions, ACountIsAWholeNumberOfAtLeastOne) {
  EXPECT_EQ(count_value("30"), 30);
  EXPECT_EQ(count_value("1"), 1);
  for (const char* bad : {"0", "-2", "", "3x", "2.5", " 4", "99999999999999999999"})
    EXPECT_EQ(count_value(bad), std::nullopt) << bad;
}

TEST(ToolchainOptions, ASimulatedToolchainIsFoundUnlessItsNameSaysMissing) {
  const ToolchainInfo found = simulated_toolchain("sim-2:stop-after=3", "sim", "sim");
  EXPECT_TRUE(found.found);
  EXPECT_EQ(found.version, "sim toolchain sim-2:stop-after=3");
  EXPECT_EQ(found.id, "sim:sim-2:stop-after=3");
  const ToolchainInfo missing = simulated_toolchain("missing-1", "loop test", "loop-test");
  EXPECT_FALSE(missing.found);
  EXPECT_EQ(missing.error, "loop test toolchain 'missing-1' not found");
  EXPECT_EQ(missing.error_code, ErrorCode::kEnvironment);
  const ToolchainInfo refused = refused_toolchain("'x' is not an option");
  EXPECT_FALSE(refused.found);
  EXPECT_EQ(refused.error, "'x' is not an option");
  EXPECT_EQ(refused.error_code, ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace headway::targets
