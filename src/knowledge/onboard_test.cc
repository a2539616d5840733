// Onboarding a real workspace: docs indexed, the summary checked, facts stored, rules mined from
// its tree, the cheat sheet written; bad input changes nothing.
#include "knowledge/onboard.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "knowledge/citation_markup.h"
#include "knowledge/docs_index.h"
#include "knowledge/target_docs.h"
#include "knowledge/test_files.h"
#include "targets/registry/test_targets.h"
#include "trees/tree_test_support.h"

namespace headway::knowledge {
namespace {

namespace fs = std::filesystem;

OnboardOptions offline() {
  OnboardOptions options;
  options.measure = false;
  return options;
}

TEST(OnboardTest, MinesRulesChecksTheBuiltInSummaryAndWritesTheCheatSheet) {
  trees::TreeFixture f;
  const auto bad = f.add(trees::NodeKind::kDesign, std::nullopt, "bad");
  ASSERT_TRUE(
      f.tree()
          .set_status(bad.id, trees::NodeStatus::kBuildFailed, "does not build",
                      {{"diagnostics", "/x/c.cc:1:2: error: 'zz' was not declared in this scope"},
                       {"toolchain", "tc-test"}})
          .ok());
  store_fact(f.ws(), {kReadBandwidth, current_toolchain_id(f.ws()), 9.5, "GB/s", 1.0, "test", ""});
  auto report = onboard(f.ws(), offline());
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

  auto again = onboard(f.ws(), offline());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->mined.new_rules, 0);
  EXPECT_EQ(again->rules, 1);
  EXPECT_EQ(again->docs_change, "0 added, 0 removed, 0 changed since the previous index");
}

TEST(OnboardTest, CheatSheetSaysWhichInstructionSetsCandidatesMayUse) {
  trees::TreeFixture f;
  const std::string tc = current_toolchain_id(f.ws());
  store_fact(f.ws(), {targets::isa_fact_name("avx2"), tc, 1.0, "bool", std::nullopt, "test", ""});
  store_fact(f.ws(),
             {targets::isa_fact_name("avx512bw"), tc, 1.0, "bool", std::nullopt, "test", ""});
  store_fact(f.ws(),
             {targets::isa_fact_name("amx-tile"), tc, 0.0, "bool", std::nullopt, "test", ""});
  store_fact(f.ws(), {targets::isa_fact_name("avx512fp16"), "another-toolchain", 1.0, "bool",
                      std::nullopt, "test", ""});
  const std::string md = render_cheatsheet(f.ws(), tc, "");
  EXPECT_NE(md.find("| isa.avx512bw | 1.0000 | bool |"), std::string::npos) << md;
  EXPECT_NE(md.find("(this chip, current toolchain): avx2 avx512bw  \nNot available: amx-tile\n"),
            std::string::npos)
      << md;
}

TEST(OnboardTest, GivenDocsAndSummaryTheDigestKeepsOnlySupportedClaims) {
  trees::TreeFixture f;
  store::TestTempDir tmp;
  const fs::path docs = tmp.path() / "docs";
  write_test_file(docs, "memory.md",
                  "# Memory\nThe tile holds 448 bytes.\nDMA moves 64 bytes per cycle.\n");
  const fs::path summary = write_test_file(tmp.path(), "summary.md",
                                           "- A tile holds 448 bytes [memory.md:L2].\n"
                                           "- DMA moves 64 bytes per cycle [memory.md:L2].\n"
                                           "- Broken [gone.md:L1].\n"
                                           "- Unfinished [memory.md:L\n");
  OnboardOptions options = offline();
  options.docs = docs;
  options.summary = summary;
  auto report = onboard(f.ws(), options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_FALSE(report->builtin_docs);
  EXPECT_EQ(report->summary_from, summary.string());
  EXPECT_EQ(report->citations.totals_line(),
            "4 citations: 1 supported-by-text, 1 number-mismatch, 1 broken, 1 malformed");
  EXPECT_EQ(report->claims_supported, 1);
  EXPECT_EQ(report->claims_left_out, 3);
  const std::string md = read_test_file(report->cheatsheet);
  EXPECT_NE(md.find("- A tile holds 448 bytes [memory.md:L2]\n"), std::string::npos) << md;
  EXPECT_NE(md.find("- line 2: DMA moves 64 bytes per cycle ([memory.md:L2] number-mismatch: "),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- line 3: Broken ([gone.md:L1] broken: "), std::string::npos) << md;
  EXPECT_NE(md.find("- line 4: malformed citation"), std::string::npos) << md;
  const auto verdicts =
      nlohmann::json::parse(read_test_file(f.dir() / ".headway/knowledge/citations.json"));
  EXPECT_EQ(verdicts["totals"]["broken"], 1);
  EXPECT_EQ(verdicts["citations"][1]["line"], 2);
  EXPECT_EQ(verdicts["citations"][1]["verdict"], "number-mismatch");
  auto indexed = latest_indexing(f.ws());
  ASSERT_TRUE(indexed.ok() && indexed.value());
  EXPECT_EQ(indexed.value()->manifest.files.size(), 1u);
}

TEST(OnboardTest, GivenDocsWithoutASummarySaysSoAndGoesOn) {
  trees::TreeFixture f;
  store::TestTempDir tmp;
  write_test_file(tmp.path(), "a.md", "one line\n");
  OnboardOptions options = offline();
  options.docs = tmp.path();
  auto report = onboard(f.ws(), options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(report->summary_from.empty());
  EXPECT_TRUE(report->citations.citations.empty());
  EXPECT_NE(read_test_file(report->cheatsheet)
                .find("summary: no agent configured (offline); no summary was checked"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(f.dir() / ".headway/knowledge/citations.json"));
}

TEST(OnboardTest, BadInputIsAnErrorThatWritesNothing) {
  trees::TreeFixture f;
  store::TestTempDir tmp;
  const fs::path binary = write_test_file(tmp.path(), "summary.md", std::string("PK\0\3", 4));

  OnboardOptions missing_docs = offline();
  missing_docs.docs = tmp.path() / "no-such-docs";
  auto r1 = onboard(f.ws(), missing_docs);
  ASSERT_FALSE(r1.ok());
  EXPECT_NE(r1.error().message.find("no-such-docs"), std::string::npos) << r1.error().message;

  OnboardOptions binary_summary = offline();
  binary_summary.summary = binary;
  auto r2 = onboard(f.ws(), binary_summary);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("is not text"), std::string::npos) << r2.error().message;

  OnboardOptions missing_summary = offline();
  missing_summary.docs = tmp.path();
  missing_summary.summary = tmp.path() / "nope.md";
  auto r3 = onboard(f.ws(), missing_summary);
  ASSERT_FALSE(r3.ok());
  EXPECT_NE(r3.error().message.find("no such file"), std::string::npos) << r3.error().message;

  EXPECT_FALSE(fs::exists(f.dir() / ".headway/knowledge")) << "bad input wrote into the workspace";
  auto indexed = latest_indexing(f.ws());
  ASSERT_TRUE(indexed.ok());
  EXPECT_FALSE(indexed.value().has_value());
  EXPECT_TRUE(list_facts(f.ws()).empty());
}

}  // namespace
}  // namespace headway::knowledge
