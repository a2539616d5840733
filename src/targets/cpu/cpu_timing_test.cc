// Timed runners on real built kernels: shared input pages between the arms of a pair.
#include "targets/cpu/cpu_timing.h"

#include <gtest/gtest.h>

#include "store/test_temp_dir.h"
#include "targets/cpu/compiler.h"

namespace headway::cpu {
namespace {

TEST(CpuTimingTest, ASecondRunnerSharesTheFirstOnesInputPagesAndOutlivesIt) {
  const KernelContract* kernel = find_kernel("attn_out");
  ASSERT_NE(kernel, nullptr);
  store::TestTempDir tmp;
  const Toolchain tc;
  const auto built =
      build_candidate(tc, identify(tc), std::string(kernel->baseline_source()), tmp.path());
  ASSERT_EQ(built.status, BuildResult::Status::kBuilt) << built.diagnostics;

  CallResult failure;
  auto first = TimedKernel::start(*kernel, built.shared_object, {}, 7, &failure);
  ASSERT_TRUE(first) << failure.describe();
  auto second = TimedKernel::start_sharing_inputs(*first, built.shared_object, {}, &failure);
  ASSERT_TRUE(second) << failure.describe();
  auto own = TimedKernel::start(*kernel, built.shared_object, {}, 7, &failure);
  ASSERT_TRUE(own) << failure.describe();

  EXPECT_EQ(second->buffers().bytes(0).data(), first->buffers().bytes(0).data());
  EXPECT_NE(own->buffers().bytes(0).data(), first->buffers().bytes(0).data());
  EXPECT_TRUE(first->reading().ok());
  EXPECT_TRUE(second->reading().ok());

  first.reset();  // the shared inputs stay while a runner uses them
  const CallResult after = second->reading();
  EXPECT_TRUE(after.ok()) << after.describe();
  EXPECT_GT(after.seconds, 0.0);

  auto missing = TimedKernel::start_sharing_inputs(*second, tmp.path() / "none.so", {}, &failure);
  EXPECT_FALSE(missing);
  EXPECT_EQ(failure.status, CallResult::Status::kLoadFailed);
}

}  // namespace
}  // namespace headway::cpu
