// `headway rules --set-detector/--clear-detector` as a user runs them: a real binary, a real
// workspace.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_support.h"
#include "common/subprocess.h"
#include "knowledge/rules.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"

namespace headway {
namespace {

TEST(RulesVerb, SetsChecksAndClearsADetector) {
  store::TestTempDir dir;
  {
    auto ws = store::Workspace::create(dir.path()).value();
    ASSERT_TRUE(knowledge::record_build_failure(
                    ws, "qkv", 1, "int a = helper_x();",
                    "a.cc:1:9: error: 'helper_x' was not declared in this scope", "tc")
                    .ok());
  }
  const std::string w = dir.path().string();
  auto detector_of_rule_1 = [&] {
    const auto r = cli::run_headway_merged({"rules", "--json", "--workspace", w});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return nlohmann::json::parse(r.output)[0]["detector"];
  };
  EXPECT_TRUE(detector_of_rule_1().is_null());

  const auto wrong =
      cli::run_headway_merged({"rules", "--set-detector", "1", "\\bother\\b", "--workspace", w});
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find("does not match the rule's repro"), std::string::npos)
      << wrong.output;
  const auto broken =
      cli::run_headway_merged({"rules", "--set-detector", "1", "([", "--workspace", w});
  EXPECT_EQ(broken.exit_code, 2) << broken.output;
  const auto no_rule =
      cli::run_headway_merged({"rules", "--set-detector", "7", "x", "--workspace", w});
  EXPECT_EQ(no_rule.exit_code, 2) << no_rule.output;
  EXPECT_NE(no_rule.output.find("no rule 7"), std::string::npos) << no_rule.output;
  const auto not_id =
      cli::run_headway_merged({"rules", "--clear-detector", "one", "--workspace", w});
  EXPECT_EQ(not_id.exit_code, 2) << not_id.output;
  EXPECT_NE(not_id.output.find("'one' is not a rule id"), std::string::npos) << not_id.output;
  EXPECT_TRUE(detector_of_rule_1().is_null());

  const auto set =
      cli::run_headway_merged({"rules", "--set-detector", "1", "\\bhelper_x\\b", "--workspace", w});
  EXPECT_EQ(set.exit_code, 0) << set.output;
  EXPECT_EQ(detector_of_rule_1(), "\\bhelper_x\\b");
  const auto listed = cli::run_headway_merged({"rules", "--workspace", w});
  EXPECT_NE(listed.output.find("  detector: /\\bhelper_x\\b/\n"), std::string::npos)
      << listed.output;
  const auto cleared =
      cli::run_headway_merged({"rules", "--clear-detector", "1", "--workspace", w});
  EXPECT_EQ(cleared.exit_code, 0) << cleared.output;
  EXPECT_TRUE(detector_of_rule_1().is_null());
}

}  // namespace
}  // namespace headway
