#include "knowledge/text_lines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace headway::knowledge {
namespace {

using Lines = std::vector<std::string>;

TEST(CorpusTextLines, NumberingRules) {
  EXPECT_EQ(split_lines(""), Lines{});
  EXPECT_EQ(split_lines("a\nb\n"), (Lines{"a", "b"}));
  EXPECT_EQ(split_lines("a\nb"), (Lines{"a", "b"}));
  EXPECT_EQ(split_lines("a\r\n\r\nb\r\n"), (Lines{"a", "", "b"}));
  EXPECT_EQ(split_lines("\xEF\xBB\xBFtitle\n"), (Lines{"title"}));
  EXPECT_EQ(split_lines("\n\n"), (Lines{"", ""}));
  EXPECT_EQ(split_lines("x\ry\n"), (Lines{"x\ry"}));
  EXPECT_EQ(join_lines(split_lines("a\r\nb")), "a\nb\n");
}

TEST(CorpusTextLines, NotTextReasons) {
  EXPECT_FALSE(not_text_reason("plain ascii\n"));
  EXPECT_FALSE(not_text_reason("caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x98\x80"));
  EXPECT_EQ(not_text_reason(std::string("ab\0cd", 5)), "binary (NUL byte at offset 2)");
  EXPECT_EQ(not_text_reason("ok\xFF"), "not UTF-8 (invalid byte at offset 2)");
  EXPECT_TRUE(not_text_reason("\xC0\xAF")) << "overlong '/'";
  EXPECT_TRUE(not_text_reason("\xED\xA0\x80")) << "surrogate";
  EXPECT_TRUE(not_text_reason("\xF4\x90\x80\x80")) << "above U+10FFFF";
  EXPECT_TRUE(not_text_reason("\xE2\x86")) << "truncated sequence";
}

TEST(CorpusTextLines, CollapseWhitespaceAndUtf8) {
  EXPECT_EQ(collapse_whitespace("  a \t\n b\r\n"), "a b");
  EXPECT_EQ(collapse_whitespace(" \n "), "");
  std::string out;
  append_utf8(out, U'A');
  append_utf8(out, U'\u00E9');
  append_utf8(out, U'\u2192');
  append_utf8(out, U'\U0001F600');
  append_utf8(out, static_cast<char32_t>(0xD800));
  EXPECT_EQ(out, "A\xC3\xA9\xE2\x86\x92\xF0\x9F\x98\x80\xEF\xBF\xBD");
}

}  // namespace
}  // namespace headway::knowledge
