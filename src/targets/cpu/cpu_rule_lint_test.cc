// The legality rules' lint on a cpu workspace that migrates between its real compilers: a rule
// learned under g++ stops applying under clang++ until it is verified there.
#include <gtest/gtest.h>

#include "knowledge/facts.h"
#include "knowledge/missing_header_test_support.h"
#include "knowledge/rule_lint.h"
#include "knowledge/rules.h"
#include "knowledge/workspace_target.h"
#include "targets/registry/registry.h"
#include "trees/tree_test_support.h"

namespace headway::cpu {
namespace {

// After `headway migrate` moves the workspace to another compiler, the hook follows it: rules
// that hold only under the previous toolchain stop applying.
TEST(CpuRuleLint, FollowingTheWorkspaceSwitchesWithItsToolchain) {
  trees::TreeFixture f;
  const std::string gxx = knowledge::current_toolchain_id(f.ws());
  auto rec =
      knowledge::record_build_failure(f.ws(), "qkv", 1, knowledge::testing::kMissingHeaderRepro,
                                      knowledge::testing::kMissingHeaderDiagnostic, gxx);
  ASSERT_TRUE(rec.ok());
  auto lint = knowledge::rule_lint_following_workspace(f.ws());
  EXPECT_TRUE(lint("#include <omp.h>\n").has_value());
  const auto clang_id = targets::make_target("cpu", "clang++")->identity();
  if (!clang_id.found) GTEST_SKIP() << "no clang++ here";
  f.ws().set_meta("cpu.toolchain", "clang++");
  EXPECT_FALSE(lint("#include <omp.h>\n").has_value());
  knowledge::set_rule_status(f.ws(), rec->rule.id, clang_id.id, knowledge::RuleState::kVerified);
  EXPECT_TRUE(lint("#include <omp.h>\n").has_value());
}

}  // namespace
}  // namespace headway::cpu
