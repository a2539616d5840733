// Timing built candidates on the host CPU: real builds, real runner processes, shared input pages.
#include "targets/cpu/cpu_timing.h"

#include <gtest/gtest.h>

#include <string>

#include "store/test_temp_dir.h"
#include "targets/cpu/compiler.h"
#include "targets/cpu/host_abi.h"

namespace headway::cpu {
namespace {

TEST(CpuTimingTest, ASecondRunnerSharesTheFirstOnesInputPagesAndOutlivesIt) {
  const KernelContract* kernel = find_kernel("attn_out");
  ASSERT_NE(kernel, nullptr);
  store::TestTempDir tmp;
  const Toolchain tc;
  const auto built =
      build_candidate(tc, identify(tc), std::string(host_abi(*kernel).baseline_source()), tmp.path());
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

TEST(CpuTiming, SideBySideGivesEveryObjectItsReadingsAndSharesAFailure) {
  const KernelContract* kernel = find_kernel("attn_out");
  ASSERT_NE(kernel, nullptr);
  store::TestTempDir cache;
  const Toolchain tc;
  const ToolchainIdentity id = identify(tc);
  ASSERT_TRUE(id.found) << id.error;
  const auto built = build_candidate(tc, id, std::string(host_abi(*kernel).baseline_source()), cache.path());
  ASSERT_EQ(built.status, BuildResult::Status::kBuilt) << built.diagnostics;

  // The same object twice: the same kernel, so the two medians are close.
  const auto both = time_side_by_side(*kernel, {built.shared_object, built.shared_object}, 5, {});
  ASSERT_EQ(both.size(), 2u);
  for (const auto& r : both) {
    ASSERT_TRUE(r.ok()) << r.failure.describe();
    EXPECT_EQ(r.seconds.size(), 5u);
    EXPECT_GT(r.median_seconds, 0.0);
  }
  EXPECT_LT(both[0].median_seconds / both[1].median_seconds, 2.0);
  EXPECT_GT(both[0].median_seconds / both[1].median_seconds, 0.5);

  // One object that cannot load: every result carries the failure.
  const auto failed =
      time_side_by_side(*kernel, {built.shared_object, cache.path() / "missing.so"}, 3, {});
  ASSERT_EQ(failed.size(), 2u);
  for (const auto& r : failed) {
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.failure.status, CallResult::Status::kLoadFailed) << r.failure.describe();
    EXPECT_EQ(r.median_seconds, 0.0);
  }
}

}  // namespace
}  // namespace headway::cpu
