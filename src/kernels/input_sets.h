#pragma once
// The inputs of timed calls: several copies ("sets") of input blocks at different addresses in
// shared memory, used in rotation so that a set's weights have left the caches by the time it is
// used again, and changed unpredictably before every timed call so that no call can be answered
// from an earlier one:
//   - set s holds draw s % draws() of the inputs, each an independent draw (draw 0 from the seed,
//     the others from secret seeds) drawn into set s itself and copied into the later sets, so
//     that calls on consecutive sets share no weights: nothing a process kept from one call (the
//     weights, a decoded copy, a fingerprint of its pages) serves the next;
//   - every small input region (at most kSmallRegionBytes: activations, scales, norms, scalars)
//     and every in/out region is redrawn word by word, each 4-byte word taken from one of two
//     draws, the set's own and a second one kept for patches (a secret coin per word);
//   - in every large input region (the weights) each 64-byte line is taken from the second draw
//     with probability 1 / kPatchedLineOneIn, by a secret coin per line: the changed lines can be
//     found only by reading every line, so a copy of the set made before the call (by a thread
//     of the candidate's, while it ran unstopped) saves no reading of it, and one used unread
//     gives wrong outputs.
// A patch is a function of its seed, so that a call can be checked against the reference later.
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "common/shared_memory.h"
#include "kernels/contract.h"

namespace headway {

inline constexpr size_t kSmallRegionBytes = 64 << 10;
inline constexpr size_t kLineBytes = 64;
inline constexpr uint64_t kPatchedLineOneIn = 256;
// Bytes a reset or a search for changes in a writable slot compares at a time.
inline constexpr size_t kResetChunkBytes = 1024;

// Bytes from one slot of a writable block to the next (new_writable_block's, a runner's arm's):
// the layout's writable bytes, whole pages.
inline size_t writable_slot_bytes(size_t writable_bytes) {
  constexpr size_t kPage = 4096;
  return (writable_bytes + kPage - 1) / kPage * kPage;
}

// A part of one operation on an input set that threads may share: the `index`-th of `of` shares,
// each about as large as the others.
struct Share {
  int index = 0;
  int of = 1;
  // The share's part [begin, end) of `count` units, cut at multiples of `align` units.
  std::pair<size_t, size_t> of_units(size_t count, size_t align = 1) const;
};

class InputSets {
 public:
  // Lays out `sets` input blocks (at least 2), draws the inputs `draws` times (at least 1, at
  // most the sets: draw 0 from `seed`, the others from secret seeds) into the first sets and
  // once more for patches (from a seed derived from `seed`), and copies draw s % draws into
  // each later set s. Throws std::runtime_error when the memory cannot be had.
  InputSets(const KernelContract& kernel, uint64_t seed, int sets, int draws = 1);

  // The kernel's name and regions, copied: a process keeps its sets past the contract they were
  // drawn for (targets/cpu/session_inputs.h), so they hold no reference to it.
  const std::string& kernel_name() const { return kernel_name_; }
  const std::vector<RegionSpec>& regions() const { return specs_; }
  const SharedMemory& memory() const { return *memory_; }
  size_t set_bytes() const { return set_bytes_; }
  int count() const { return sets_; }
  int draws() const { return static_cast<int>(draws_.size()); }
  // The view of set `set` with the writable block at `writable`.
  std::unique_ptr<SharedBuffers> view(int set, std::byte* writable) const;
  // A writable block in shared memory of at least `slots` slots (writable_slot_bytes apart), each
  // of this kernel's layout with its in/out regions holding draw 0, on 2 MiB pages where it
  // spans one (so that a process's first touch of it costs a few faults, not one a 4 KiB page).
  std::unique_ptr<SharedMemory> new_writable_block(int slots = 1) const;
  // Bytes from one slot of a writable block to the next.
  size_t slot_bytes() const;
  // Puts every byte of `block` (one new_writable_block made) back as it was made, padding
  // included: nothing a process wrote there reaches the next process that maps it. It is
  // reset_writable_slot of every slot and reset_writable_tail.
  void reset_writable(const SharedMemory& block) const;
  // Puts slot k of `block` back as reset_writable does: slots are independent, so several
  // threads may reset a block's slots at once.
  void reset_writable_slot(const SharedMemory& block, size_t k) const;
  // Puts back the bytes of `block` after its last whole slot.
  void reset_writable_tail(const SharedMemory& block) const;
  // The byte ranges of a slot (offsets in it, sorted, apart) where any of `slots` differs from a
  // slot as reset_writable_slot leaves it, to a chunk of kResetChunkBytes: where calls on the
  // same inputs wrote, or were given something else (outputs poisoned, in/out regions patched).
  using ByteRanges = std::vector<std::pair<size_t, size_t>>;
  ByteRanges changed_ranges(std::span<const std::byte* const> slots) const;
  // Puts `ranges` of `slot` back as reset_writable_slot does: where changed_ranges found every
  // difference, the whole slot is then as made.
  void reset_ranges(std::byte* slot, const ByteRanges& ranges) const;

