#include "common/split_fields.h"

#include <gtest/gtest.h>

namespace headway {
namespace {

using Fields = std::vector<std::string>;

TEST(SplitFields, TrimsEachFieldAndKeepsEmptyOnes) {
  EXPECT_EQ(split_fields("a, b ,\tc", ','), (Fields{"a", "b", "c"}));
  EXPECT_EQ(split_fields("a,,b,", ','), (Fields{"a", "", "b", ""}));
  EXPECT_EQ(split_fields("", ','), (Fields{""}));
  EXPECT_EQ(split_fields("  ", ','), (Fields{""}));
  EXPECT_EQ(split_fields("one two", ','), (Fields{"one two"}));
  EXPECT_EQ(split_fields("x;y", ';'), (Fields{"x", "y"}));
}

}  // namespace
}  // namespace headway
