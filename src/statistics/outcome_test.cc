#include "statistics/outcome.h"

#include <gtest/gtest.h>

namespace headway::statistics {
namespace {

TEST(Outcome, Names) {
  EXPECT_EQ(to_string(Outcome::kFaster), "FASTER");
  EXPECT_EQ(to_string(Outcome::kSlower), "SLOWER");
  EXPECT_EQ(to_string(Outcome::kSame), "SAME");
  EXPECT_EQ(to_string(Outcome::kInconclusive), "INCONCLUSIVE");
}

TEST(Outcome, ParseRoundTrips) {
  for (Outcome o : kAllOutcomes) EXPECT_EQ(parse_outcome(to_string(o)), o);
  EXPECT_EQ(parse_outcome("faster"), std::nullopt);
  EXPECT_EQ(parse_outcome(""), std::nullopt);
}

}  // namespace
}  // namespace headway::statistics
