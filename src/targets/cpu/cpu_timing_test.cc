// Timing built candidates on the host CPU: real builds, real sandboxed runner processes.
#include "targets/cpu/cpu_timing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "common/rng.h"
#include "store/test_temp_dir.h"
#include "targets/cpu/cold_inputs.h"
#include "targets/cpu/compiler.h"
#include "targets/cpu/host_abi.h"

namespace headway::cpu {
namespace {

std::filesystem::path build_baseline(const KernelContract& kernel,
                                     const std::filesystem::path& cache) {
  const Toolchain tc;
  const auto built =
      build_candidate(tc, identify(tc), std::string(host_abi(kernel).baseline_source()), cache);
  EXPECT_EQ(built.status, BuildResult::Status::kBuilt) << built.diagnostics;
  return built.shared_object;
}

TEST(CpuTiming, SideBySideGivesEveryObjectItsReadingsAndSharesAFailure) {
  const KernelContract* kernel = find_kernel("attn_out");
  ASSERT_NE(kernel, nullptr);
  store::TestTempDir cache;
  const auto object = build_baseline(*kernel, cache.path());

  // The same object twice: the same kernel, so the two medians are close.
  const auto both = time_side_by_side(*kernel, {object, object}, 5, {});
  ASSERT_EQ(both.size(), 2u);
  for (const auto& r : both) {
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.seconds.size(), 5u);
    EXPECT_GT(r.median_seconds, 0.0);
    EXPECT_EQ(r.costs.readings, 2 + 10);  // the session's probe of each object, then 5 each
    EXPECT_GT(r.costs.timed, 0.0);
    EXPECT_GT(r.round_trip_seconds, 0.0);
    EXPECT_LT(r.round_trip_seconds, r.median_seconds);
  }
  EXPECT_LT(both[0].median_seconds / both[1].median_seconds, 2.0);
  EXPECT_GT(both[0].median_seconds / both[1].median_seconds, 0.5);

  // One object that cannot load: every result carries the failure.
  const auto failed = time_side_by_side(*kernel, {object, cache.path() / "missing.so"}, 3, {});
  ASSERT_EQ(failed.size(), 2u);
  for (const auto& r : failed) {
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.failure.status, CallResult::Status::kLoadFailed) << r.failure.describe();
    EXPECT_EQ(r.median_seconds, 0.0);
  }
}

TEST(CpuTiming, EveryTimedCallSeesInputsThatNoEarlierCallSaw) {
  const KernelContract* kernel = find_kernel("attn_out");
  InputSets sets(*kernel, 3, 4);
  auto writable = sets.new_writable_block();
  auto first = sets.view(1, writable->data());
  const size_t attn = first->index_of("attn");
  const size_t weights = first->index_of("o_weight");
  const std::vector<std::byte> base_attn(first->bytes(attn).begin(), first->bytes(attn).end());
  const std::vector<std::byte> base_weights(first->bytes(weights).begin(),
                                            first->bytes(weights).end());
  sets.prepare(1, 11, writable->data());
  const std::vector<std::byte> patched_attn(first->bytes(attn).begin(), first->bytes(attn).end());
  size_t changed_pages = 0;
  for (size_t page = 0; page < base_weights.size() / kPageBytes; ++page) {
    changed_pages += std::memcmp(base_weights.data() + page * kPageBytes,
                                 first->bytes(weights).data() + page * kPageBytes, kPageBytes) != 0;
  }
  EXPECT_NE(patched_attn, base_attn);
  EXPECT_GE(changed_pages, 8u);
  EXPECT_LE(changed_pages, static_cast<size_t>(kSwappedPages));
  // The output region is poisoned, the same patch seed gives the same inputs, restore undoes it.
  for (uint16_t v : first->as<uint16_t>("residual")) ASSERT_NE(v, 0u);
  sets.restore(1, 11);
  EXPECT_TRUE(std::equal(base_weights.begin(), base_weights.end(), first->bytes(weights).begin()));
  EXPECT_TRUE(std::equal(base_attn.begin(), base_attn.end(), first->bytes(attn).begin()));
  sets.prepare(1, 11, writable->data());
  EXPECT_TRUE(std::equal(patched_attn.begin(), patched_attn.end(), first->bytes(attn).begin()));
  sets.restore(1, 11);
  sets.prepare(1, 12, writable->data());
  EXPECT_FALSE(std::equal(patched_attn.begin(), patched_attn.end(), first->bytes(attn).begin()));
}

}  // namespace
}  // namespace headway::cpu

namespace headway::cpu {
namespace {

TEST(CpuTiming, ASetIsColdWhenItsTurnComesAgain) {
  // What a timed call meets: its set was last read a full rotation ago, with every other set
  // read since. Its lines must come from memory: far slower than lines of a set just read. Up
  // to three measurements, judged by the clearest: another process on the machine can evict the
  // set just read before its walk (seen once under ctest -j2), but no neighbour makes a
  // rotation that keeps sets warm look cold three times.
  ColdInputs cold = measure_cold_inputs(*find_kernel("attn_out"));
  for (int again = 0; again < 2 && cold.cold_ns <= 1.5 * cold.warm_ns; ++again) {
    const ColdInputs next = measure_cold_inputs(*find_kernel("attn_out"));
    if (next.cold_ns / next.warm_ns > cold.cold_ns / cold.warm_ns) cold = next;
  }
  EXPECT_GT(cold.cold_ns, 1.5 * cold.warm_ns) << cold.method;
  EXPECT_GE(static_cast<uint64_t>(cold.sets - 1) * cold.set_bytes, cold.cold_bytes);
  EXPECT_NE(cold.method.find("attn_out"), std::string::npos);
}

}  // namespace
}  // namespace headway::cpu
