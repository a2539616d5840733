#include "common/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace headway {
namespace {

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return invalid_input(std::string("not a digit: ") + c);
  return c - '0';
}

Status check_positive(int n) {
  if (n <= 0) return conflict("not positive");
  return {};
}

TEST(Result, HoldsAValue) {
  const Result<int> r = parse_digit('7');
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(static_cast<bool>(r));
  EXPECT_EQ(r.value(), 7);
  EXPECT_EQ(*r, 7);
  EXPECT_THROW((void)r.error(), std::logic_error);
}

TEST(Result, HoldsAnErrorWithItsCode) {
  const Result<int> r = parse_digit('x');
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(static_cast<bool>(r));
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidInput);
  EXPECT_EQ(r.error().message, "not a digit: x");
}

TEST(Result, ValueOfAnErrorThrowsNamingTheError) {
  Result<std::string> r = not_found("no such node 12");
  try {
    (void)r.value();
    FAIL() << "value() of an error returned";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("no such node 12"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)*r, std::logic_error);
  EXPECT_THROW((void)r->size(), std::logic_error);
  EXPECT_THROW((void)std::move(r).value(), std::logic_error);
}

TEST(Result, AccessorsReachTheValue) {
  Result<std::string> r(std::string("abc"));
  EXPECT_EQ(r->size(), 3u);
  r.value() += "d";
  EXPECT_EQ(*r, "abcd");
  const std::string moved = std::move(r).value();
  EXPECT_EQ(moved, "abcd");
}

TEST(Result, HoldsAMoveOnlyValue) {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(5));
  ASSERT_TRUE(r.ok());
  const std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 5);
}

TEST(Result, ErrorPassesUpUnchanged) {
  const auto outer = [](char c) -> Result<double> {
    auto digit = parse_digit(c);
    if (!digit) return digit.error();
    return digit.value() / 2.0;
  };
  EXPECT_EQ(outer('3').value(), 1.5);
  const auto failed = outer('?');
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::kInvalidInput);
  EXPECT_EQ(failed.error().message, "not a digit: ?");
}

TEST(Status, SucceedsOrCarriesAnError) {
  const Status good = check_positive(1);
  EXPECT_TRUE(good.ok());
  EXPECT_THROW((void)good.error(), std::logic_error);
  const Status bad = check_positive(0);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kConflict);
  EXPECT_EQ(bad.error().message, "not positive");
}

TEST(Error, EachFactoryGivesItsCode) {
  EXPECT_EQ(invalid_input("m").code, ErrorCode::kInvalidInput);
  EXPECT_EQ(not_found("m").code, ErrorCode::kNotFound);
  EXPECT_EQ(conflict("m").code, ErrorCode::kConflict);
  EXPECT_EQ(environment_error("m").code, ErrorCode::kEnvironment);
  EXPECT_EQ(database_error("m").code, ErrorCode::kDatabase);
  EXPECT_EQ(database_error("m").message, "m");
  EXPECT_EQ(error_code_name(ErrorCode::kDatabase), "database");
  EXPECT_EQ(error_code_name(ErrorCode::kNotFound), "not found");
}

}  // namespace
}  // namespace headway
