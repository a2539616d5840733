#pragma once
// The inputs of timed calls: several copies ("sets") of one input block at different addresses
// in shared memory, used in rotation so that a set's weights have left the caches by the time
// it is used again, and changed unpredictably before every timed call so that no call can be
// answered from an earlier one:
//   - every small input region (at most kSmallRegionBytes: activations, scales, norms, scalars)
//     and every in/out region is redrawn word by word, each 4-byte word taken from one of two
//     independent draws of the inputs (a secret coin per word);
//   - in every large input region (the weights) kSwappedPages random pages are taken from the
//     second draw.
// A patch is a function of its seed, so that a call can be checked against the reference later.
#include <cstdint>
#include <memory>
#include <vector>

#include "common/shared_memory.h"
#include "kernels/contract.h"

namespace headway::cpu {

inline constexpr size_t kSmallRegionBytes = 64 << 10;
inline constexpr int kSwappedPages = 16;

class InputSets {
 public:
  // Draws the inputs of `seed` (the base) and of a second seed derived from it, and lays out
  // `sets` copies of the base input block (at least 2). Throws std::runtime_error when the
  // memory cannot be had.
  InputSets(const KernelContract& kernel, uint64_t seed, int sets);

  const KernelContract& kernel() const { return kernel_; }
  const SharedMemory& memory() const { return *memory_; }
  size_t set_bytes() const { return set_bytes_; }
  int count() const { return sets_; }
  // The view of set `set` with the writable block at `writable`.
  std::unique_ptr<SharedBuffers> view(int set, std::byte* writable) const;
  // A writable block in shared memory of `slots` slots (runner::writable_slot_bytes apart), each
  // of this kernel's layout with its in/out regions holding the base draw.
  std::unique_ptr<SharedMemory> new_writable_block(int slots = 1) const;
  // Bytes from one slot of a writable block to the next.
  size_t slot_bytes() const;

  // Applies the patch of `patch_seed` to set `set` and to the in/out regions of `writable`,
  // poisons the output regions, and flushes every line it wrote from the caches.
  void prepare(int set, uint64_t patch_seed, std::byte* writable);
  // Puts set `set` back to the base draw (after prepare).
  void restore(int set, uint64_t patch_seed);
  // The byte ranges of a set's input block that prepare and restore with `patch_seed` write, as
  // (offset in the set, bytes): every small input region and every swapped page. What a copy of
  // the set elsewhere (a device's) must take over to follow the patch.
  std::vector<std::pair<size_t, size_t>> patched_ranges(uint64_t patch_seed) const;
  // Bytes a set occupies (the kernel's input block).
  static size_t input_block_bytes(const KernelContract& kernel);

 private:
  struct Patch {
    std::vector<std::pair<size_t, std::vector<uint64_t>>>
        pages;  // large input region, page numbers
  };
  Patch draw_patch(uint64_t patch_seed) const;
  std::byte* set_base(int set) const {
    return memory_->data() + set_bytes_ * static_cast<size_t>(set);
  }

  const KernelContract& kernel_;
  std::vector<RegionSpec> specs_;
  BufferLayout layout_;
  size_t set_bytes_;
  int sets_;
  std::unique_ptr<SharedMemory> memory_;
  std::unique_ptr<SharedBuffers> base_, alt_;  // the two draws (owned, private to headway)
};

// Writes every cache line of [data, data + bytes) back to memory and out of every cache.
void flush_lines(const std::byte* data, size_t bytes);

}  // namespace headway::cpu
