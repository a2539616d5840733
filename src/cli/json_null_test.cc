#include "cli/json_null.h"

#include <gtest/gtest.h>

#include <string>

namespace headway::cli {
namespace {

TEST(JsonNull, AbsentIsNullAndPresentIsTheValue) {
  EXPECT_TRUE(or_null(std::optional<double>()).is_null());
  EXPECT_EQ(or_null(std::optional<double>(1.5)), nlohmann::json(1.5));
  EXPECT_EQ(or_null(std::optional<int64_t>(0)), nlohmann::json(0));  // zero is not absent
  EXPECT_EQ(or_null(std::optional<std::string>("")).dump(), "\"\"");
}

}  // namespace
}  // namespace headway::cli
