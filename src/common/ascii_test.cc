#include "common/ascii.h"

#include <gtest/gtest.h>

namespace headway {
namespace {

TEST(Ascii, DigitsAreZeroToNineOnly) {
  for (char c = '0'; c <= '9'; ++c) EXPECT_TRUE(is_ascii_digit(c)) << c;
  for (char c : std::string_view("/:aZ \x80\xff")) EXPECT_FALSE(is_ascii_digit(c)) << int(c);
  static_assert(is_ascii_digit('7') && !is_ascii_digit('x'));
}

TEST(Ascii, LowerMapsOnlyAsciiCapitals) {
  EXPECT_EQ(ascii_lower("Content-Type: Rate_LIMIT 42"), "content-type: rate_limit 42");
  EXPECT_EQ(ascii_lower("@[`{"), "@[`{");  // the neighbours of 'A'-'Z' and 'a'-'z'
  EXPECT_EQ(ascii_lower("\xc3\x89T\xc3\x89"), "\xc3\x89t\xc3\x89");  // "ÉTÉ": UTF-8 bytes kept
  EXPECT_EQ(ascii_lower(""), "");
}

}  // namespace
}  // namespace headway
