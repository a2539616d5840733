// Whole numbers from JSON: integers within the type's range pass; floats (whole or not) and
// integers outside it are refused, never converted.
#include "common/json_whole.h"

#include <gtest/gtest.h>

namespace headway {
namespace {

using nlohmann::json;

TEST(JsonWhole, IntegersInRangePass) {
  EXPECT_EQ(whole<int>(json::parse("-7")), -7);
  EXPECT_EQ(whole<int>(json::parse("2147483647")), 2147483647);
  EXPECT_EQ(whole<uint64_t>(json::parse("18446744073709551615")), UINT64_MAX);
  EXPECT_EQ(whole<int64_t>(json::parse("-9223372036854775808")), INT64_MIN);
  EXPECT_EQ(whole<uint8_t>(json::parse("255")), 255);
}

TEST(JsonWhole, FloatsAndIntegersOutOfRangeAreRefused) {
  const struct {
    const char* text;
    bool as_int, as_uint64, as_int64;
  } cases[] = {
      {"1.5", false, false, false},      {"2.0", false, false, false},  // a float, however whole
      {"1e300", false, false, false},    {"-1e300", false, false, false},
      {"2147483648", false, true, true}, {"-2147483649", false, false, true},
      {"-1", true, false, true},         {"18446744073709551615", false, true, false},
      {"\"3\"", false, false, false},    {"true", false, false, false},
      {"null", false, false, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const json v = json::parse(c.text);
    EXPECT_EQ(is_whole<int>(v), c.as_int);
    EXPECT_EQ(is_whole<uint64_t>(v), c.as_uint64);
    EXPECT_EQ(is_whole<int64_t>(v), c.as_int64);
    EXPECT_FALSE(is_whole<uint8_t>(v));
    if (!c.as_int) {
      try {
        (void)whole<int>(v);
        ADD_FAILURE() << "no exception";
      } catch (const json::type_error& e) {
        EXPECT_NE(std::string(e.what()).find("expected a whole number in range, got "),
                  std::string::npos)
            << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace headway
