// Detectors derived from real and recorded compiler diagnostics, and matched against sources.
#include "knowledge/rule_detector.h"

#include <gtest/gtest.h>

#include "store/test_temp_dir.h"
#include "targets/registry/registry.h"

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

// The real compilers of this machine: the detector derived from what they print rejects the
// source that failed.
TEST(RuleDetectorTest, RealCompilersMissingHeaderGivesADetectorThatMatchesTheRepro) {
  store::TestTempDir tmp;
  const std::string source = "#include \"headway_kernel.h\"\n#include <headway_no_such_header.h>\n";
  int compilers = 0;
  for (const char* cxx : {"g++", "clang++"}) {
    const auto tc = targets::make_target("cpu", cxx);
    if (!tc->identity().found) continue;
    ++compilers;
    const auto built = tc->build(source, tmp.path());
    ASSERT_EQ(built.status, targets::BuildOutcome::Status::kCompileError) << cxx;
    const auto detector = derive_detector(built.diagnostics);
    ASSERT_TRUE(detector.has_value()) << cxx << ": " << built.diagnostics;
    EXPECT_TRUE(validate_detector(*detector, source).ok()) << *detector;
    EXPECT_FALSE(detector_match(*detector, "#include <headway_no_such_header_2.h>\n")) << *detector;
  }
  EXPECT_GE(compilers, 1);
}

}  // namespace
}  // namespace headway::knowledge
