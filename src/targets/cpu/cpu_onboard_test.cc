// Onboarding a workspace on the cpu target (knowledge/onboard.h through the Target interface):
// its built-in docs indexed, its cited summary checked and every claim supported, the stored facts
// and the rules mined from the tree in the cheat sheet.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "knowledge/citation_markup.h"
#include "knowledge/facts.h"
#include "knowledge/onboard.h"
#include "knowledge/target_docs.h"
#include "knowledge/test_files.h"
#include "targets/registry/test_targets.h"
#include "trees/tree_test_support.h"

namespace headway::knowledge {
namespace {

TEST(CpuOnboard, MinesRulesChecksTheBuiltInSummaryAndWritesTheCheatSheet) {
  trees::TreeFixture f;
  const auto bad = f.add(trees::NodeKind::kDesign, std::nullopt, "bad");
  ASSERT_TRUE(
      f.tree()
          .set_status(bad.id, trees::NodeStatus::kBuildFailed, "does not build",
                      {{"diagnostics", "/x/c.cc:1:2: error: 'zz' was not declared in this scope"},
                       {"toolchain", "tc-test"}})
          .ok());
  store_fact(f.ws(), {kReadBandwidth, current_toolchain_id(f.ws()), 9.5, "GB/s", 1.0, "test", ""});
  OnboardOptions offline;
  offline.measure = false;  // the stored facts stay
  auto report = onboard(f.ws(), offline);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->kernels, 1);
  EXPECT_EQ(report->mined.new_rules, 1);
  EXPECT_EQ(report->rules, 1);
  EXPECT_EQ(report->facts, 1);
  EXPECT_TRUE(report->builtin_docs);
  EXPECT_EQ(report->docs_files, static_cast<int>(targets::test_cpu_docs().files.size()));
  EXPECT_EQ(report->docs_change, "first index");
  const size_t cites = parse_summary(targets::test_cpu_docs().summary).citation_count();
  EXPECT_EQ(report->citations.citations.size(), cites);
  EXPECT_TRUE(report->citations.all_supported()) << report->citations.totals_line();
  EXPECT_EQ(report->claims_left_out, 0);
  EXPECT_EQ(report->agent_passes, "agent passes: skipped (no agent configured)");
  ASSERT_EQ(report->cheatsheet, f.dir() / ".headway/knowledge/cheatsheet.md");
  const std::string md = read_test_file(report->cheatsheet);
  EXPECT_NE(md.find("| read_bandwidth | 9.5000 | GB/s | 1.00% |"), std::string::npos) << md;
  EXPECT_NE(md.find("signature: `error: '<id>' was not declared in this scope`"), std::string::npos)
      << md;
  EXPECT_NE(md.find("verified for `tc-test`"), std::string::npos) << md;
  EXPECT_NE(md.find("offline: no agent configured"), std::string::npos) << md;
  EXPECT_NE(md.find(fmt::format("### Claims supported by their cited text ({})",
                                report->claims_supported)),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("0.04/1e-2"), std::string::npos) << md;
  EXPECT_EQ(read_test_file(f.dir() / ".headway/knowledge/summary.md"),
            targets::test_cpu_docs().summary);

  auto again = onboard(f.ws(), offline);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->mined.new_rules, 0);
  EXPECT_EQ(again->rules, 1);
  EXPECT_EQ(again->docs_change, "0 added, 0 removed, 0 changed since the previous index");
}

}  // namespace
}  // namespace headway::knowledge
