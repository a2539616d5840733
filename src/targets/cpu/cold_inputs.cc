#include "targets/cpu/cold_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "common/cache_sizes.h"
#include "common/rng.h"
#include "kernels/input_sets.h"
#include "targets/cpu/runner_host.h"
#include "targets/cpu/timed_session.h"

namespace headway::cpu {

namespace {

constexpr int kLoads = 4000;
// The walks stay in the last MiB of a set: what a full read left most recently in the caches,
// and few enough pages that the TLB holds them all (the walk then times the caches, not page
// walks).
constexpr size_t kWalkBytes = 1 << 20;

}  // namespace

double dependent_load_ns(const std::byte* block, size_t bytes, uint64_t seed) {
  Rng rng(seed);
  std::vector<size_t> offsets(kLoads);
  for (auto& o : offsets) o = rng.below(bytes / 64) * 64;
  uint64_t chain = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kLoads; ++i) {
    chain += static_cast<uint64_t>(block[(offsets[static_cast<size_t>(i)] + (chain & 1)) % bytes]);
  }
  const auto t1 = std::chrono::steady_clock::now();
  volatile uint64_t sink = chain;
  (void)sink;
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / kLoads;
}

namespace {

uint64_t read_all(const std::byte* p, size_t bytes) {
  uint64_t sum = 0;
  const auto* words = reinterpret_cast<const uint64_t*>(p);
  for (size_t i = 0; i < bytes / 8; i += 8) sum += words[i];
  return sum;
}

}  // namespace

ColdInputs measure_cold_inputs(const KernelContract& kernel) {
  ColdInputs r;
  r.set_bytes = InputSets::input_block_bytes(kernel);
  r.cold_bytes = 2 * last_level_cache_bytes();
  r.sets = input_sets_for(r.set_bytes, r.cold_bytes,
                          1 + max_calls_per_reading(r.set_bytes, InputSets::slot_bytes_of(kernel)));
  InputSets sets(kernel, 1, r.sets);
  const std::byte* base = sets.memory().data();
  auto set = [&](int s) { return base + r.set_bytes * static_cast<size_t>(s); };
  // Set 0's turn comes after every other set; then set 0 again at once, warm.
  uint64_t sink = read_all(set(0), r.set_bytes);
  for (int s = 1; s < r.sets; ++s) sink += read_all(set(s), r.set_bytes);
  const size_t walk = std::min<size_t>(kWalkBytes, r.set_bytes);
  const size_t tail = r.set_bytes - walk;
  r.cold_ns = dependent_load_ns(set(0) + tail, walk, 7);
  sink += read_all(set(1), r.set_bytes);
  r.warm_ns = dependent_load_ns(set(1) + tail, walk, 7);
  volatile uint64_t keep = sink;
  (void)keep;
  r.method = fmt::format(
      "{} dependent random loads into the last MiB of one of {} input sets of {} MiB ({}) when its "
      "turn comes after {} MiB of other sets (twice the largest cache the OS reports); {:.1f} ns "
      "into a set just read",
      kLoads, r.sets, r.set_bytes >> 20, kernel.name(), r.cold_bytes >> 20, r.warm_ns);
  return r;
}

}  // namespace headway::cpu
