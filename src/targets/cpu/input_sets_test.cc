// What a copy of an input set elsewhere must take over to follow a patch: every byte prepare
// changes lies in patched_ranges, and restore changes only those bytes back.
#include "targets/cpu/input_sets.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace headway::cpu {
namespace {

TEST(InputSets, PatchedRangesCoverEveryByteAPatchChanges) {
  const KernelContract& kernel = *find_kernel("attn_out");
  InputSets sets(kernel, 3, 2);
  auto writable = sets.new_writable_block(1);
  const size_t bytes = sets.set_bytes();
  const std::vector<std::byte> before(sets.view(1, writable->data())->input_block(),
                                      sets.view(1, writable->data())->input_block() + bytes);
  const uint64_t patch = 77;
  sets.prepare(1, patch, writable->data());
  const std::byte* after = sets.view(1, writable->data())->input_block();
  std::vector<bool> covered(bytes, false);
  for (const auto& [offset, length] : sets.patched_ranges(patch)) {
    ASSERT_LE(offset + length, bytes);
    std::fill(covered.begin() + static_cast<long>(offset),
              covered.begin() + static_cast<long>(offset + length), true);
  }
  size_t changed = 0;
  for (size_t i = 0; i < bytes; ++i) {
    if (before[i] != after[i]) {
      ++changed;
      ASSERT_TRUE(covered[i]) << "byte " << i << " changed outside the patched ranges";
    }
  }
  EXPECT_GT(changed, 0u);
  // A different patch swaps other pages.
  EXPECT_NE(sets.patched_ranges(patch), sets.patched_ranges(patch + 1));
  sets.restore(1, patch);
  EXPECT_EQ(std::memcmp(before.data(), sets.view(1, writable->data())->input_block(), bytes), 0);
}

}  // namespace
}  // namespace headway::cpu
