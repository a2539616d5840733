#include "knowledge/citation_markup.h"

#include <gtest/gtest.h>

namespace headway::knowledge {
namespace {

TEST(CitationMarkup, ThreeForms) {
  const SummaryMarkup s = parse_summary(
      "- One line [a.md:L12]\n"
      "- A range [guide/b.html:L3-L18]\n"
      "- Quoted [a.md:L4-L5 \"the tile holds\"]\n");
  ASSERT_EQ(s.claims.size(), 3u);
  EXPECT_TRUE(s.malformed.empty());
  const Citation& one = s.claims[0].citations.at(0);
  EXPECT_EQ(one.path, "a.md");
  EXPECT_EQ(one.first, 12);
  EXPECT_EQ(one.last, 12);
  EXPECT_FALSE(one.quote);
  EXPECT_EQ(one.line, 1);
  EXPECT_EQ(one.column, 12);
  EXPECT_EQ(one.text, "[a.md:L12]");
  const Citation& range = s.claims[1].citations.at(0);
  EXPECT_EQ(range.path, "guide/b.html");
  EXPECT_EQ(range.first, 3);
  EXPECT_EQ(range.last, 18);
  const Citation& quoted = s.claims[2].citations.at(0);
  EXPECT_EQ(quoted.quote, "the tile holds");
  EXPECT_EQ(quoted.line, 3);
  EXPECT_EQ(quoted.text, "[a.md:L4-L5 \"the tile holds\"]");
  EXPECT_EQ(s.claims[1].text, "A range");
  EXPECT_EQ(s.citation_count(), 3u);
}

TEST(CitationMarkup, ClaimsAreListItemsOrSentences) {
  const SummaryMarkup s = parse_summary(
      "# Memory [a.md:L1]\n"
      "\n"
      "Intro without a cite. The tile is 448 bytes [a.md:L2]. It moves 64 bytes\n"
      "per cycle [a.md:L3][b.md:L4], [c.md:L5].\n"
      "\n"
      "1. First step uses `dma_copy` and\n"
      "   continues here. Then 32 lanes [a.md:L9]\n"
      "* [a.md:L10]\n"
      "> Quoted 7 [a.md:L11]\n"
      "| tile | 448 [a.md:L12] |\n"
      "\n"
      "First sentence, no cite.\n"
      "Second sentence has 5 [a.md:L13].\n");
  ASSERT_EQ(s.claims.size(), 8u);
  EXPECT_EQ(s.claims[0].text, "Memory");
  EXPECT_EQ(s.claims[1].text, "The tile is 448 bytes");
  EXPECT_EQ(s.claims[1].line, 3);
  EXPECT_EQ(s.claims[2].text, "It moves 64 bytes per cycle");
  ASSERT_EQ(s.claims[2].citations.size(), 3u)
      << "citations separated by nothing, ',' or spaces form one group";
  EXPECT_EQ(s.claims[2].citations[2].path, "c.md");
  EXPECT_EQ(s.claims[2].line, 3);
  EXPECT_EQ(s.claims[2].citations[0].line, 4);
  EXPECT_EQ(s.claims[3].text, "First step uses `dma_copy` and continues here. Then 32 lanes")
      << "a list item is one claim, marker excluded";
  EXPECT_EQ(s.claims[3].line, 6);
  EXPECT_EQ(s.claims[4].text, "");
  EXPECT_EQ(s.claims[4].line, 8);
  EXPECT_EQ(s.claims[5].text, "Quoted 7");
  EXPECT_EQ(s.claims[6].text, "tile | 448");
  EXPECT_EQ(s.claims[7].text, "Second sentence has 5");
  EXPECT_EQ(s.claims[7].line, 13) << "the line where the claim's sentence starts";
}

TEST(CitationMarkup, NotCitations) {
  const SummaryMarkup s = parse_summary(
      "A [link](https://x.io) and [x] and [ ] and [Note: Look] and [TODO:Later] and a[i:j].\n"
      "Code `[a.md:L1]` and escaped \\[a.md:L2] are not citations.\n"
      "```\n"
      "[a.md:L3]\n"
      "[a.md:L\n"
      "```\n"
      "[guide.md](guide.md) links a file.\n");
  EXPECT_EQ(s.citation_count(), 0u);
  EXPECT_TRUE(s.malformed.empty()) << s.malformed[0].text;
}

TEST(CitationMarkup, MalformedIsReportedWithItsLineAndTheScanGoesOn) {
  const SummaryMarkup s = parse_summary(
      "- Unclosed [a.md:L12 and more text\n"
      "- No digits [a.md:L] then a good one 5 [a.md:L5]\n"
      "- Open quote [a.md:L3 \"phrase never closed]\n"
      "- Missing L [a.md:12-18]\n"
      "- Bad range end [a.md:L12-18]\n"
      "- Empty quote [a.md:L1 \"\"]\n"
      "- Junk [a.md:L1 x]\n"
      "- Fine at the end [b.md:L2]\n");
  ASSERT_EQ(s.malformed.size(), 7u);
  const std::vector<std::pair<int64_t, std::string>> expected = {
      {1, "unclosed citation: no ']' on its line"},
      {2, "'L' without a line number"},
      {3, "quote without its closing '\"'"},
      {4, "expected 'L' and a line number after ':' (write [path:L12])"},
      {5, "expected 'L' after '-' (write L12-L18)"},
      {6, "empty quoted phrase"},
      {7, "unexpected 'x' in a citation (expected ']' or a quoted phrase)"},
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(s.malformed[i].line, expected[i].first) << i;
    EXPECT_EQ(s.malformed[i].why, expected[i].second) << i;
  }
  EXPECT_EQ(s.malformed[0].text, "[a.md:L12 and more text");
  EXPECT_EQ(s.malformed[1].text, "[a.md:L]");
  ASSERT_EQ(s.claims.size(), 2u);
  EXPECT_EQ(s.claims[0].text, "then a good one 5")
      << "a malformed attempt ends the claim before it";
  EXPECT_EQ(s.claims[0].citations[0].line, 2);
  EXPECT_EQ(s.claims[1].citations[0].path, "b.md");
  EXPECT_EQ(s.claims[1].citations[0].line, 8);
}

// Found by fuzz/citation_markup_fuzz.cc: the message quoted one byte of a multi-byte character,
// so the why of a UTF-8 summary was not UTF-8 (and --json threw). Input kept in
// fuzz/regressions/citation_markup/.
TEST(CitationMarkup, UnexpectedCharacterIsQuotedWhole) {
  const SummaryMarkup s = parse_summary(
      "- BOM [.:L1\xEF\xBB\xBF]\n"
      "- Accent [a.md:L2\xC3\xA9]\n"
      "- Bad byte [a.md:L3\x80]\n"
      "- Tab [a.md:L4\x01]\n");
  ASSERT_EQ(s.malformed.size(), 4u);
  const char* tail = "' in a citation (expected ']' or a quoted phrase)";
  EXPECT_EQ(s.malformed[0].why, std::string("unexpected '\xEF\xBB\xBF") + tail);
  EXPECT_EQ(s.malformed[1].why, std::string("unexpected '\xC3\xA9") + tail);
  EXPECT_EQ(s.malformed[2].why, std::string("unexpected '\\x80") + tail);
  EXPECT_EQ(s.malformed[3].why, std::string("unexpected '\\x01") + tail);
}

TEST(CitationMarkup, NonDocExtensionWithLIsStillACitation) {
  const SummaryMarkup s = parse_summary("Spec [spec/chip.pdf:L4]\n");
  ASSERT_EQ(s.citation_count(), 1u);
  EXPECT_EQ(s.claims[0].citations[0].path, "spec/chip.pdf");
}

TEST(CitationMarkup, EmptySummary) {
  EXPECT_EQ(parse_summary("").citation_count(), 0u);
  EXPECT_EQ(parse_summary("# Title\n\nNo citations here.\n").citation_count(), 0u);
}

}  // namespace
}  // namespace headway::knowledge
