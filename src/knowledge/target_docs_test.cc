// The cpu target's built-in docs and their cited summary, as onboarding writes and checks them.
#include "knowledge/target_docs.h"

#include <gtest/gtest.h>

#include "common/embedded.h"
#include "knowledge/citation_markup.h"
#include "knowledge/citations.h"
#include "knowledge/corpus.h"
#include "knowledge/test_files.h"
#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"

namespace headway::knowledge {
namespace {

namespace fs = std::filesystem;

// Fails with every citation that no longer matches when docs/KERNELS.md or
// kernels/designs/README.md moved under the cpu target's cited summary: fix the summary's line
// numbers (or the claim) so it says what the docs say.
TEST(TargetDocsTest, TheBuiltInSummaryIsSupportedByTheBuiltInDocs) {
  store::TestTempDir tmp;
  auto dir = write_target_docs(targets::test_cpu_docs(), tmp.path() / "docs");
  ASSERT_TRUE(dir.ok()) << dir.error().message;
  auto corpus = read_corpus(dir.value());
  ASSERT_TRUE(corpus.ok()) << corpus.error().message;
  const SummaryMarkup markup = parse_summary(targets::test_cpu_docs().summary);
  EXPECT_TRUE(markup.malformed.empty());
  EXPECT_GE(markup.claims.size(), 15u);
  const CitationReport report = check_citations(markup, corpus.value());
  for (const CitationResult& c : report.citations) {
    EXPECT_EQ(c.verdict, TextVerdict::kSupportedByText)
        << targets::test_cpu_docs().summary_path << ":" << c.line << " " << c.cite << ": " << c.why;
  }
  // Every built-in doc is cited at least once.
  for (const auto& file : targets::test_cpu_docs().files) {
    const std::string& path = file.path;
    bool cited = false;
    for (const Claim& claim : markup.claims) {
      for (const Citation& cite : claim.citations) cited |= cite.path == path;
    }
    EXPECT_TRUE(cited) << path;
  }
}

TEST(TargetDocsTest, WritesExactlyTheDocsAndReplacesAnOlderCopy) {
  store::TestTempDir tmp;
  const fs::path dir = tmp.path() / "docs";
  write_test_file(dir, "stale.md", "an old file\n");
  write_test_file(dir, "docs/KERNELS.md", "an old version\n");
  ASSERT_TRUE(write_target_docs(targets::test_cpu_docs(), dir).ok());
  EXPECT_FALSE(fs::exists(dir / "stale.md"));
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, static_cast<int>(targets::test_cpu_docs().files.size()));
  for (const auto& file : targets::test_cpu_docs().files) {
    EXPECT_EQ(read_test_file(dir / file.path), file.text) << file.path;
  }
  // No temporary folders are left beside it.
  int siblings = 0;
  for (const auto& entry : fs::directory_iterator(tmp.path())) siblings += entry.path() != dir;
  EXPECT_EQ(siblings, 0);
}

TEST(TargetDocsTest, AFolderThatCannotBeWrittenIsAnErrorAndTheOldCopyStays) {
  store::TestTempDir tmp;
  write_test_file(tmp.path(), "not-a-folder", "x");
  auto r = write_target_docs(targets::test_cpu_docs(), tmp.path() / "not-a-folder" / "docs");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not-a-folder"), std::string::npos) << r.error().message;
  EXPECT_EQ(read_test_file(tmp.path() / "not-a-folder"), "x");
}

}  // namespace
}  // namespace headway::knowledge
