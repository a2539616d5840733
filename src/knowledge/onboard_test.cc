// Onboarding a real workspace with given docs: the summary checked, its unsupported claims left out
// of the digest, the cheat sheet written; bad input changes nothing. (A target's built-in docs and
// summary: src/targets/cpu/cpu_onboard_test.cc.)
#include "knowledge/onboard.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "knowledge/citation_markup.h"
#include "knowledge/docs_index.h"
#include "knowledge/target_docs.h"
#include "knowledge/test_files.h"
#include "trees/tree_test_support.h"

namespace headway::knowledge {
namespace {

namespace fs = std::filesystem;

OnboardOptions offline() {
  OnboardOptions options;
  options.measure = false;
  return options;
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
