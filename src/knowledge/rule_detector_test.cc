// Detectors derived from recorded compiler diagnostics, and matched against sources (the real
// compilers' in targets/cpu/cpu_rule_detector_test.cc).
#include "knowledge/rule_detector.h"

#include <gtest/gtest.h>

namespace headway::knowledge {
namespace {

TEST(RuleDetectorTest, BlankCommentsKeepsCodeStringsAndLineNumbers) {
  const std::string src =
      "int a; // _mm512_add_ps\n/* b\n c */ int d = 1'000;\nconst char* s = \"// not a "
      "comment\";\nchar q = '/';/*x*/\n";
  const std::string out = blank_comments(src);
  ASSERT_EQ(out.size(), src.size());
  EXPECT_EQ(out.find("_mm512"), std::string::npos);
  EXPECT_EQ(out.find('b'), std::string::npos);
  EXPECT_NE(out.find("int d = 1'000;"), std::string::npos);
  EXPECT_NE(out.find("\"// not a comment\""), std::string::npos);
  EXPECT_NE(out.find("char q = '/';"), std::string::npos);
  EXPECT_EQ(out.find('x'), std::string::npos);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), std::count(src.begin(), src.end(), '\n'));
}

TEST(RuleDetectorTest, DerivesOnlyFromToolchainProperties) {
  EXPECT_EQ(derive_detector("c.cc:2:10: fatal error: omp.h: No such file or directory\n"),
            "#\\s*include\\s*[<\"]omp\\.h[>\"]");
  EXPECT_EQ(derive_detector("c.cc:2:10: fatal error: 'sys/omp.h' file not found\n"),
            "#\\s*include\\s*[<\"]sys\\/omp\\.h[>\"]");
  EXPECT_EQ(derive_detector("In file included from c.cc:1:\n/usr/lib/gcc/avx512fintrin.h:1:1: "
                            "error: inlining failed in call to "
                            "\xE2\x80\x98"
                            "always_inline\xE2\x80\x99 \xE2\x80\x98"
                            "__m512 _mm512_add_ps(__m512, __m512)\xE2\x80\x99: "
                            "target specific option mismatch\n"),
            "\\b_mm512_add_ps\\b");
  EXPECT_EQ(derive_detector(
                "c.cc:3:5: error: always_inline function '_mm512_add_ps' requires target feature "
                "'avx512f', but would be inlined into function 'f'\n"),
            "\\b_mm512_add_ps\\b");
  EXPECT_EQ(
      derive_detector("c.cc:4:3: error: '__builtin_ia32_addps' was not declared in this scope\n"),
      "\\b__builtin_ia32_addps\\b");
  EXPECT_EQ(derive_detector("c.cc:4:3: error: use of undeclared identifier '_mm_frobnicate'\n"),
            "\\b_mm_frobnicate\\b");
  // The candidate's own names and other errors say nothing about the toolchain.
  EXPECT_EQ(derive_detector("c.cc:4:3: error: 'my_helper' was not declared in this scope\n"),
            std::nullopt);
  EXPECT_EQ(derive_detector("c.cc:4:3: error: redefinition of 'x'\n"), std::nullopt);
  EXPECT_EQ(derive_detector("c.cc:4:3: warning: unused variable\n"), std::nullopt);
}

TEST(RuleDetectorTest, MatchesNameTheLineAndIgnoreComments) {
  const std::string src =
      "// _mm512_add_ps is not here\nint f() {\n  return _mm512_add_ps(a, b);\n}\n";
  auto m = detector_match("\\b_mm512_add_ps\\b", src);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->line, 3);
  EXPECT_EQ(m->text, "return _mm512_add_ps(a, b);");
  EXPECT_FALSE(detector_match("\\b_mm512_add_ps\\b", "/* _mm512_add_ps */ int x;\n"));
  EXPECT_FALSE(detector_match("\\b_mm512_add\\b", src));  // whole words only
  EXPECT_FALSE(detector_match("([", src));                // does not compile: matches nothing
}

TEST(RuleDetectorTest, ValidationRefusesEmptyBrokenAndNonMatchingPatterns) {
  EXPECT_FALSE(validate_detector("", std::nullopt).ok());
  auto broken = validate_detector("([", std::nullopt);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("is not a regular expression"), std::string::npos);
  auto other = validate_detector("\\bfoo\\b", std::string("int bar;\n"));
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("does not match the rule's repro"), std::string::npos);
  EXPECT_TRUE(validate_detector("\\bbar\\b", std::string("int bar;\n")).ok());
  EXPECT_TRUE(validate_detector("\\bbar\\b", std::nullopt).ok());
}

}  // namespace
}  // namespace headway::knowledge
