#include "knowledge/citation_moves.h"

#include <gtest/gtest.h>

#include <map>

#include "knowledge/text_lines.h"
#include "store/sha256.h"

namespace headway::knowledge {
namespace {

using Lines = std::vector<std::string>;

// Manifests whose artifacts live in a map, as a workspace's artifact store holds them.
class Texts {
 public:
  CorpusManifestEntry entry(const std::string& path, const std::string& text) {
    const std::string hash = store::sha256_hex(text);
    texts_[hash] = text;
    return {path, "html", store::sha256_hex(path + "bytes"), hash,
            static_cast<int64_t>(split_lines(text).size())};
  }
  ArtifactText reader() const {
    return [this](std::string_view hash) -> std::optional<std::string> {
      const auto it = texts_.find(std::string(hash));
      if (it == texts_.end()) return std::nullopt;
      return it->second;
    };
  }

 private:
  std::map<std::string, std::string> texts_;
};

TEST(CitationMoves, ABlockIsFoundWhereItWent) {
  const Lines old_lines = {"menu", "help", "Title", "u8 | 0 | 28-1", "u16 | 0 | 216-1", "end"};
  const Lines new_lines = {"Title", "u8 | 0 | 28-1", "u16 | 0 | 216-1", "end"};
  int64_t places = 0;
  EXPECT_EQ(find_moved_block(old_lines, new_lines, 4, 5, &places), 2);
  EXPECT_EQ(places, 1);
  EXPECT_EQ(find_moved_block(old_lines, new_lines, 1, 1, &places), std::nullopt);
  EXPECT_EQ(places, 0);
  EXPECT_THROW(find_moved_block(old_lines, new_lines, 6, 7, &places), std::logic_error);
}

TEST(CitationMoves, ARepeatedBlockGoesWhereTheTextAroundItWent) {
  // "}" occurs three times in each; the unique lines around the second say it moved up by 2.
  const Lines old_lines = {"chrome", "chrome 2", "fn a() {", "}", "fn b() {", "}", "fn c() {", "}"};
  const Lines new_lines = {"fn a() {", "}", "fn b() {", "}", "fn c() {", "}"};
  int64_t places = 0;
  EXPECT_EQ(find_moved_block(old_lines, new_lines, 6, 6, &places), 4);
  EXPECT_EQ(places, 3);
  EXPECT_EQ(find_moved_block(old_lines, new_lines, 8, 8, &places), 6);
  // With no line unique to both texts, the nearest place to the old line number.
  EXPECT_EQ(find_moved_block({"x", "x", "}"}, {"}", "x", "}"}, 3, 3, &places), 3);
  EXPECT_EQ(places, 2);
}

TEST(CitationMoves, EveryCitationOfASummaryIsFollowed) {
  Texts texts;
  const std::string page = "Numeric types\nu8 | 0 | 2^8-1\ni64 | -(2^63) | 2^63-1\n";
  const std::string chrome = "Keyboard shortcuts\nPress ? to show this help\nAuto\nLight\n";
  CorpusManifest old;
  old.files = {texts.entry("num.html", chrome + page), texts.entry("same.md", "a\nb\n"),
               texts.entry("edit.md", "one\ntwo\nthree\n"), texts.entry("gone.md", "x\n"),
               texts.entry("tail.md", "k\nl\n")};
  CorpusManifest now;
  now.files = {texts.entry("num.html", page), texts.entry("same.md", "a\nb\n"),
               texts.entry("edit.md", "one\n2\nthree\n"), texts.entry("tail.md", "k\nl\nm\n")};
  const SummaryMarkup summary = parse_summary(
      "- Range [num.html:L6 \"u8 | 0\"] and [num.html:L6-L7].\n"
      "- Same [same.md:L2]\n"
      "- Edited [edit.md:L2] and not [edit.md:L3]\n"
      "- Gone [gone.md:L1]\n"
      "- Kept [tail.md:L2]\n"
      "- Never [num.html:L99] [new.md:L1]\n");
  const auto tracked = track_citations(summary, old, now, texts.reader());
  ASSERT_EQ(tracked.size(), 9u);
  const auto expect = [&](size_t i, const std::string& cite, CitedLinesMove move) {
    SCOPED_TRACE(cite);
    EXPECT_EQ(tracked[i].cite, cite);
    EXPECT_EQ(to_string(tracked[i].move), to_string(move));
  };
  expect(0, "[num.html:L6 \"u8 | 0\"]", CitedLinesMove::kMoved);
  EXPECT_EQ(tracked[0].now, "[num.html:L2 \"u8 | 0\"]");
  EXPECT_EQ(tracked[0].first, 2);
  EXPECT_EQ(tracked[0].places, 1);
  expect(1, "[num.html:L6-L7]", CitedLinesMove::kMoved);
  EXPECT_EQ(tracked[1].now, "[num.html:L2-L3]");
  expect(2, "[same.md:L2]", CitedLinesMove::kUnchanged);
  EXPECT_EQ(tracked[2].now, "");
  expect(3, "[edit.md:L2]", CitedLinesMove::kChanged);
  expect(4, "[edit.md:L3]", CitedLinesMove::kKept);
  EXPECT_EQ(tracked[4].first, 3);
  expect(5, "[gone.md:L1]", CitedLinesMove::kRemoved);
  expect(6, "[tail.md:L2]", CitedLinesMove::kKept);
  expect(7, "[num.html:L99]", CitedLinesMove::kUnresolved);
  expect(8, "[new.md:L1]", CitedLinesMove::kUnresolved);
  EXPECT_EQ(tracked[1].line, 1);
  EXPECT_EQ(tracked[8].line, 6);
}

TEST(CitationMoves, MovedCitationsAreRewrittenWhereTheyAreWritten) {
  Texts texts;
  CorpusManifest old;
  old.files = {texts.entry("a.md", "x\ny\nz\n"), texts.entry("b.md", "p\nq\n")};
  CorpusManifest now;
  now.files = {texts.entry("a.md", "new\nx\ny\nz\n"), texts.entry("b.md", "p\nQ\n")};
  const std::string summary =
      "\xEF\xBB\xBF# S\n"
      "- y and z [a.md:L2] [a.md:L3 \"z\"], again [a.md:L2]\n"
      "- q [b.md:L2] and `[a.md:L2]` in code\r\n"
      "- x [a.md:L1-L2]\n";
  const auto tracked = track_citations(parse_summary(summary), old, now, texts.reader());
  int64_t updated = 0;
  EXPECT_EQ(apply_moves(summary, tracked, &updated),
            "\xEF\xBB\xBF# S\n"
            "- y and z [a.md:L3] [a.md:L4 \"z\"], again [a.md:L3]\n"
            "- q [b.md:L2] and `[a.md:L2]` in code\r\n"
            "- x [a.md:L2-L3]\n");
  EXPECT_EQ(updated, 4);
  EXPECT_EQ(apply_moves("no citations\n", tracked, &updated), "no citations\n");
  EXPECT_EQ(updated, 0);
}

TEST(CitationMoves, RewrittenCitationsKeepTheirQuote) {
  Citation c;
  c.path = "a/b.html";
  c.first = 3;
  c.last = 3;
  EXPECT_EQ(rewrite_citation(c, 7, 7), "[a/b.html:L7]");
  c.quote = "2^8-1";
  EXPECT_EQ(rewrite_citation(c, 7, 9), "[a/b.html:L7-L9 \"2^8-1\"]");
}

}  // namespace
}  // namespace headway::knowledge
