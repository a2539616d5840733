#include "targets/cpu/session_inputs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "targets/cpu/host_abi.h"

namespace headway::cpu {

namespace {

// Timed calls per reading, at most; and the input bytes a reading's timed sets may span. The
// window bounds the memory (a session keeps a window of sets, a window of draws and one more
// draw for patches: ffn's 95 MiB sets, six to a window, take about 1.2 GiB); at 512 MiB ffn
// makes five calls a reading, so that its process start, warm-up call and the fixed steps of the
// guard are shared by five calls, not two (docs/PERFORMANCE.md, "Decisions per device-hour").
// A set of at most the window's bytes makes two calls a reading at least (attention at 32,768
// tokens, 257 MiB a set), so that its warm-up call is not as long as the reading's timed calls.
// The count bounds a small kernel's per-reading work (a reading's calls are verified whole the
// first time), so that a kernel of kilobytes makes enough calls a reading for its process start
// and guard to be shared by more than its own few microseconds.
constexpr uint64_t kMaxCallsPerReading = 256;
constexpr uint64_t kWindowBytes = 512ull << 20;
// The writable bytes a reading's slots may span. Every byte of a slot is reset before, flushed
// with and compared after each call: qkv's 8 MiB of cache rows a call took its guard to 12-15 ms
// a reading at 16 calls; at 7 it stays within 10 ms (docs/PERFORMANCE.md).
constexpr uint64_t kSlotWindowBytes = 64ull << 20;

}  // namespace

int input_sets_for(uint64_t set_bytes, uint64_t cold_bytes, int window) {
  const uint64_t w = static_cast<uint64_t>(std::max(window, 1));
  const uint64_t others = (cold_bytes + set_bytes - 1) / std::max<uint64_t>(set_bytes, 1);
  // A window of sets is reused after all the other windows, which must hold the cold traffic;
  // with none asked for (every timed set flushed before its calls), one window serves.
  const uint64_t windows = others == 0 ? 1 : (others + w - 1) / w + 1;
  return static_cast<int>(std::min<uint64_t>(windows * w, std::max<uint64_t>(512, 2 * w)));
}

int max_calls_per_reading(uint64_t set_bytes, uint64_t slot_bytes) {
  const uint64_t fit = std::min(kWindowBytes / std::max<uint64_t>(set_bytes, 1),
                                kSlotWindowBytes / std::max<uint64_t>(slot_bytes, 1));
  const uint64_t least = set_bytes <= kWindowBytes && slot_bytes <= kSlotWindowBytes ? 2 : 1;
  return static_cast<int>(std::clamp<uint64_t>(std::max(fit, least), 1, kMaxCallsPerReading));
}

int calls_per_reading_for(double timed_seconds, double fastest_seconds, uint64_t set_bytes,
                          uint64_t slot_bytes) {
  const double wanted = fastest_seconds > 0.0 ? std::ceil(timed_seconds / fastest_seconds) : 1.0;
  const int most = max_calls_per_reading(set_bytes, slot_bytes);
  return wanted >= most ? most : std::max(1, static_cast<int>(wanted));
}

std::shared_ptr<InputSets> shared_input_sets(const KernelContract& kernel, uint64_t seed, int sets,
                                             int draws) {
  static std::mutex mutex;
  // Keyed on the name and the layout: one kernel's shape sets (kernels/spec_kernel.h) share its
  // name but not its regions.
  static std::map<std::tuple<std::string, std::string, int, int>, std::shared_ptr<InputSets>> kept;
  std::lock_guard lock(mutex);
  auto& entry = kept[{std::string(kernel.name()), encode_regions(kernel.regions()), sets, draws}];
  if (entry && entry.use_count() == 1) return entry;
  auto fresh = std::make_shared<InputSets>(kernel, seed, sets, draws);
  if (!entry || entry.use_count() == 1) entry = fresh;
  return fresh;
}

std::shared_ptr<SharedMemory> shared_writable_block(const InputSets& inputs, int slots) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::string, int>,
                  std::vector<std::shared_ptr<SharedMemory>>>
      kept;
  std::lock_guard lock(mutex);
  auto& blocks = kept[{inputs.kernel_name(), encode_regions(inputs.regions()), slots}];
  for (const auto& block : blocks) {
    if (block.use_count() == 1) return block;
  }
  blocks.push_back(inputs.new_writable_block(slots));
  return blocks.back();
}

}  // namespace headway::cpu
