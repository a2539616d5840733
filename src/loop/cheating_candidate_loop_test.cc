// A candidate that cheats under timing, in the real optimize loop on the cpu target: it passes
// the check, is caught by the verified timed calls, is marked cheated with the reason, and the
// loop goes on.
#include <gtest/gtest.h>

#include "knowledge/workspace_target.h"
#include "loop/optimizer.h"
#include "store/test_temp_dir.h"
#include "targets/cpu/host_abi.h"
#include "targets/registry/registry.h"
#include "trees/design_tree.h"

namespace headway::loop {
namespace {

// Proposes, once, a candidate that tells a timed call from the check's by its inputs having
// moved since its process's previous call (a thread left asleep makes the session warm it up
// first) and then replays that call's answer, and an honest copy of the baseline.
class CheatingProposer final : public Proposer {
 public:
  std::string name() const override { return "cheat-test"; }
  std::vector<Proposal> propose(const ProposalContext& ctx) override {
    if (done_) return {};
    done_ = true;
    std::string cheat(cpu::host_abi(*ctx.kernel).baseline_source());
    const std::string entry = "extern \"C\" void hw_attn_out(const hw_attn_out_args* a)";
    cheat.replace(cheat.find(entry), entry.size(), "static void real(const hw_attn_out_args* a)");
    cheat = "#include <condition_variable>\n#include <cstring>\n#include <mutex>\n" + cheat +
            "\n#include <thread>\nstatic const void* last; static hw_bf16 stored[HW_H];\n" + entry +
            " {\n  static std::once_flag once;\n"
            "  std::call_once(once, [] { std::thread([] { std::mutex m; std::condition_variable "
            "c; std::unique_lock<std::mutex> l(m); c.wait(l, [] { return false; }); }).detach(); "
            "});\n"
            "  const bool moved = last && last != a->o_weight; last = a->o_weight;\n"
            "  if (moved) { std::memcpy(a->residual, stored, sizeof stored); return; }\n"
            "  real(a); std::memcpy(stored, a->residual, sizeof stored);\n}\n";
    const std::string honest =
        std::string(cpu::host_abi(*ctx.kernel).baseline_source()) + "\n// honest copy\n";
    return {{"cheat", {}, cheat, "", "replays on moved inputs", "", std::nullopt},
            {"copy", {}, honest, "", "the baseline again", "", std::nullopt}};
  }

 private:
  bool done_ = false;
};

TEST(OptimizeLoop, ACheatingCandidateIsDisqualifiedAndTheLoopGoesOn) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  knowledge::set_workspace_target_name(ws, "cpu");
  auto target = targets::make_target("cpu");
  OptimizeOptions options;
  options.kernels = {"attn_out"};
  options.budget = std::chrono::seconds(120);
  options.baseline_readings = 3;
  options.acceptance.cap = 6;
  options.target = target.get();
  CheatingProposer proposer;
  const OptimizeSummary summary = optimize(ws, proposer, options, nullptr);
  EXPECT_EQ(summary.cheated, 1);
  EXPECT_EQ(summary.proposed, 2);
  auto tree = trees::DesignTree::open(ws, "attn_out").value();
  int cheated = 0;
  for (const auto& n : tree.nodes()) {
    if (n.design == "cheat") {
      EXPECT_EQ(n.status, trees::NodeStatus::kCheated) << n.reason;
      EXPECT_NE(n.reason.find("output is wrong"), std::string::npos) << n.reason;
      ++cheated;
    } else if (n.design == "copy") {
      EXPECT_NE(n.status, trees::NodeStatus::kCheated) << n.reason;
      EXPECT_NE(n.status, trees::NodeStatus::kProposed)
          << "the loop stopped before the honest candidate";
    }
  }
  EXPECT_EQ(cheated, 1);
  EXPECT_NE(tree.node(tree.head().node_id)->design, "cheat");
}

}  // namespace
}  // namespace headway::loop
