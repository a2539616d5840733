// What a copy of an input set elsewhere must take over to follow a patch: every byte prepare
// changes lies in patched_ranges, and restore changes only those bytes back.
#include "kernels/input_sets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/rng.h"
#include "kernels/contract.h"
#include "kernels/odd_regions_kernel_test_support.h"
#include "targets/cpu/cold_inputs.h"  // a test may include any part: the cpu target's walk

namespace headway {
namespace {

TEST(InputSets, PatchedRangesCoverEveryByteAPatchChanges) {
  const KernelContract& kernel = *builtin_kernel("attn_out");
  InputSets sets(kernel, 3, 2);
  auto writable = sets.new_writable_block(1);
  const size_t bytes = sets.set_bytes();
  const std::vector<std::byte> before(sets.view(1, writable->data())->input_block(),
                                      sets.view(1, writable->data())->input_block() + bytes);
  const uint64_t patch = 77;
  sets.prepare(1, patch, writable->data());
  const std::byte* after = sets.view(1, writable->data())->input_block();
  std::vector<bool> covered(bytes, false);
  for (const auto& [offset, length] : sets.patched_ranges()) {
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
  sets.restore(1, patch);
  EXPECT_EQ(std::memcmp(before.data(), sets.view(1, writable->data())->input_block(), bytes), 0);
}

TEST(InputSets, ConsecutiveSetsHoldIndependentDrawsAndRestoreToTheirOwn) {
  const KernelContract& kernel = *builtin_kernel("attn_out");
  InputSets sets(kernel, 3, 6, 3);
  ASSERT_EQ(sets.draws(), 3);
  auto writable = sets.new_writable_block(1);
  auto weights = [&](int set) {
    auto view = sets.view(set, writable->data());
    const auto w = view->bytes(view->index_of("o_weight"));
    return std::vector<std::byte>(w.begin(), w.end());
  };
  // Sets 0, 1 and 2 share no page of weights; set 3 holds set 0's draw again.
  for (int a = 0; a < 3; ++a) {
    for (int b = a + 1; b < 3; ++b) {
      const auto wa = weights(a), wb = weights(b);
      size_t shared_pages = 0;
      for (size_t p = 0; p + kPageBytes <= wa.size(); p += kPageBytes)
        shared_pages += std::memcmp(wa.data() + p, wb.data() + p, kPageBytes) == 0;
      EXPECT_EQ(shared_pages, 0u) << a << " and " << b;
    }
  }
  EXPECT_EQ(weights(0), weights(3));
  // Draw 0 is the seed's, though the draws are made on several threads at once.
  SharedBuffers seeds_draw(kernel.regions());
  kernel.generate(3, seeds_draw);
  const auto w = seeds_draw.bytes(seeds_draw.index_of("o_weight"));
  EXPECT_EQ(weights(0), std::vector<std::byte>(w.begin(), w.end()));
  // Restoring set 1 after a patch gives back draw 1, not draw 0.
  const auto before = weights(1);
  sets.prepare(1, 5, writable->data());
  EXPECT_NE(weights(1), before);
  sets.restore(1, 5);
  EXPECT_EQ(weights(1), before);
  // A draw lives in a set: no more draws than sets.
  EXPECT_EQ(InputSets(kernel, 3, 2, 5).draws(), 2);
}

// qkv's slot holds its 8 MiB cache, written in a row or two a call: reset rewrites only the parts
// that differ, so bytes written anywhere (first, last, a chunk's edges, padding, the block's tail)
// must all come back, and a slot nobody wrote must stay as it is.
// A set prepared again with the patch it holds keeps it, one restore then puts it back as drawn;
// prepared with another patch while it holds one, it takes the new patch as a set just drawn
// would (a device's server prepares a set again to see what a call was given).
TEST(InputSets, ASetPreparedAgainHoldsOnePatchAndOneRestorePutsItBack) {
  const KernelContract& kernel = *builtin_kernel("attn_out");
  InputSets sets(kernel, 3, 2);  // one draw: set 0 and set 1 alike
  auto writable = sets.new_writable_block(1);
  const size_t bytes = sets.set_bytes();
  const auto block = [&](int set) {
    const std::byte* at = sets.view(set, writable->data())->input_block();
    return std::vector<std::byte>(at, at + bytes);
  };
  const std::vector<std::byte> drawn = block(1);
  ASSERT_EQ(block(0), drawn);
  sets.prepare(1, 7, writable->data());
  const std::vector<std::byte> patched = block(1);
  ASSERT_NE(patched, drawn);
  sets.prepare(1, 7, writable->data());
  EXPECT_EQ(block(1), patched);
  sets.restore(1, 7);
  EXPECT_EQ(block(1), drawn);
  sets.prepare(1, 7, writable->data());
  sets.prepare(1, 8, writable->data());
  sets.prepare(0, 8, writable->data());
  EXPECT_EQ(block(1), block(0)) << "set 1 holds patch 8 alone";
  sets.restore(1, 8);
  sets.restore(0, 8);
  EXPECT_EQ(block(1), drawn);
  EXPECT_EQ(block(0), drawn);
}

TEST(InputSets, AResetSlotIsAsMadeWhereverACallWroteIt) {
  const KernelContract& kernel = *builtin_kernel("qkv");
  InputSets sets(kernel, 4, 2);
  auto block = sets.new_writable_block(2);
  const auto made = sets.new_writable_block(2);
  ASSERT_EQ(block->size(), made->size());
  const size_t slot = sets.slot_bytes();
  const auto as_made = [&] { return std::memcmp(block->data(), made->data(), block->size()) == 0; };
  ASSERT_TRUE(as_made());
  const std::vector<size_t> written{0,    1023,        1024,         5000,     slot - 1,
                                    slot, slot + 4096, 2 * slot - 1, 2 * slot, block->size() - 1};
  for (const size_t at : written) {
    if (at >= block->size()) continue;  // no tail after the slots
    SCOPED_TRACE(at);
    block->data()[at] ^= std::byte{0x5a};
    ASSERT_FALSE(as_made());
    for (size_t k = 0; k < 2; ++k) sets.reset_writable_slot(*block, k);
    sets.reset_writable_tail(*block);
    EXPECT_TRUE(as_made());
  }
  sets.reset_writable(*block);
  EXPECT_TRUE(as_made()) << "a reset of an untouched block changes nothing";
}

// The chunks where either of two slots differs from a slot as made hold every byte either was
// changed at, and nothing else; put back, both slots are as made.
TEST(InputSets, TheChangedRangesOfTwoSlotsHoldEveryChangeAndPutBackMakeThemAsMade) {
  const KernelContract& kernel = *builtin_kernel("qkv");
  InputSets sets(kernel, 4, 2);
  auto block = sets.new_writable_block(2);
  const auto made = sets.new_writable_block(2);
  const size_t slot = sets.slot_bytes();
  std::byte* first = block->data();
  std::byte* second = block->data() + slot;
  const std::byte* both[] = {first, second};
  EXPECT_TRUE(sets.changed_ranges(both).empty()) << "slots as made have changed nowhere";
  // (offset in the first slot, offset in the second): a region's start, a chunk's last byte, the
  // cache rows, the padding after the regions, the slot's last byte.
  const std::vector<std::pair<size_t, size_t>> changes{
      {0, 0}, {1023, 5000}, {kResetChunkBytes, 3 * kResetChunkBytes + 7}, {slot - 1, slot / 2}};
  for (const auto& [in_first, in_second] : changes) {
    SCOPED_TRACE(testing::Message() << in_first << ", " << in_second);
    first[in_first] ^= std::byte{0x5a};
    second[in_second] ^= std::byte{0x33};
    const InputSets::ByteRanges ranges = sets.changed_ranges(both);
    size_t covered = 0;
    for (size_t i = 0; i < ranges.size(); ++i) {
      EXPECT_LT(ranges[i].first, ranges[i].second);
      EXPECT_EQ(ranges[i].first % kResetChunkBytes, 0u);
      if (i > 0) {
        EXPECT_LT(ranges[i - 1].second, ranges[i].first) << "sorted and apart";
      }
      covered += ranges[i].second - ranges[i].first;
    }
    const auto holds = [&](size_t at) {
      return std::any_of(ranges.begin(), ranges.end(),
                         [&](const auto& r) { return r.first <= at && at < r.second; });
    };
    EXPECT_TRUE(holds(in_first));
    EXPECT_TRUE(holds(in_second));
    EXPECT_LE(covered, 2 * kResetChunkBytes) << "a chunk for each change, no more";
    sets.reset_ranges(first, ranges);
    sets.reset_ranges(second, ranges);
    EXPECT_EQ(std::memcmp(block->data(), made->data(), 2 * slot), 0);
  }
}

TEST(InputSets, AFlushedSetIsReadFromMemory) {
  // A set just read answers dependent loads from a cache; flushed, from memory (several times
  // slower: tens of nanoseconds against a few).
  InputSets sets(*builtin_kernel("attn_out"), 3, 2);
  auto writable = sets.new_writable_block(1);
  const std::byte* set = sets.memory().data();
  constexpr size_t kWalk = 1 << 20;  // few pages: the walk times the caches, not the TLB
  volatile uint64_t sink = 0;
  auto warm_walk = [&] {
    for (size_t i = 0; i < kWalk; i += 64) sink = sink + static_cast<uint64_t>(set[i]);
    return cpu::dependent_load_ns(set, kWalk, 7);
  };
  auto flushed_walk = [&] {
    sets.flush(0, writable->data());
    return cpu::dependent_load_ns(set, kWalk, 7);
  };
  double warm = warm_walk(), flushed = flushed_walk();
  for (int i = 0; i < 4; ++i) {  // best of five, against a busy machine
    warm = std::min(warm, warm_walk());
    flushed = std::min(flushed, flushed_walk());
  }
  EXPECT_GT(flushed, 2.0 * warm) << "flushed " << flushed << " ns, warm " << warm << " ns";
}

TEST(InputSets, EveryTimedCallSeesInputsThatNoEarlierCallSaw) {
  const KernelContract* kernel = builtin_kernel("attn_out");
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
  EXPECT_NE(patched_attn, base_attn);
  // About one weight line in kPatchedLineOneIn changed, each on its own coin: a changed line says
  // nothing of its neighbour, so finding the changed lines takes reading every one.
  const size_t lines = base_weights.size() / kLineBytes;
  std::vector<bool> changed(lines);
  size_t changed_lines = 0, changed_pairs = 0;
  for (size_t line = 0; line < lines; ++line) {
    changed[line] = std::memcmp(base_weights.data() + line * kLineBytes,
                                first->bytes(weights).data() + line * kLineBytes, kLineBytes) != 0;
    changed_lines += changed[line];
    changed_pairs += line > 0 && changed[line] && changed[line - 1];
  }
  const double share = static_cast<double>(changed_lines) / static_cast<double>(lines);
  const double p = 1.0 / kPatchedLineOneIn;  // about 960 of 245,760 lines, sd 31
  EXPECT_NEAR(share, p, 0.1 * p) << changed_lines << " of " << lines;
  // Neighbours both changed about lines * p^2 (3.8) times; lines changed in runs would give
  // hundreds.
  EXPECT_LE(changed_pairs, 20u) << changed_pairs << " neighbouring pairs";
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

TEST(Share, TheSharesOfACountCoverItOnceAtTheirAlignment) {
  for (const size_t count : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{1000}}) {
    for (const int of : {1, 2, 3, 7}) {
      size_t next = 0;
      for (int index = 0; index < of; ++index) {
        const auto [begin, end] = Share{index, of}.of_units(count, 16);
        EXPECT_EQ(begin, next) << count << " in " << of;
        EXPECT_LE(begin, end);
        if (end < count) {
          EXPECT_EQ(end % 16, 0u) << count << " in " << of;
        }
        next = end;
      }
      EXPECT_EQ(next, count) << count << " in " << of;
    }
  }
  // A share out of range is clamped to the nearest, not an empty or a wild range.
  const Share beyond{5, 2}, last{1, 2};
  EXPECT_EQ(beyond.of_units(100), last.of_units(100));
}

// Threads may patch and restore different sets at once (a session's references, a set's calls
// to a thread): every set is then its draw again.
TEST(InputSets, SetsPatchedAndRestoredOnSeveralThreadsAtOnceAreTheirDrawsAgain) {
  const OddRegionsKernel odd;
  constexpr int kSets = 8;
  InputSets sets(odd, 5, kSets, kSets);
  const size_t bytes = sets.set_bytes();
  std::vector<std::vector<std::byte>> drawn;
  for (int s = 0; s < kSets; ++s) {
    const std::byte* at = sets.memory().data() + bytes * static_cast<size_t>(s);
    drawn.emplace_back(at, at + bytes);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      auto writable = sets.new_writable_block(1);
      for (uint64_t round = 1; round <= 2000; ++round) {
        for (int s = t; s < kSets; s += 2) {
          sets.prepare(s, round * 100 + static_cast<uint64_t>(s), writable->data());
          sets.restore(s, round * 100 + static_cast<uint64_t>(s));
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int s = 0; s < kSets; ++s) {
    const std::byte* at = sets.memory().data() + bytes * static_cast<size_t>(s);
    EXPECT_EQ(std::memcmp(at, drawn[static_cast<size_t>(s)].data(), bytes), 0) << "set " << s;
  }
}

TEST(InputSets, APatchDoneInSharesIsThePatchDoneWhole) {
  const OddRegionsKernel odd;
  const std::vector<const KernelContract*> kernels = {&odd, builtin_kernel("attn_out"),
                                                      builtin_kernel("qkv")};
  for (const KernelContract* kernel : kernels) {
    const auto name = std::string(kernel->name());
    InputSets whole(*kernel, 5, 2), shared(*kernel, 5, 2);
    auto whole_slot = whole.new_writable_block(1), shared_slot = shared.new_writable_block(1);
    const size_t bytes = whole.set_bytes();
    auto whole_view = whole.view(1, whole_slot->data());
    auto shared_view = shared.view(1, shared_slot->data());
    const std::vector<std::byte> drawn(shared_view->input_block(),
                                       shared_view->input_block() + bytes);
    for (const int of : {2, 3, 7}) {
      const uint64_t patch = 1234 + static_cast<uint64_t>(of);
      whole.prepare(1, patch, whole_slot->data());
      InputSets::Patch lines = shared.draw_patch(patch);
      // Each share on a slot block of its own: a share that writes outside its part, or misses
      // part of it, leaves a block that differs from the whole prepare's.
      std::vector<std::unique_ptr<SharedMemory>> parts;
      for (int index = 0; index < of; ++index) {
        parts.push_back(shared.new_writable_block(1));
        std::memset(parts.back()->data(), 0xa5, parts.back()->size());
        shared.prepare(1, patch, lines, parts.back()->data(), Share{index, of});
      }
      ASSERT_NE(std::memcmp(drawn.data(), shared_view->input_block(), bytes), 0) << name;
      EXPECT_EQ(std::memcmp(whole_view->input_block(), shared_view->input_block(), bytes), 0)
          << name << " in " << of;
      const size_t slot = whole.slot_bytes();
      std::vector<std::byte> merged(slot, std::byte{0xa5});
      for (const auto& part : parts) {
        for (size_t i = 0; i < slot; ++i) {
          if (part->data()[i] == std::byte{0xa5}) continue;
          EXPECT_EQ(merged[i], std::byte{0xa5}) << name << ": byte " << i << " written twice";
          merged[i] = part->data()[i];
        }
      }
      const auto whole_writable = whole.view(1, whole_slot->data());
      const auto merged_writable = shared.view(1, merged.data());
      for (size_t r = 0; r < kernel->regions().size(); ++r) {
        const RegionRole role = kernel->regions()[r].role;
        if (role != RegionRole::kOutput && role != RegionRole::kInOut) continue;  // prepare's
        const auto a = whole_writable->bytes(r), b = merged_writable->bytes(r);
        EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin())) << name << " region " << r;
      }
      // Flushed and restored in shares, the set is its draw again.
      for (int index = 0; index < of; ++index) {
        shared.flush(1, shared_slot->data(), Share{index, of});
        shared.restore(1, lines, Share{index, of});
      }
      whole.restore(1, patch);
      EXPECT_EQ(std::memcmp(drawn.data(), shared_view->input_block(), bytes), 0) << name;
    }
  }
}

}  // namespace
}  // namespace headway
