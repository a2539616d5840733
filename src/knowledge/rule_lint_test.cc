// The lint stage on a real workspace: rules learned from build failures reject later candidates
// before they are built, only under the toolchains they hold for.
#include "knowledge/rule_lint.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kernels/contract.h"
#include "knowledge/facts.h"
#include "knowledge/missing_header_test_support.h"
#include "knowledge/rules.h"
#include "loop/screen.h"
#include "targets/registry/test_targets.h"
#include "trees/tree_test_support.h"

namespace headway::knowledge {
namespace {

using testing::kMissingHeaderDiagnostic;
using testing::kMissingHeaderRepro;

TEST(RuleLintTest, RejectsWhatALearnedRuleDetectsUnderItsToolchainOnly) {
  trees::TreeFixture f;
  auto rec =
      record_build_failure(f.ws(), "qkv", 1, kMissingHeaderRepro, kMissingHeaderDiagnostic, "tc-a");
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  ASSERT_TRUE(rec->rule.detector.has_value());

  auto lint = rule_lint(f.ws(), "tc-a");
  const auto why = lint("// uses threads\n#include <omp.h>\nvoid f();\n");
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(
      *why,
      fmt::format("rule {}: the compiler rejects: fatal error: omp.h: No such file or directory "
                  "(detector /{}/ matches line 2: `#include <omp.h>`)",
                  rec->rule.id, *rec->rule.detector));
  EXPECT_FALSE(lint("// #include <omp.h> is not available\n#include <thread>\n").has_value());

  // Not seen under tc-b: does not apply there; retired under tc-a: no longer applies.
  EXPECT_FALSE(rule_lint(f.ws(), "tc-b")("#include <omp.h>\n").has_value());
  set_rule_status(f.ws(), rec->rule.id, "tc-a", RuleState::kRetired);
  EXPECT_FALSE(lint("#include <omp.h>\n").has_value());
  set_rule_status(f.ws(), rec->rule.id, "tc-a", RuleState::kCarriedUnverified);
  EXPECT_TRUE(lint("#include <omp.h>\n").has_value());
}

std::string mismatch(const std::string& intrinsic) {
  return "/usr/lib/gcc/x86_64-linux-gnu/12/include/avx512fintrin.h:1:1: error: inlining failed in "
         "call to "
         "'always_inline' '__m512 " +
         intrinsic + "(__m512, __m512)': target specific option mismatch\n";
}

TEST(RuleLintTest, OneSignatureGrowsOneAlternativePerIntrinsic) {
  trees::TreeFixture f;
  auto first = record_build_failure(f.ws(), "qkv", 1, "auto a = _mm512_add_ps(x, y);\n",
                                    mismatch("_mm512_add_ps"), "tc");
  auto second = record_build_failure(f.ws(), "qkv", 2, "auto m = _mm512_mul_ps(x, y);\n",
                                     mismatch("_mm512_mul_ps"), "tc");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_FALSE(second->created);  // the names are abstracted: one signature
  EXPECT_EQ(second->rule.detector, "\\b_mm512_add_ps\\b|\\b_mm512_mul_ps\\b");
  auto lint = rule_lint(f.ws(), "tc");
  EXPECT_TRUE(lint("v = _mm512_add_ps(a, b);\n").has_value());
  EXPECT_TRUE(lint("v = _mm512_mul_ps(a, b);\n").has_value());
  EXPECT_FALSE(lint("v = _mm256_add_ps(a, b);\n").has_value());
  // Recording a failure the detector already covers does not grow it.
  ASSERT_TRUE(record_build_failure(f.ws(), "qkv", 3, "auto b = _mm512_add_ps(x, x);\n",
                                   mismatch("_mm512_add_ps"), "tc")
                  .ok());
  EXPECT_EQ(list_rules(f.ws()).front().detector, second->rule.detector);
}

TEST(RuleLintTest, DetectorsSetByHandAreCheckedAgainstTheRepro) {
  trees::TreeFixture f;
  auto rec = record_build_failure(
      f.ws(), "qkv", 1, "int f() { return missing_thing(); }\n",
      "c.cc:1:18: error: 'missing_thing' was not declared in this scope\n", "tc");
  ASSERT_TRUE(rec.ok());
  EXPECT_FALSE(rec->rule.detector.has_value());  // a name of the candidate's own
  auto wrong = set_rule_detector(f.ws(), rec->rule.id, "\\bother_thing\\b");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("does not match the rule's repro"), std::string::npos);
  EXPECT_FALSE(list_rules(f.ws()).front().detector.has_value());
  EXPECT_FALSE(set_rule_detector(f.ws(), 999, "x").ok());
  ASSERT_TRUE(set_rule_detector(f.ws(), rec->rule.id, "\\bmissing_thing\\b").ok());
  EXPECT_TRUE(rule_lint(f.ws(), "tc")("int g() { return missing_thing(); }\n").has_value());
  ASSERT_TRUE(set_rule_detector(f.ws(), rec->rule.id, std::nullopt).ok());
  EXPECT_FALSE(rule_lint(f.ws(), "tc")("int g() { return missing_thing(); }\n").has_value());
}

// The screen stage with this hook: a detected candidate is lint-rejected without a build.
TEST(RuleLintTest, ScreenRejectsBeforeBuilding) {
  trees::TreeFixture f;
  ASSERT_TRUE(
      record_build_failure(f.ws(), "qkv", 1, kMissingHeaderRepro, kMissingHeaderDiagnostic, "tc")
          .ok());
  const KernelContract* qkv = builtin_kernel("qkv");
  ASSERT_NE(qkv, nullptr);
  // Any target: a candidate the lint rejects never reaches it (the loop tests' target would
  // fail this one's build as "unknown line").
  const auto target = targets::make_test_target();
  const auto cache = f.dir() / "builds";
  const loop::ScreenResult r =
      loop::screen_candidate(*qkv, kMissingHeaderRepro, *target, cache, rule_lint(f.ws(), "tc"));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.status, trees::NodeStatus::kLintRejected);
  EXPECT_NE(r.reason.find("matches line 2: `#include <omp.h>`"), std::string::npos) << r.reason;
  EXPECT_FALSE(std::filesystem::exists(cache)) << "a lint-rejected candidate was built";
}

}  // namespace
}  // namespace headway::knowledge
