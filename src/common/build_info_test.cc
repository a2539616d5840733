#include "common/build_info.h"

#include <gtest/gtest.h>

#include <regex>

namespace headway {
namespace {

TEST(BuildInfo, HasAVersionACompilerAndAFullCommitWhenKnown) {
  const BuildInfo& info = build_info();
  EXPECT_TRUE(std::regex_match(std::string(info.version), std::regex(R"(\d+\.\d+\.\d+)")))
      << info.version;
  EXPECT_FALSE(info.compiler.empty());
  if (!info.git_commit.empty()) {
    EXPECT_TRUE(std::regex_match(std::string(info.git_commit), std::regex("[0-9a-f]{40}")))
        << info.git_commit;
  }
}

TEST(BuildInfo, LabelAbbreviatesTheCommitOrSaysUnknown) {
  EXPECT_EQ(version_label({"1.2.3", "0123456789abcdef0123456789abcdef01234567", "GNU 12"}),
            "1.2.3 (commit 0123456789ab)");
  EXPECT_EQ(version_label({"1.2.3", "", "GNU 12"}), "1.2.3 (commit unknown)");
}

}  // namespace
}  // namespace headway
