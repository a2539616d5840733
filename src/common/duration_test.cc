#include "common/duration.h"

#include <gtest/gtest.h>

#include <string>

namespace headway {
namespace {

TEST(Duration, Parses) {
  EXPECT_EQ(parse_duration_seconds("90"), 90.0);
  EXPECT_EQ(parse_duration_seconds("90s"), 90.0);
  EXPECT_EQ(parse_duration_seconds("12m"), 720.0);
  EXPECT_EQ(parse_duration_seconds("1h30m"), 5400.0);
  EXPECT_EQ(parse_duration_seconds("2.5m"), 150.0);
}

TEST(Duration, RejectsWhatDoesNotParse) {
  for (const char* bad : {"", "m", "ten minutes", "5x", "1h30", "0", "0s", "-5m", "1..5m", "5 m"}) {
    EXPECT_FALSE(parse_duration_seconds(bad)) << bad;
  }
  // More digits than a double holds: infinity, not a duration.
  EXPECT_FALSE(parse_duration_seconds(std::string(400, '9')));
  EXPECT_FALSE(parse_duration_seconds(std::string(400, '9') + "h"));
}

}  // namespace
}  // namespace headway
