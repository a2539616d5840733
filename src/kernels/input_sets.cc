#include "kernels/input_sets.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "common/cache_flush.h"
#include "common/rng.h"
#include "common/steps_on_threads.h"
#include "kernels/verify.h"

namespace headway {

size_t InputSets::input_block_bytes(const KernelContract& kernel) {
  return BufferLayout(kernel.regions()).input_bytes;
}

InputSets::InputSets(const KernelContract& kernel, uint64_t seed, int sets, int draws)
    : kernel_name_(kernel.name()),
      specs_(kernel.regions()),
      layout_(specs_),
      set_bytes_(layout_.input_bytes),
      sets_(std::max(sets, 2)) {
  std::random_device entropy;
  memory_ =
      std::make_unique<SharedMemory>("headway-input-sets", set_bytes_ * static_cast<size_t>(sets_),
                                     SharedMemory::Pages::kHugeWherePossible);
  held_.resize(static_cast<size_t>(sets_));
  // Draw d is drawn into set d, so that no set is a copy of a private one (attention's 257 MiB
  // sets at 32,768 tokens: three such copies and their memory).
  draws_.resize(static_cast<size_t>(std::clamp(draws, 1, sets_)));
  std::vector<uint64_t> seeds;
  for (size_t d = 0; d < draws_.size(); ++d) {
    draws_[d].writable = std::make_unique<SharedMemory>("headway-draw", layout_.writable_bytes,
                                                        SharedMemory::Pages::kSmall);
    seeds.push_back(d == 0 ? seed : (uint64_t{entropy()} << 32) ^ entropy());
  }
  // The patch draw is only copied from, never mapped by a runner: small pages, which a hypervisor
  // can back several times faster than fresh 2 MiB ones (docs/PERFORMANCE.md, "Input sets").
  alt_ = std::make_unique<SharedBuffers>(specs_, SharedMemory::Pages::kSmall);
  seeds.push_back(mix_seed(seed, 0x5e75));
  // The draws are independent: each core of the host draws some (attention's 256 MiB caches at
  // 32,768 tokens take about half a second a draw).
  for_each_step_on(static_cast<int>(seeds.size()),
                   static_cast<int>(std::max(1u, std::thread::hardware_concurrency())),
                   [&](int d, int) {
                     const auto i = static_cast<size_t>(d);
                     if (i == draws_.size()) {
                       kernel.generate(seeds[i], *alt_);
                     } else {
                       kernel.generate(seeds[i], *view(d, draws_[i].writable->data()));
                     }
                   });
  const auto drawn = static_cast<int>(draws_.size());
  for (int s = drawn; s < sets_; ++s) std::memcpy(set_base(s), set_base(s % drawn), set_bytes_);
  for (size_t d = 0; d < draws_.size(); ++d) {
    draws_[d].small.resize(specs_.size());
    for (size_t r = 0; r < specs_.size(); ++r) {
      if (specs_[r].role != RegionRole::kInput || specs_[r].bytes > kSmallRegionBytes) continue;
      const std::byte* at = set_base(static_cast<int>(d)) + layout_.offset[r];
      draws_[d].small[r].assign(at, at + specs_[r].bytes);
    }
  }
}

std::span<const std::byte> InputSets::drawn_bytes(int set, size_t region) const {
  const Draw& d = draws_[static_cast<size_t>(set) % draws_.size()];
  if (layout_.in_inputs[region]) return d.small[region];
  return {d.writable->data() + layout_.offset[region], specs_[region].bytes};
}

std::unique_ptr<SharedBuffers> InputSets::view(int set, std::byte* writable) const {
  return std::make_unique<SharedBuffers>(specs_, set_base(set), writable);
}

size_t InputSets::slot_bytes() const { return writable_slot_bytes(layout_.writable_bytes); }

size_t InputSets::slot_bytes_of(const KernelContract& kernel) {
  return writable_slot_bytes(BufferLayout(kernel.regions()).writable_bytes);
}

std::unique_ptr<SharedMemory> InputSets::new_writable_block(int slots) const {
  constexpr size_t kHugePage = 2 << 20;
  const size_t bytes = slot_bytes() * static_cast<size_t>(std::max(slots, 1));
  auto block = std::make_unique<SharedMemory>(
      "headway-outputs", bytes,
      bytes >= kHugePage ? SharedMemory::Pages::kHugeWherePossible : SharedMemory::Pages::kSmall);
  reset_writable(*block);
  return block;
}

void InputSets::reset_writable(const SharedMemory& block) const {
  for (size_t k = 0; k < block.size() / slot_bytes(); ++k) reset_writable_slot(block, k);
  reset_writable_tail(block);
}

namespace {

constexpr std::byte kZeros[kResetChunkBytes] = {};

// Makes `to` equal `from` (nullptr: zeros) by rewriting only the chunks that differ: a slot a
// call wrote in a few places is read, not rewritten, so its other lines stay clean (a later flush
// writes nothing back) and its reset costs a read of the slot instead of a read, an ownership
// read and a write.
void rewrite_where_different(std::byte* to, const std::byte* from, size_t bytes) {
  for (size_t at = 0; at < bytes; at += kResetChunkBytes) {
    const size_t n = std::min(kResetChunkBytes, bytes - at);
    const std::byte* want = from ? from + at : kZeros;
    if (std::memcmp(to + at, want, n) != 0) std::memcpy(to + at, want, n);
  }
}

}  // namespace

void InputSets::reset_writable_slot(const SharedMemory& block, size_t k) const {
  std::byte* slot = block.data() + slot_bytes() * k;
  rewrite_where_different(slot, draws_[0].writable->data(), layout_.writable_bytes);
  rewrite_where_different(slot + layout_.writable_bytes, nullptr,
                          slot_bytes() - layout_.writable_bytes);
}

void InputSets::reset_writable_tail(const SharedMemory& block) const {
  const size_t used = block.size() / slot_bytes() * slot_bytes();
  rewrite_where_different(block.data() + used, nullptr, block.size() - used);
}

InputSets::ByteRanges InputSets::changed_ranges(std::span<const std::byte* const> slots) const {
  const std::byte* made = draws_[0].writable->data();
  const size_t written = layout_.writable_bytes;
  ByteRanges ranges;
  for (size_t at = 0; at < slot_bytes(); at += kResetChunkBytes) {
    const size_t n = std::min(kResetChunkBytes, slot_bytes() - at);
    // A chunk may straddle the end of the regions: the made bytes, then zeros.
    const size_t from_made = at < written ? std::min(n, written - at) : 0;
    const bool changed = std::any_of(slots.begin(), slots.end(), [&](const std::byte* slot) {
      return std::memcmp(slot + at, made + at, from_made) != 0 ||
             std::memcmp(slot + at + from_made, kZeros, n - from_made) != 0;
    });
    if (!changed) continue;
    if (!ranges.empty() && ranges.back().second == at) {
      ranges.back().second = at + n;
    } else {
      ranges.emplace_back(at, at + n);
    }
  }
  return ranges;
}

void InputSets::reset_ranges(std::byte* slot, const ByteRanges& ranges) const {
  const std::byte* made = draws_[0].writable->data();
  const size_t written = layout_.writable_bytes;
  for (const auto& [begin, end] : ranges) {
    const size_t made_end = std::max(begin, std::min(end, written));  // then zeros to `end`
    if (begin < made_end) std::memcpy(slot + begin, made + begin, made_end - begin);
    std::memset(slot + made_end, 0, end - made_end);
  }
}

std::pair<size_t, size_t> Share::of_units(size_t count, size_t align) const {
  const size_t a = std::max<size_t>(align, 1);
  const size_t blocks = (count + a - 1) / a;
  const auto n = static_cast<size_t>(std::max(of, 1));
  const auto i = static_cast<size_t>(std::clamp(index, 0, std::max(of, 1) - 1));
  return {std::min(count, blocks * i / n * a), std::min(count, blocks * (i + 1) / n * a)};
}

InputSets::Patch InputSets::draw_patch(uint64_t patch_seed) const {
  Patch patch;
  draw_patch(patch_seed, patch);
  return patch;
}

void InputSets::draw_patch(uint64_t patch_seed, Patch& patch) const {
  patch.seed = patch_seed;
  size_t regions = 0;
  Rng rng(mix_seed(patch_seed, 1));
  // Each line with probability 1/n: the gaps between chosen lines are geometric.
  const double log_keep = std::log1p(-1.0 / static_cast<double>(kPatchedLineOneIn));
  size_t total = 0;
  for (size_t r = 0; r < specs_.size(); ++r) {
    if (specs_[r].role != RegionRole::kInput || specs_[r].bytes <= kSmallRegionBytes) continue;
    const uint64_t lines = (specs_[r].bytes + kLineBytes - 1) / kLineBytes;
    if (patch.lines.size() == regions) patch.lines.emplace_back();
    auto& [region, chosen] = patch.lines[regions++];
    region = r;
    chosen.clear();
    chosen.reserve(lines / kPatchedLineOneIn + 16);
    for (double line = std::floor(std::log1p(-rng.uniform()) / log_keep);
         line < static_cast<double>(lines);
         line += 1 + std::floor(std::log1p(-rng.uniform()) / log_keep)) {
      chosen.push_back(static_cast<uint64_t>(line));
    }
    total += chosen.size();
  }
  patch.lines.resize(regions);
  patch.saved.resize(total * kLineBytes);
}

void InputSets::prepare(int set, uint64_t patch_seed, std::byte* writable) {
  Held& held = held_.at(static_cast<size_t>(set));
  if (held.holding && held.patch.seed != patch_seed) restore(set, held.patch.seed);
  if (!held.holding) {
    draw_patch(patch_seed, held.patch);
    patch_lines(set, held.patch, {});
    held.holding = true;
  }
  prepare_regions(set, patch_seed, writable, {});
}

void InputSets::prepare(int set, uint64_t patch_seed, Patch& patch, std::byte* writable,
                        Share share) {
  prepare_regions(set, patch_seed, writable, share);
  patch_lines(set, patch, share);
}

void InputSets::prepare_regions(int set, uint64_t patch_seed, std::byte* writable, Share share) {
  auto target = view(set, writable);
  // A coin per word, 64 words to a draw of the coins' stream: block b of region r takes its
  // coins from stream (r, b), so that each share draws its own blocks' coins.
  const uint64_t coins = mix_seed(patch_seed, 2);
  constexpr size_t kWordsPerBlock = 64;
  for (size_t r = 0; r < specs_.size(); ++r) {
    const RegionSpec& spec = specs_[r];
    auto out = target->bytes(r);
    if (spec.role == RegionRole::kOutput) {
      if (share.index == 0) {
        fill_poison(spec.element, out.data(), out.size() * 8 / element_bits(spec.element));
      }
    } else if ((spec.role == RegionRole::kInput && spec.bytes <= kSmallRegionBytes) ||
               spec.role == RegionRole::kInOut) {
      const std::byte* a = drawn_bytes(set, r).data();
      const std::byte* b = alt_->bytes(r).data();
      const size_t whole = spec.bytes / 4;
      const auto [begin, end] = share.of_units(whole, kWordsPerBlock);
      uint64_t bits = 0;
      for (size_t w = begin; w < end; ++w) {
        if (w % kWordsPerBlock == 0)
          bits = mix_seed(coins, (uint64_t{r} << 40) | (w / kWordsPerBlock));
        uint32_t from_a, from_b;
        std::memcpy(&from_a, a + w * 4, 4);
        std::memcpy(&from_b, b + w * 4, 4);
        const uint32_t word = (bits >> (w % kWordsPerBlock)) & 1 ? from_b : from_a;
        std::memcpy(out.data() + w * 4, &word, 4);
      }
      const size_t tail = spec.bytes - whole * 4;
      const bool owns_tail = whole == 0 ? share.index == 0 : begin < end && end == whole;
      if (tail > 0 && owns_tail) {
        const uint64_t last = mix_seed(coins, (uint64_t{r} << 40) | (whole / kWordsPerBlock));
        const std::byte* from = (last >> (whole % kWordsPerBlock)) & 1 ? b : a;
        std::memcpy(out.data() + whole * 4, from + whole * 4, tail);
      }
    }
  }
}

namespace {

// Calls copy(i, at, n) for the share `share` of the lines of region `lines` (the `first`-th
// line of the patch is its first), `at` a line's offset in the region and `n` its bytes there,
// with the lines `kAhead` further on prefetched in `ahead` (each copy misses every cache: loads
// and stores issued a few lines ahead keep those misses in flight together; an ffn set's patch
// and restore: 1.0-1.1 ms without, 0.35-0.38 with, EPYC; kernels/input_sets_bench.cc).
template <class Copy, class Ahead>
void each_patched_line(const std::vector<uint64_t>& lines, size_t region_bytes, Share share,
                       const Ahead& ahead, const Copy& copy) {
  constexpr size_t kAhead = 16;
  const auto [begin, end] = share.of_units(lines.size());
  for (size_t i = begin; i < end; ++i) {
    if (i + kAhead < end) ahead(lines[i + kAhead] * kLineBytes);
    const size_t at = lines[i] * kLineBytes;
    copy(i, at, std::min(kLineBytes, region_bytes - at));
  }
}

}  // namespace

void InputSets::patch_lines(int set, Patch& patch, Share share) {
  std::byte* saved = patch.saved.data();
  for (const auto& [r, lines] : patch.lines) {
    const std::byte* source = alt_->bytes(r).data();
    std::byte* out = set_base(set) + layout_.offset[r];
    each_patched_line(
        lines, specs_[r].bytes, share,
        [&](size_t at) {
          __builtin_prefetch(source + at, 0);
          __builtin_prefetch(out + at, 1);
        },
        [&](size_t i, size_t at, size_t n) {
          std::memcpy(saved + i * kLineBytes, out + at, n);
          std::memcpy(out + at, source + at, n);
        });
    saved += lines.size() * kLineBytes;
  }
}

void InputSets::unpatch_lines(int set, const Patch& patch, Share share) {
  const std::byte* saved = patch.saved.data();
  for (const auto& [r, lines] : patch.lines) {
    std::byte* out = set_base(set) + layout_.offset[r];
    each_patched_line(
        lines, specs_[r].bytes, share, [&](size_t at) { __builtin_prefetch(out + at, 1); },
        [&](size_t i, size_t at, size_t n) { std::memcpy(out + at, saved + i * kLineBytes, n); });
    saved += lines.size() * kLineBytes;
  }
}

void InputSets::flush(int set, const std::byte* writable, Share share) const {
  const auto [begin, end] = share.of_units(set_bytes_, kLineBytes);
  flush_lines(set_base(set) + begin, end - begin);
  const auto [wbegin, wend] = share.of_units(layout_.writable_bytes, kLineBytes);
  flush_lines(writable + wbegin, wend - wbegin);
}

void InputSets::restore(int set, uint64_t /*patch_seed*/) {
  Held& held = held_.at(static_cast<size_t>(set));
  restore_regions(set, {});
  if (held.holding) unpatch_lines(set, held.patch, {});
  held.holding = false;
}

void InputSets::restore(int set, const Patch& patch, Share share) {
  restore_regions(set, share);
  unpatch_lines(set, patch, share);
}

void InputSets::restore_regions(int set, Share share) {
  std::byte* block = set_base(set);
  for (size_t r = 0; r < specs_.size(); ++r) {
    if (specs_[r].role != RegionRole::kInput || specs_[r].bytes > kSmallRegionBytes) continue;
    const auto [begin, end] = share.of_units(specs_[r].bytes, kLineBytes);
    std::memcpy(block + layout_.offset[r] + begin, drawn_bytes(set, r).data() + begin, end - begin);
  }
}

std::vector<std::pair<size_t, size_t>> InputSets::patched_ranges() const {
  std::vector<std::pair<size_t, size_t>> ranges;
  for (size_t r = 0; r < specs_.size(); ++r) {
    if (specs_[r].role == RegionRole::kInput)
      ranges.emplace_back(layout_.offset[r], specs_[r].bytes);
  }
  return ranges;
}

}  // namespace headway
