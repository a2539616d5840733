#include "targets/kernel_language.h"

#include <gtest/gtest.h>

namespace headway::targets {
namespace {

const KernelLanguage kHashLanguage{"#", KernelLanguage::Params::kPlaceholder, true};

TEST(KernelLanguage, ACommentIsTheLanguagesOpeningOrTwoSlashes) {
  EXPECT_EQ(comment_body("#  param P_X 1 default 1", kHashLanguage).value(),
            "param P_X 1 default 1");
  EXPECT_EQ(comment_body("  // summary: s", kHashLanguage).value(), "summary: s");
  EXPECT_EQ(comment_body("-- note", KernelLanguage{"--"}).value(), "note");
  EXPECT_FALSE(comment_body("tile = 4  # trailing", kHashLanguage));
  EXPECT_FALSE(comment_body("# a C comment is not", KernelLanguage{}));
}

TEST(KernelLanguage, AMarkerIsItsKeyAndAColonInEitherComment) {
  EXPECT_EQ(marker_value("# headway-file: kernels/qkv.py ", kHashLanguage, "headway-file").value(),
            "kernels/qkv.py");
  EXPECT_EQ(marker_value("// headway-file:k.py", kHashLanguage, "headway-file").value(), "k.py");
  EXPECT_FALSE(marker_value("# headway-files: k.py", kHashLanguage, "headway-file"));
  EXPECT_FALSE(marker_value("# headway-file k.py", kHashLanguage, "headway-file"));
  EXPECT_FALSE(marker_value("x = 1 # headway-file: k.py", kHashLanguage, "headway-file"));
  EXPECT_EQ(marker_line(kHashLanguage, "headway-kernel", "ffn"), "# headway-kernel: ffn");
}

TEST(KernelLanguage, PlaceholdersAreNamedAndAMalformedOneNamesItsLine) {
  EXPECT_EQ(placeholders_in("a = {{P_TILE}}\nb = {{P_TILE}} + {{P_UNROLL_2}}\n{x}").value(),
            (std::set<std::string>{"P_TILE", "P_UNROLL_2"}));
  EXPECT_TRUE(placeholders_in("no placeholders { {{ }}").value().empty());
  const auto lower = placeholders_in("a = 1\nb = {{P_tile}}\n");
  ASSERT_FALSE(lower);
  EXPECT_EQ(lower.error().message.substr(0, 8), "line 2: ");
  EXPECT_FALSE(placeholders_in("{{P_TILE}"));
  EXPECT_FALSE(placeholders_in("{{P_TILE"));
}

TEST(KernelLanguage, TheHeaderEndsAtCodeOrAtTheFirstFileMarker) {
  EXPECT_EQ(
      without_header("# headway-design: a\n# param P_X 1 default 1\nx = 1\n# c\n", kHashLanguage),
      "x = 1\n# c\n");
  EXPECT_EQ(without_header("// headway-design: a\n# headway-file: k.py\nx = 1\n", kHashLanguage),
            "# headway-file: k.py\nx = 1\n");
  EXPECT_EQ(without_header("# only a header", kHashLanguage), "");
  EXPECT_EQ(without_header("x = 1\n", kHashLanguage), "x = 1\n");
}

}  // namespace
}  // namespace headway::targets
