#pragma once
// The load-to-use latency of the host's memory hierarchy by working-set size, from a
// pointer-chasing sweep, and the cache levels inferred from the steps of that curve, beside what
// the OS reports.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace headway::cpu {

struct LatencyPoint {
  uint64_t bytes = 0;  // working-set size
  double ns = 0.0;     // nanoseconds per dependent load
};

struct CacheLevel {
  uint64_t bytes = 0;  // the largest swept size before latency jumped out of this level's plateau
  double ns = 0.0;     // the median latency of the plateau
};

struct InferOptions {
  double rise = 1.4;   // a point above rise x the plateau's median latency leaves the plateau...
  int confirm = 2;     // ...when the next `confirm` points (those there are) are above it too;
                       // a lone high point is an outlier and is skipped
  int min_points = 3;  // plateaus with fewer points (an octave at two sizes per octave) are
                       // transitions between levels, not levels
};

// Cache levels of a latency curve, smallest first. `curve` must be sorted by size. A level is a
// plateau (points within rise x its median) that the curve leaves upwards for good; the last
// plateau, which the curve never leaves, is memory and is not a level. A flat curve has none.
// Pure: tests feed it synthetic curves.
std::vector<CacheLevel> infer_cache_levels(std::span<const LatencyPoint> curve,
                                           const InferOptions& options = {});

struct CacheLatencySweep {
  std::vector<LatencyPoint> curve;  // 4 KiB .. max_bytes, two sizes per octave (2^k, 1.5 x 2^k)
  std::vector<CacheLevel> levels;   // infer_cache_levels(curve)
  double memory_ns = 0.0;           // latency at the largest size
  std::string method;               // one line: how the curve was measured
};

// Chases (max_bytes at most 256 GiB) a random cyclic permutation (seeded; common/rng.h) of 64-byte
// nodes, one node per cache line, in a buffer advised to use huge pages, so that every load depends
// on the one before and no prefetcher can guess it. Each size: a warm-up lap (capped at 32768
// loads) that estimates the latency, then the fastest of 3 timed runs of about 2 ms each (at most
// `hops`, at least 4096 loads). Takes well under a second of CPU time with the defaults.
CacheLatencySweep measure_cache_latency(uint64_t max_bytes = 128ull << 20,
                                        uint64_t hops = 1ull << 18, uint64_t seed = 1);

}  // namespace headway::cpu
