#include "knowledge/citations.h"

#include <gtest/gtest.h>

#include "knowledge/citation_json.h"
#include "knowledge/test_files.h"
#include "store/test_temp_dir.h"

namespace headway::knowledge {
namespace {

namespace fs = std::filesystem;

class CitationCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    docs_ = tmp_.path() / "docs";
    write_test_file(docs_, "memory.md",
                    "# Memory\n"
                    "\n"
                    "The tile buffer holds 448 bytes.\n"
                    "A DMA transfer moves 64 bytes per cycle.\n"
                    "Use `dma_copy` to start a transfer.\n"
                    "The mask is 0x7f and epsilon is 1e-6.\n");
    write_test_file(
        docs_, "ops.html",
        "<h1>Ops</h1><p>The vector unit has\n32 lanes.</p><p>Peak is 1.5&nbsp;GHz.</p>");
    write_test_file(docs_, "old.md", "Legacy limit is 9 queues.\n");
    write_test_file(docs_, "spec.pdf", "%PDF-1.4\n");
  }
  CitationReport check(const std::string& summary) {
    auto corpus = read_corpus(docs_);
    if (!corpus) throw std::runtime_error(corpus.error().message);
    return check_citations(parse_summary(summary), corpus.value());
  }
  store::TestTempDir tmp_;
  fs::path docs_;
};

TEST_F(CitationCheck, EveryVerdictForItsReason) {
  const std::string summary =
      "# Summary\n"
      "\n"
      "- The tile buffer holds 448 bytes [memory.md:L3 \"holds 448 bytes\"].\n"
      "- DMA moves 64 bytes per cycle [memory.md:L3].\n"
      "- The tile buffer holds 448 bytes [memory.md:L4 \"holds 448 bytes\"].\n"
      "- The tile holds 448 bytes [memory.md:L3 \"holds 512 bytes\"]\n"
      "- Past the end [memory.md:L6-L9]\n"
      "- Backwards [memory.md:L5-L4]\n"
      "- Line zero [memory.md:L0]\n"
      "- Start with `dma_copy` [memory.md:L5]\n"
      "- Start with `dma_start` [memory.md:L5]\n"
      "- Malformed [memory.md:L\n"
      "- The vector unit has 32 lanes at 1.5 GHz [ops.html:L2-L3]\n"
      "- Mask 127, epsilon 0.000001 [memory.md:L6]\n"
      "- Not a doc file [spec.pdf:L1]\n";
  const CitationReport r = check(summary);
  ASSERT_EQ(r.citations.size(), 13u);
  const auto expect = [&](size_t i, int64_t line, TextVerdict verdict, const std::string& why) {
    SCOPED_TRACE(r.citations[i].cite);
    EXPECT_EQ(r.citations[i].line, line);
    EXPECT_EQ(to_string(r.citations[i].verdict), to_string(verdict));
    EXPECT_EQ(r.citations[i].why, why);
  };
  expect(0, 3, TextVerdict::kSupportedByText, "");
  expect(1, 4, TextVerdict::kNumberMismatch, "64 not in the cited lines");
  expect(2, 5, TextVerdict::kQuoteNotFound,
         "\"holds 448 bytes\" is not in memory.md:L4 (it is at L3)");
  expect(3, 6, TextVerdict::kQuoteNotFound, "\"holds 512 bytes\" is not in memory.md:L3");
  expect(4, 7, TextVerdict::kBroken, "memory.md has 6 lines; L9 is past its end");
  expect(5, 8, TextVerdict::kBroken, "the range ends (L4) before it starts (L5)");
  expect(6, 9, TextVerdict::kBroken, "line numbers start at L1");
  expect(7, 10, TextVerdict::kSupportedByText, "");
  expect(8, 11, TextVerdict::kIdentifierNotFound, "`dma_start` not in the cited lines");
  expect(9, 12, TextVerdict::kMalformed, "unclosed citation: no ']' on its line");
  expect(10, 13, TextVerdict::kSupportedByText, "");
  expect(11, 14, TextVerdict::kSupportedByText, "");
  expect(12, 15, TextVerdict::kBroken,
         "spec.pdf is not in the corpus: unsupported extension '.pdf'");
  EXPECT_EQ(r.citations[1].claim, "DMA moves 64 bytes per cycle");
  EXPECT_EQ(r.totals_line(),
            "13 citations: 4 supported-by-text, 1 number-mismatch, 1 identifier-not-found, 2 "
            "quote-not-found, 4 broken, 1 malformed");
  EXPECT_FALSE(r.all_supported());
}

