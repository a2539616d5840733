// Migrating a real workspace from g++ to clang++ on the cpu target (knowledge/migration.h through
// the Target interface): real Design Tree, real builds, real checks.
#include <gtest/gtest.h>

#include "kernels/contract.h"
#include "knowledge/facts.h"
#include "knowledge/kernel_timings.h"
#include "knowledge/migration.h"
#include "knowledge/rules.h"
#include "store/test_temp_dir.h"
#include "targets/registry/registry.h"
#include "trees/design_tree.h"

namespace headway::knowledge {
namespace {

using trees::NodeStatus;

class CpuMigration : public ::testing::Test {
 protected:
  void SetUp() override {
    gcc_ = targets::make_target("cpu", "g++");
    clang_ = targets::make_target("cpu", "clang++");
    gcc_id_ = gcc_->identity();
    ASSERT_TRUE(gcc_id_.found) << gcc_id_.error;
    ASSERT_TRUE(clang_->identity().found) << "clang++ is required";
    kernel_ = builtin_kernel("qkv");
    ASSERT_NE(kernel_, nullptr);
    baseline_ = gcc_->baseline_source(*kernel_);
    ws_.emplace(store::Workspace::create(dir_.path() / "w").value());
    ws_->set_meta("cpu.toolchain", "g++");
    tree_.emplace(trees::DesignTree::create(*ws_, {"qkv", "cpu", {}, {}, ""}, baseline_).value());
  }

  // Adds the baseline plus `extra` as a design screened with g++ as the optimizer would.
  trees::Node add_screened(const std::string& design, const std::string& extra) {
    trees::NewNode n;
    n.design = design;
    n.source = baseline_ + "\n" + extra + "\n";
    n.proposer = "test";
    auto added = tree_->add(n);
    EXPECT_TRUE(added.ok());
    const auto built = gcc_->build(n.source, cache_.path());
    if (!built.built()) {
      EXPECT_TRUE(tree_
                      ->set_status(added->node.id, NodeStatus::kBuildFailed, "does not build",
                                   {{"diagnostics", built.diagnostics}, {"toolchain", gcc_id_.id}})
                      .ok());
    } else {
      const auto check = gcc_->check(*kernel_, built.artifact, {});
      EXPECT_TRUE(check.correct()) << check.description;
    }
    return *tree_->node(added->node.id);
  }

  store::TestTempDir dir_, cache_;
  std::unique_ptr<targets::Target> gcc_, clang_;
  targets::ToolchainInfo gcc_id_;
  const KernelContract* kernel_ = nullptr;
  std::string baseline_;
  std::optional<store::Workspace> ws_;
  std::optional<trees::DesignTree> tree_;
};

TEST_F(CpuMigration, GccToClangReverifiesRewritesRetiresAndFallsBack) {
  // An error both compilers give alike: re-verified.
  const auto both = add_screened("dup", "int headway_dup = 1;\nint headway_dup = 2;");
  // GCC refuses out-of-order designators; clang only warns: retired.
  const auto order =
      add_screened("order", "struct HwS { int a; int b; };\nHwS hw_s = {.b = 1, .a = 2};");
  // Both refuse, in different words: rewritten.
  const auto undeclared = add_screened("undeclared", "void hw_f() { hwq_zx_never_declared(3); }");
  ASSERT_EQ(both.status, NodeStatus::kBuildFailed);
  ASSERT_EQ(order.status, NodeStatus::kBuildFailed);
  ASSERT_EQ(undeclared.status, NodeStatus::kBuildFailed);
  // Mined before the device finding exists: the migration must mine that one itself.
  auto mined = mine_rules_from_tree(*ws_, "qkv");
  ASSERT_TRUE(mined.ok());
  ASSERT_EQ(mined->new_rules, 3);
  // A device finding has no repro: carried over unverified.
  const auto wrong = add_screened("wrong", "// wrong");
  ASSERT_TRUE(tree_
                  ->set_status(wrong.id, NodeStatus::kIncorrect, "incorrect",
                               {{"check", "incorrect (seed 1): q[3] = 1 but reference 2"},
                                {"toolchain", gcc_id_.id}})
                  .ok());
  // The head uses a GCC-only builtin: it builds and passes with g++, not with clang++.
  const auto gcc_only = add_screened(
      "gcc_only",
      "#include <immintrin.h>\n__m128 hw_twice(__m128 a) { return __builtin_ia32_addps(a, a); }");
  ASSERT_EQ(gcc_only.status, NodeStatus::kProposed);
  ASSERT_TRUE(tree_->set_head(gcc_only.id, 1.0, std::nullopt, "test").ok());

  auto report = migrate_toolchain(*ws_, *clang_, {cache_.path(), true, true, 11, {}, {}, {}});
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->mined_new_rules, 1);
  for (const auto& n : report->notes) std::printf("  %s\n", n.c_str());
  std::printf("%s\n", report->summary().c_str());
  EXPECT_EQ(report->summary(),
            "4 rules: 1 re-verified, 1 rewritten, 1 retired, 1 carried over unverified; heads: 0 "
            "kept, 1 fell back");
  EXPECT_EQ(report->from_id, gcc_id_.id);
  EXPECT_EQ(report->to_id, clang_->identity().id);

