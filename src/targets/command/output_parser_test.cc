#include "targets/command/output_parser.h"

#include <gtest/gtest.h>

namespace headway::command {
namespace {

OutputParser regex(const std::string& p) {
  return make_parser(OutputParser::Kind::kRegex, p).value();
}
OutputParser json(const std::string& p) {
  return make_parser(OutputParser::Kind::kJsonPath, p).value();
}

TEST(OutputParser, RegexTakesTheFirstGroupOfTheFirstMatch) {
  EXPECT_DOUBLE_EQ(
      regex("makespan: ([0-9]+)").number("x\nmakespan: 4821 cycles\nmakespan: 1").value(), 4821);
  EXPECT_DOUBLE_EQ(regex("[0-9]+\\.[0-9]+").number("took 1.25 s").value(), 1.25);
}

TEST(OutputParser, ClearErrorsWhenTheOutputDoesNotParse) {
  const auto none = regex("makespan: ([0-9]+)").number("error: no schedule\n");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "regex 'makespan: ([0-9]+)' matches nothing in: error: no schedule");
  EXPECT_NE(regex("v=(\\w+)").number("v=abc").error().message.find("'abc', which is not a number"),
            std::string::npos);
  EXPECT_NE(json("a.b").number("not json").error().message.find("no JSON document"),
            std::string::npos);
  EXPECT_NE(json("a.c").number("{\"a\": {\"b\": 1}}").error().message.find("no key 'c'"),
            std::string::npos);
  EXPECT_NE(json("a").number("{\"a\": \"x\"}").error().message.find("not a number"),
            std::string::npos);
}

TEST(OutputParser, JsonPathsWithKeysAndIndicesAfterLeadingText) {
  EXPECT_DOUBLE_EQ(
      json("schedule.makespan").number("compiling...\n{\"schedule\": {\"makespan\": 77}}").value(),
      77);
  EXPECT_DOUBLE_EQ(
      json("arms[1].cycles").number("{\"arms\": [{\"cycles\": 1}, {\"cycles\": 2.5}]}").value(),
      2.5);
  EXPECT_FALSE(json("arms[2]").number("{\"arms\": [1, 2]}").ok());
}

TEST(OutputParser, PerArmWithIndexedMatchesInAnyOrder) {
  const auto p = regex("arm ([0-9]+): ([0-9.]+) cycles");
  EXPECT_EQ(p.per_arm("arm 1: 20 cycles\narm 0: 10 cycles\n", 2).value(),
            (std::vector<double>{10, 20}));
  const auto missing = p.per_arm("arm 0: 10 cycles\n", 2);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no reading for arm 1 of 2"), std::string::npos)
      << missing.error().message;
  EXPECT_FALSE(p.per_arm("arm 5: 1 cycles", 2).ok());
  const auto partial = p.arm_readings("arm 1: 20 cycles", 2).value();
  EXPECT_FALSE(partial[0].has_value());
  EXPECT_EQ(*partial[1], 20);
  EXPECT_EQ(json("readings").per_arm("{\"readings\": [3, 4]}", 2).value(),
            (std::vector<double>{3, 4}));
}

TEST(OutputParser, BadPatternsAreRefused) {
  EXPECT_FALSE(make_parser(OutputParser::Kind::kRegex, "(unclosed").ok());
  EXPECT_FALSE(make_parser(OutputParser::Kind::kJsonPath, "a..b").ok());
  EXPECT_FALSE(make_parser(OutputParser::Kind::kJsonPath, "").ok());
}

}  // namespace
}  // namespace headway::command