  // The secret lines of a patch: for each large input region, the lines taken from the patch
  // draw. A function of the patch seed; drawn once, it serves the patch's prepare and restore.
  struct Patch {
    uint64_t seed = 0;
    std::vector<std::pair<size_t, std::vector<uint64_t>>> lines;  // (region, its line numbers)
    // What prepare found in those lines, in the order of `lines`, kLineBytes a line: what
    // restore puts back.
    std::vector<std::byte> saved;
  };
  Patch draw_patch(uint64_t patch_seed) const;
  // The same into `into`, whose storage it reuses: a patch's lines and saved bytes are 1/256 of
  // its set (ffn: 390 KiB a call), which a reading need not take fresh.
  void draw_patch(uint64_t patch_seed, Patch& into) const;

  // Applies the patch of `patch_seed` to set `set` and to the in/out regions of `writable`,
  // and poisons the output regions. The written lines stay in the caches (flush). The set keeps
  // the patch until restore: prepared again with the same seed its lines stay as they are, with
  // another it is put back first.
  void prepare(int set, uint64_t patch_seed, std::byte* writable);
  // As above, the share `share` of the work only, with the patch's lines drawn beforehand
  // (`patch`, draw_patch(patch_seed)), which keeps what its lines held for restore: the set must
  // be as drawn. The shares of one prepare touch disjoint memory: threads may do them at once,
  // and all of them do what prepare does.
  void prepare(int set, uint64_t patch_seed, Patch& patch, std::byte* writable, Share share);
  // Writes every line of set `set` and of the writable block at `writable` (the share `share` of
  // them) back to memory and out of every cache: all a call on them reads is then cold.
  void flush(int set, const std::byte* writable, Share share = {}) const;
  // Puts set `set` back to its draw after prepare(set, patch_seed, writable), whatever patch
  // it holds then.
  void restore(int set, uint64_t patch_seed);
  // As above, the share `share` of the work, after prepare with `patch`.
  void restore(int set, const Patch& patch, Share share);
  // The byte ranges of a set's input block that prepare and restore may write, whatever the
  // patch, as (offset in the set, bytes): every input region (a large one whole: the lines a
  // patch changes are too many to list). What a copy of the set elsewhere (a device's) must take
  // over to follow a patch.
  std::vector<std::pair<size_t, size_t>> patched_ranges() const;
  // Bytes a set occupies (the kernel's input block).
  static size_t input_block_bytes(const KernelContract& kernel);
  // Bytes from one slot of a writable block to the next, for `kernel` (slot_bytes()).
  static size_t slot_bytes_of(const KernelContract& kernel);

 private:
  // The share `share` of prepare's work on the small input regions, the in/out regions and the
  // outputs.
  void prepare_regions(int set, uint64_t patch_seed, std::byte* writable, Share share);
  // The share `share` of restore's work on the small input regions.
  void restore_regions(int set, Share share);
  // Copies the share `share` of the patch's lines of every large input region of `set` from the
  // patch draw, keeping what they held in patch.saved.
  void patch_lines(int set, Patch& patch, Share share);
  // Puts the share `share` of the patch's lines of `set` back from patch.saved.
  void unpatch_lines(int set, const Patch& patch, Share share);
  std::byte* set_base(int set) const {
    return memory_->data() + set_bytes_ * static_cast<size_t>(set);
  }

  std::string kernel_name_;
  std::vector<RegionSpec> specs_;
  BufferLayout layout_;
  size_t set_bytes_;
  int sets_;
  std::unique_ptr<SharedMemory> memory_;
  // Draw d is set d (the first sets hold one draw each, the others copies of them): what it
  // keeps besides, which a patch rewrites whole, is its writable block and a copy of its small
  // input regions.
  struct Draw {
    std::unique_ptr<SharedMemory> writable;
    std::vector<std::vector<std::byte>> small;  // per region: a small input region's bytes
  };
  // Region `region` (a small input or a writable one) of the draw set `set` holds.
  std::span<const std::byte> drawn_bytes(int set, size_t region) const;
  std::vector<Draw> draws_;
  // The draw patches take from (owned, private to headway).
  std::unique_ptr<SharedBuffers> alt_;
  // Per set: the patch that prepare(set, seed, writable) put there last, and whether the set
  // still holds it (kept when restored, so that its storage serves the next). Threads may prepare
  // and restore different sets at once: each set's flag is a memory location of its own.
  struct Held {
    Patch patch;
    bool holding = false;
  };
  std::vector<Held> held_;
};

}  // namespace headway
