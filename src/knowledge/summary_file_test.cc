#include "knowledge/summary_file.h"

#include <gtest/gtest.h>

#include "knowledge/test_files.h"
#include "store/test_temp_dir.h"

namespace headway::knowledge {
namespace {

TEST(SummaryFileTest, ReadsTextAndNamesThePathOfEveryProblem) {
  store::TestTempDir tmp;
  const auto good = write_test_file(tmp.path(), "s.md", "- a [x.md:L1]\n");
  auto text = read_summary_file(good);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(text.value(), "- a [x.md:L1]\n");

  auto missing = read_summary_file(tmp.path() / "none.md");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("none.md: no such file"), std::string::npos);
  auto folder = read_summary_file(tmp.path());
  ASSERT_FALSE(folder.ok());
  auto binary = read_summary_file(write_test_file(tmp.path(), "b.md", std::string("a\0b", 3)));
  ASSERT_FALSE(binary.ok());
  EXPECT_NE(binary.error().message.find("b.md is not text: binary (NUL byte at offset 1)"),
            std::string::npos)
      << binary.error().message;
}

}  // namespace
}  // namespace headway::knowledge
