#include "loop/run_progress.h"

#include <gtest/gtest.h>

#include "loop/loop_kernel_test_support.h"

namespace headway::loop {
namespace {

const std::vector<std::string> kKernels{"qkv", "attn_out"};

TEST(RunProgress, AZeroBudgetIsSpentAtOnceAndLeavesNothing) {
  LoopKernel k;
  KernelTrees trees(k.ws(), k.target());
  RunProgress progress(std::chrono::seconds(0), nullptr, kKernels, trees);
  EXPECT_TRUE(progress.budget_spent());
  Progress p;
  progress.report(p);
  EXPECT_GE(p.elapsed_s, 0.0);
  EXPECT_EQ(p.budget_left_s, 0.0);
}

TEST(RunProgress, PausedTimeCountsNeitherAgainstTheBudgetNorAsElapsed) {
  LoopKernel k;
  KernelTrees trees(k.ws(), k.target());
  RunProgress progress(std::chrono::hours(1), nullptr, kKernels, trees);
  EXPECT_FALSE(progress.budget_spent());
  Progress before;
  progress.report(before);
  progress.add_paused(600.0);
  Progress after;
  progress.report(after);
  // Ten minutes paused: the elapsed time goes back by them, the budget left forward.
  EXPECT_LT(after.elapsed_s, before.elapsed_s - 500.0);
  EXPECT_GT(after.budget_left_s, before.budget_left_s);
}

TEST(RunProgress, EachLineShowsTheRegisteredKernelsHeadsAndGoesToTheCallbackAndTheRecord) {
  LoopKernel k;  // attn_out registered in the workspace
  KernelTrees trees(k.ws(), k.target());
  std::vector<Progress> lines;
  RunProgress progress(
      std::chrono::hours(1), [&lines](const Progress& p) { lines.push_back(p); }, kKernels, trees);
  progress.event("resumed", "after 1.0 s paused");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].kernels.empty());  // none registered with the run yet
  EXPECT_FALSE(read_run_record(k.ws()));  // no record kept yet

  progress.keep_record(k.ws());
  progress.registered("attn_out");
  EXPECT_TRUE(progress.is_registered("attn_out"));
  EXPECT_FALSE(progress.is_registered("qkv"));
  progress.step("attn_out", k.head(), "screen");
  ASSERT_EQ(lines.size(), 2u);
  const Progress& p = lines[1];
  EXPECT_EQ(p.kernel, "attn_out");
  EXPECT_EQ(p.node, k.head().id);
  EXPECT_EQ(p.stage, "screen");
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].name, "attn_out");
  EXPECT_EQ(p.head_ms, trees.head_ms("attn_out"));
  EXPECT_EQ(p.floor_ms, *k.tree().record().floor_ms);
  const auto record = read_run_record(k.ws());
  ASSERT_TRUE(record);
  EXPECT_EQ(record->progress.stage, "screen");
  EXPECT_EQ(record->budget_s, 3600.0);
}

}  // namespace
}  // namespace headway::loop
