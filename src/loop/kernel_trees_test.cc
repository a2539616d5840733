#include "loop/kernel_trees.h"

#include <gtest/gtest.h>

#include "common/result.h"
#include "loop/loop_kernel_test_support.h"

namespace headway::loop {
namespace {

TEST(KernelTrees, FiguresAreReadOnceUntilForgotten) {
  LoopKernel k;
  KernelTrees trees(k.ws(), k.target());
  const double floor = trees.floor_ms("attn_out");
  const double head = trees.head_ms("attn_out");
  EXPECT_EQ(floor, *k.tree().record().floor_ms);
  EXPECT_EQ(head, head_ms_of(k.ws(), k.tree(), k.target()));

  // A faster head, set behind the cache's back, shows only once its figures are forgotten.
  const trees::Node faster = k.add("faster", "time: 0.5\n");
  ASSERT_TRUE(k.tree().set_head(faster.id, head / 2, std::nullopt, "test"));
  EXPECT_EQ(trees.head_ms("attn_out"), head);
  trees.forget_figures("attn_out");
  EXPECT_DOUBLE_EQ(trees.head_ms("attn_out"), head / 2);
  EXPECT_EQ(trees.floor_ms("attn_out"), floor);
}

TEST(KernelTrees, ReopenAllOpensTheTreesAgain) {
  LoopKernel k;
  KernelTrees trees(k.ws(), k.target());
  const trees::DesignTree* first = &trees.tree("attn_out");
  EXPECT_EQ(&trees.tree("attn_out"), first);
  trees.reopen_all();
  EXPECT_EQ(trees.tree("attn_out").head().node_id, k.tree().head().node_id);
}

TEST(KernelTrees, AKernelNotRegisteredIsNotFound) {
  LoopKernel k;
  KernelTrees trees(k.ws(), k.target());
  try {
    trees.tree("no_such_kernel");
    FAIL() << "opened a tree that is not there";
  } catch (const Failure& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound) << e.what();
  }
}

}  // namespace
}  // namespace headway::loop
