// The launch plan as the runner reads it from a module: every field a candidate can get wrong.
#include "targets/cuda/launch_plan.h"

#include <gtest/gtest.h>

#include <cstring>

#include "headway/headway_cuda.h"

namespace headway::cuda {
namespace {

hw_cuda_plan two_launches() {
  hw_cuda_plan p{};
  std::strcpy(p.launches[0].entry, "rows");
  p.launches[0].grid = 960;
  p.launches[0].block = 256;
  std::strcpy(p.launches[1].entry, "_norm2");
  p.launches[1].grid = 1;
  p.launches[1].block = 1024;
  p.launches[1].shared_bytes = 64 * 1024;
  p.scratch_bytes = 3840 * 4;
  return p;
}

Result<LaunchPlan> parse(const hw_cuda_plan& p, unsigned max_shared = 227 * 1024) {
  return parse_plan(std::as_bytes(std::span(&p, 1)), max_shared);
}

TEST(LaunchPlan, ReadsTheLaunchesUpToTheFirstEmptyName) {
  hw_cuda_plan p = two_launches();
  std::strcpy(p.launches[3].entry, "after_the_end");
  p.launches[3].grid = p.launches[3].block = 1;
  const auto plan = parse(p);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan.value().launches.size(), 2u);
  EXPECT_EQ(plan.value().launches[0].entry, "rows");
  EXPECT_EQ(plan.value().launches[0].grid, 960u);
  EXPECT_EQ(plan.value().launches[0].block, 256u);
  EXPECT_EQ(plan.value().launches[1].entry, "_norm2");
  EXPECT_EQ(plan.value().launches[1].shared_bytes, 64u * 1024);
  EXPECT_EQ(plan.value().scratch_bytes, 3840u * 4);
  EXPECT_EQ(plan_bytes(), sizeof(hw_cuda_plan));
}

TEST(LaunchPlan, RejectsEachBadField) {
  auto error_of = [](void (*spoil)(hw_cuda_plan&), unsigned max_shared = 227 * 1024) {
    hw_cuda_plan p = two_launches();
    spoil(p);
    const auto plan = parse(p, max_shared);
    return plan.ok() ? std::string("accepted") : plan.error().message;
  };
  EXPECT_EQ(
      error_of([](hw_cuda_plan& p) { std::memset(p.launches[1].entry, 'a', HW_CUDA_ENTRY_CHARS); }),
      "launch 1: the entry name is not terminated");
  EXPECT_EQ(error_of([](hw_cuda_plan& p) { std::strcpy(p.launches[0].entry, "9rows"); }),
            "launch 0: '9rows' is not a function name");
  EXPECT_EQ(error_of([](hw_cuda_plan& p) { std::strcpy(p.launches[0].entry, "rows;rm"); }),
            "launch 0: 'rows;rm' is not a function name");
  EXPECT_EQ(error_of([](hw_cuda_plan& p) { p.launches[0].grid = 0; }),
            "launch 0 (rows): grid 0 is not in 1..2^31-1");
  EXPECT_EQ(error_of([](hw_cuda_plan& p) { p.launches[1].block = 0; }),
            "launch 1 (_norm2): block 0 is not in 1..1024");
  EXPECT_EQ(error_of([](hw_cuda_plan& p) { p.launches[1].block = 2048; }),
            "launch 1 (_norm2): block 2048 is not in 1..1024");
  EXPECT_EQ(error_of([](hw_cuda_plan& p) { p.launches[1].shared_bytes = 100 * 1024; }, 48 * 1024),
            "launch 1 (_norm2): 102400 bytes of shared memory, the device has 49152");
  EXPECT_EQ(error_of([](hw_cuda_plan& p) { p.launches[0].entry[0] = 0; }),
            "hw_plan launches nothing (its first entry name is empty)");
  EXPECT_EQ(error_of([](hw_cuda_plan& p) { p.scratch_bytes = HW_CUDA_MAX_SCRATCH + 1; }),
            "hw_plan asks for 268435457 bytes of scratch, at most 268435456");
}

TEST(LaunchPlan, RejectsAPlanOfAnotherSize) {
  const hw_cuda_plan p = two_launches();
  const auto bytes = std::as_bytes(std::span(&p, 1));
  const auto plan = parse_plan(bytes.first(bytes.size() - 8), 48 * 1024);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("not the"), std::string::npos) << plan.error().message;
}

}  // namespace
}  // namespace headway::cuda
