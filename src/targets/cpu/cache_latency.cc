#include "targets/cpu/cache_latency.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <new>
#include <numeric>

#include "common/rng.h"
#include "common/stats.h"

namespace headway::cpu {

namespace {

constexpr uint64_t kLine = 64;
constexpr uint64_t kMinBytes = 4096;
constexpr uint64_t kHugePage = 2ull << 20;
constexpr int kRuns = 3;
constexpr double kRunSeconds = 2e-3;  // per timed run: slow (memory) loads get fewer hops
constexpr uint64_t kMinHops = 4096;
constexpr uint64_t kMaxWarmHops = 32768;

struct alignas(64) Node {
  const Node* next;
  char pad[kLine - sizeof(const Node*)];
};
static_assert(sizeof(Node) == kLine);

// Follows `hops` (a multiple of 8) dependent loads from p; returns where it stopped.
const Node* chase(const Node* p, uint64_t hops) {
  for (uint64_t i = 0; i < hops; i += 8) {
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
  }
  return p;
}

// Links nodes[0..n) into one cycle in the order of a random permutation; returns its first node.
const Node* link_cycle(Node* nodes, uint64_t n, Rng& rng, std::vector<uint32_t>& order) {
  order.resize(n);
  std::iota(order.begin(), order.end(), 0u);
  for (uint64_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  for (uint64_t i = 0; i + 1 < n; ++i) nodes[order[i]].next = &nodes[order[i + 1]];
  nodes[order[n - 1]].next = &nodes[order[0]];
  return &nodes[order[0]];
}

}  // namespace

std::vector<CacheLevel> infer_cache_levels(std::span<const LatencyPoint> curve,
                                           const InferOptions& options) {
  std::vector<CacheLevel> levels;
  if (curve.empty()) return levels;
  std::vector<double> plateau{curve[0].ns};
  size_t last = 0;  // the plateau's largest point
  for (size_t i = 1; i < curve.size(); ++i) {
    const double limit = options.rise * median(plateau);
    if (curve[i].ns <= limit) {
      plateau.push_back(curve[i].ns);
      last = i;
      continue;
    }
    bool persistent = true;
    for (size_t j = i + 1;
         j < curve.size() && j <= i + static_cast<size_t>(std::max(options.confirm, 0)); ++j) {
      if (curve[j].ns <= limit) persistent = false;
    }
    if (!persistent) continue;  // an outlier: neither on the plateau nor a step
    if (plateau.size() >= static_cast<size_t>(std::max(options.min_points, 1))) {
      levels.push_back({curve[last].bytes, median(plateau)});
    }
    plateau.assign(1, curve[i].ns);
    last = i;
  }
  return levels;
}

CacheLatencySweep measure_cache_latency(uint64_t max_bytes, uint64_t hops, uint64_t seed) {
  using Clock = std::chrono::steady_clock;
  max_bytes = std::clamp<uint64_t>(max_bytes, kMinBytes, uint64_t{1} << 38);  // uint32 node indices
  hops = std::max<uint64_t>(hops / 8 * 8, 8);
  const uint64_t alloc = (max_bytes + kHugePage - 1) / kHugePage * kHugePage;
  auto* nodes = static_cast<Node*>(std::aligned_alloc(kHugePage, alloc));
  if (!nodes) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  madvise(nodes, alloc, MADV_HUGEPAGE);  // advice only: fewer TLB misses blurring the steps
#endif
  Rng rng(seed);
  std::vector<uint32_t> order;
  CacheLatencySweep sweep;
  volatile uintptr_t sink = 0;
  for (uint64_t base = kMinBytes; base <= max_bytes; base *= 2) {
    for (const uint64_t bytes : {base, base + base / 2}) {
      if (bytes > max_bytes) break;
      const uint64_t n = bytes / kLine;
      const Node* p = link_cycle(nodes, n, rng, order);
      // Warm-up: a lap (capped) brings the set into the caches and TLB and estimates the latency,
      // which sets the loads per run: about kRunSeconds, at most `hops`.
      const uint64_t warm = std::min(n / 8 * 8 + 8, kMaxWarmHops);
      auto t0 = Clock::now();
      p = chase(p, warm);
      const double est =
          std::chrono::duration<double>(Clock::now() - t0).count() / static_cast<double>(warm);
      const uint64_t h = std::clamp<uint64_t>(
          static_cast<uint64_t>(kRunSeconds / std::max(est, 1e-10)) / 8 * 8, kMinHops, hops);
      double best = 0.0;
      for (int run = 0; run < kRuns; ++run) {
        t0 = Clock::now();
        p = chase(p, h);
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (run == 0 || s < best) best = s;
      }
      sink = sink + reinterpret_cast<uintptr_t>(p);
      sweep.curve.push_back({bytes, best * 1e9 / static_cast<double>(h)});
    }
  }
  std::free(nodes);
  sweep.levels = infer_cache_levels(sweep.curve);
  sweep.memory_ns = sweep.curve.back().ns;
  sweep.method = fmt::format(
      "pointer chase of a random cyclic permutation of 64 B nodes, {} KiB..{} MiB at 2 sizes per "
      "octave, "
      "huge pages advised, fastest of {} runs of up to {} loads (about {:.0f} ms each)",
      kMinBytes >> 10, max_bytes >> 20, kRuns, hops, kRunSeconds * 1e3);
  return sweep;
}

}  // namespace headway::cpu