TEST_F(CitationCheck, FileThatDisappearedIsBroken) {
  const std::string summary = "- Legacy limit is 9 queues [old.md:L1]\n";
  const CitationReport before = check(summary);
  ASSERT_EQ(before.citations.size(), 1u);
  EXPECT_EQ(before.citations[0].verdict, TextVerdict::kSupportedByText);
  EXPECT_TRUE(before.all_supported());
  EXPECT_EQ(before.totals_line(), "1 citation: 1 supported-by-text");
  fs::remove(docs_ / "old.md");
  const CitationReport after = check(summary);
  ASSERT_EQ(after.citations.size(), 1u);
  EXPECT_EQ(after.citations[0].verdict, TextVerdict::kBroken);
  EXPECT_NE(after.citations[0].why.find("no file old.md"), std::string::npos)
      << after.citations[0].why;
}

TEST_F(CitationCheck, GroupSupportsItsClaimTogether) {
  const CitationReport together =
      check("The tile holds 448 bytes and DMA moves 64 [memory.md:L3] [memory.md:L4].\n");
  ASSERT_EQ(together.citations.size(), 2u);
  EXPECT_TRUE(together.all_supported());
  const CitationReport alone = check("The tile holds 448 bytes and DMA moves 64 [memory.md:L3].\n");
  ASSERT_EQ(alone.citations.size(), 1u);
  EXPECT_EQ(alone.citations[0].verdict, TextVerdict::kNumberMismatch);
}

TEST_F(CitationCheck, AMissingNumberIsANumberMismatchEvenWithAMissingIdentifier) {
  const CitationReport both = check("- `dma_start` moves 65 bytes [memory.md:L4]\n");
  ASSERT_EQ(both.citations.size(), 1u);
  EXPECT_EQ(both.citations[0].verdict, TextVerdict::kNumberMismatch);
  EXPECT_EQ(both.citations[0].why, "65 not in the cited lines (nor `dma_start`)");
  const CitationReport identifier = check("- `dma_start` moves 64 bytes [memory.md:L4]\n");
  ASSERT_EQ(identifier.citations.size(), 1u);
  EXPECT_EQ(identifier.citations[0].verdict, TextVerdict::kIdentifierNotFound);
  EXPECT_EQ(identifier.citations[0].why, "`dma_start` not in the cited lines");
}

TEST_F(CitationCheck, QuoteSpansLinesAfterCollapsingWhitespace) {
  const CitationReport r = check(
      "- Lanes [ops.html:L2 \"has   32 lanes\"] and [memory.md:L3-L4 \"448 bytes. A DMA\"]\n");
  ASSERT_EQ(r.citations.size(), 2u);
  EXPECT_EQ(r.citations[0].verdict, TextVerdict::kSupportedByText) << r.citations[0].why;
  EXPECT_EQ(r.citations[1].verdict, TextVerdict::kSupportedByText) << r.citations[1].why;
  const CitationReport wrong_case = check("- Lanes [ops.html:L2 \"Has 32 lanes\"]\n");
  EXPECT_EQ(wrong_case.citations.at(0).verdict, TextVerdict::kQuoteNotFound);
}

TEST_F(CitationCheck, NoCitations) {
  const CitationReport r = check("# Notes\n\nNothing cited here, 448 bytes.\n");
  EXPECT_TRUE(r.citations.empty());
  EXPECT_FALSE(r.all_supported());
  EXPECT_EQ(r.totals_line(), "no citations");
}

TEST_F(CitationCheck, CitedLinesJoinTheRange) {
  auto corpus = read_corpus(docs_);
  ASSERT_TRUE(corpus.ok());
  Citation c;
  c.path = "memory.md";
  c.first = 3;
  c.last = 4;
  EXPECT_EQ(cited_lines(*corpus.value().find("memory.md"), c),
            "The tile buffer holds 448 bytes.\nA DMA transfer moves 64 bytes per cycle.");
  EXPECT_EQ(broken_reason(corpus.value(), c), "");
  c.path = "../docs/memory.md";
  EXPECT_NE(broken_reason(corpus.value(), c), "");
}

// Found by fuzz/citations_fuzz.cc: a malformed citation ending in a multi-byte character got a
// why holding half of it, and citations_json(...).dump() threw. Input kept in
// fuzz/regressions/citations/.
TEST_F(CitationCheck, JsonOfAMalformedCitationWithUnicodeCanBeWritten) {
  const CitationReport report = check("- Odd [memory.md:L1\xD0\x92]\n");
  ASSERT_EQ(report.citations.size(), 1u);
  EXPECT_EQ(report.citations[0].verdict, TextVerdict::kMalformed);
  const std::string dumped = citations_json(report).dump();
  const auto parsed = nlohmann::json::parse(dumped);
  ASSERT_TRUE(parsed.is_array()) << dumped;
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0].value("verdict", ""), "malformed") << dumped;
}

}  // namespace
}  // namespace headway::knowledge