  auto state = [&](const std::string& sig_prefix, const std::string& toolchain) {
    for (const auto& r : list_rules(*ws_)) {
      if (r.signature.rfind(sig_prefix, 0) != 0) continue;
      for (const auto& s : r.statuses) {
        if (s.toolchain == toolchain) return std::string(to_string(s.state));
      }
    }
    return std::string("none");
  };
  EXPECT_EQ(state("error: redefinition", report->to_id), "verified");
  EXPECT_EQ(state("error: designator order", report->to_id), "retired");
  EXPECT_EQ(state("error: '<id>' was not declared", report->to_id), "rewritten");
  EXPECT_EQ(state("pattern: incorrect", report->to_id), "carried-unverified");
  EXPECT_EQ(state("error: designator order", gcc_id_.id), "verified");  // the old status stays
  const auto rule = find_rule(*ws_, "error: '<id>' was not declared in this scope");
  ASSERT_TRUE(rule) << "the repro's name must have no near miss in scope (no \"did you mean\")";
  const std::string& rewritten = rule->text;
  EXPECT_NE(rewritten.find("undeclared identifier"), std::string::npos) << rewritten;

  EXPECT_EQ(tree_->head().node_id, tree_->root().id);  // fell back to the baseline
  EXPECT_EQ(tree_->head_history().size(), 3u);

  // Re-measured with clang++: the fallen-back head is the baseline, timed once for both roles;
  // the previous figures are the head history's (no g++ timings were stored).
  ASSERT_EQ(report->timings.size(), 1u);
  const auto& t = report->timings[0];
  EXPECT_EQ(t.kernel, "qkv");
  EXPECT_TRUE(t.failure.empty()) << t.failure;
  ASSERT_TRUE(t.baseline_ms && t.head_ms);
  EXPECT_GT(*t.baseline_ms, 0.0);
  EXPECT_EQ(*t.head_ms, *t.baseline_ms);
  EXPECT_EQ(t.head_node, tree_->root().id);
  EXPECT_EQ(t.previous_head_node, gcc_only.id);
  EXPECT_EQ(t.previous_head_ms, 1.0);
  EXPECT_FALSE(t.previous_baseline_ms);
  const auto stored = latest_kernel_timing(*ws_, "qkv", report->to_id, kHeadRole);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->median_ms, *t.head_ms);
  EXPECT_EQ(stored->readings, 11);
  EXPECT_EQ(current_head_ms(*ws_, *tree_, report->to_id), *t.head_ms);
  EXPECT_FALSE(latest_kernel_timing(*ws_, "qkv", gcc_id_.id, kHeadRole));
  EXPECT_EQ(ws_->meta("cpu.toolchain"), "clang++");
  EXPECT_EQ(current_toolchain_id(*ws_), report->to_id);
}

