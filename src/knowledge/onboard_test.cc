// Onboarding a real workspace: facts stored, rules mined from its tree, the cheat sheet written.
#include "knowledge/onboard.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "search/tree_test_support.h"

namespace headway::knowledge {
namespace {

TEST(OnboardTest, MinesRulesAndWritesTheCheatSheet) {
  search::TreeFixture f;
  const auto bad = f.add(search::NodeKind::kDesign, std::nullopt, "bad");
  ASSERT_TRUE(f.tree().set_status(bad.id, search::NodeStatus::kBuildFailed, "does not build",
                                  {{"diagnostics", "/x/c.cc:1:2: error: 'zz' was not declared in this scope"},
                                   {"toolchain", "tc-test"}}).ok());
  store_fact(f.ws(), {kReadBandwidth, current_cpu_toolchain_id(f.ws()), 9.5, "GB/s", 1.0, "test", ""});
  OnboardOptions options;
  options.measure = false;
  auto report = onboard(f.ws(), options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->kernels, 1);
  EXPECT_EQ(report->mined.new_rules, 1);
  EXPECT_EQ(report->rules, 1);
  EXPECT_EQ(report->facts, 1);
  ASSERT_EQ(report->cheatsheet, f.dir() / ".headway/knowledge/cheatsheet.md");
  std::ifstream in(report->cheatsheet);
  std::stringstream text;
  text << in.rdbuf();
  const std::string md = text.str();
  EXPECT_NE(md.find("| read_bandwidth | 9.5000 | GB/s | 1.00% |"), std::string::npos) << md;
  EXPECT_NE(md.find("signature: `error: '<id>' was not declared in this scope`"), std::string::npos) << md;
  EXPECT_NE(md.find("verified for `tc-test`"), std::string::npos) << md;
  EXPECT_NE(md.find("summary: no agent configured (offline)"), std::string::npos) << md;

  auto again = onboard(f.ws(), options);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->mined.new_rules, 0);
  EXPECT_EQ(again->rules, 1);
}

}  // namespace
}  // namespace headway::knowledge