TEST_F(CpuMigration, MissingCompilerIsRefusedChangingNothing) {
  const auto undeclared = add_screened("undeclared", "void hw_f() { hwq_zx_never_declared(3); }");
  ASSERT_TRUE(mine_rules_from_tree(*ws_, "qkv").ok());
  const auto missing = targets::make_target("cpu", (dir_.path() / "no-such-c++").string());
  auto report = migrate_toolchain(*ws_, *missing, {cache_.path(), true, true, 11, {}, {}, {}});
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.error().message.find("no-such-c++"), std::string::npos)
      << report.error().message;
  EXPECT_EQ(ws_->meta("cpu.toolchain"), "g++");
  EXPECT_EQ(list_rules(*ws_).at(0).statuses.size(), 1u);
  EXPECT_EQ(tree_->head_history().size(), 1u);
}

}  // namespace
}  // namespace headway::knowledge

namespace headway::knowledge {
namespace {

// A porter (an agent in the product, a function here: the seam) ports a head that fails under the
// new toolchain; the port is built and checked with it and waits, proposed, for the acceptance
// test of the next optimize run. A port that fails too gets its status.
TEST_F(CpuMigration, APortOfAFailingHeadIsCheckedAndProposedNotMadeHead) {
  const auto gcc_only = add_screened(
      "gcc_only",
      "#include <immintrin.h>\n__m128 hw_twice(__m128 a) { return __builtin_ia32_addps(a, a); }");
  ASSERT_TRUE(tree_->set_head(gcc_only.id, 1.0, std::nullopt, "test").ok());
  std::vector<std::string> asked;
  MigrateOptions options{cache_.path(), true, false, 11, {}, {}, {}};
  options.port = [&](const std::string& kernel, const std::string& source,
                     const std::string& why) -> std::optional<Port> {
    asked.push_back(kernel + " | " + why);
    std::string ported = source;
    const std::string from = "__builtin_ia32_addps(a, a)";
    ported.replace(ported.find(from), from.size(), "_mm_add_ps(a, a)");
    return Port{ported, "test porter", std::nullopt};
  };
  auto report = migrate_toolchain(*ws_, *clang_, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].rfind("qkv | does not build: ", 0), 0u) << asked[0];
  EXPECT_EQ(report->ports_proposed, 1);
  EXPECT_NE(report->summary().find("ports: 1 proposed for testing, 0 failed"), std::string::npos)
      << report->summary();
  EXPECT_EQ(tree_->head().node_id, tree_->root().id)
      << "the port does not become head without a test";
  std::optional<trees::Node> port;
  for (const auto& n : tree_->nodes()) {
    if (n.parent_id == gcc_only.id) port = n;
  }
  ASSERT_TRUE(port);
  EXPECT_EQ(port->kind, trees::NodeKind::kVariant);
  EXPECT_EQ(port->status, NodeStatus::kProposed);
  EXPECT_EQ(port->proposer, "test porter");
  EXPECT_EQ(port->design, "gcc_only");
}

TEST_F(CpuMigration, APortThatFailsTooIsRecordedWithItsStatus) {
  const auto gcc_only = add_screened(
      "gcc_only",
      "#include <immintrin.h>\n__m128 hw_twice(__m128 a) { return __builtin_ia32_addps(a, a); }");
  ASSERT_TRUE(tree_->set_head(gcc_only.id, 1.0, std::nullopt, "test").ok());
  MigrateOptions options{cache_.path(), true, false, 11, {}, {}, {}};
  options.port = [&](const std::string&, const std::string& source,
                     const std::string&) -> std::optional<Port> {
    return Port{source + "\nint hw_ported = hw_still_undeclared;\n", "test porter", std::nullopt};
  };
  auto report = migrate_toolchain(*ws_, *clang_, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->ports_failed, 1);
  bool found = false;
  for (const auto& n : tree_->nodes()) {
    if (n.parent_id != gcc_only.id) continue;
    found = true;
    EXPECT_EQ(n.status, NodeStatus::kBuildFailed);
    EXPECT_NE(n.reason.find("does not build"), std::string::npos) << n.reason;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace headway::knowledge
