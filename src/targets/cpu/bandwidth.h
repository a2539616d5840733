#pragma once
// Streaming read bandwidth of the host, the denominator of the cpu target's floor.
#include <cstdint>
#include <string>
#include <vector>

namespace headway::cpu {

struct BandwidthAtThreads {
  int threads = 0;
  double median_gbps = 0.0;  // GB/s = 1e9 bytes per second
  double cv = 0.0;           // of the readings
  std::vector<double> gbps;  // every reading
};

struct BandwidthProfile {
  std::vector<BandwidthAtThreads> by_threads;  // 1..max_threads
  double best_gbps = 0.0;                      // the highest median
  int best_threads = 0;
  uint64_t buffer_bytes = 0;
  std::string method;  // how the buffer was read (instruction set) and on what pages
};

// Reads a buffer of max(4 x last-level cache, 256 MiB) with 1..max_threads threads, each
// thread a contiguous share, after one warm-up pass per thread count; `readings` timed passes
// per count. max_threads <= 0 means every online core.
BandwidthProfile measure_read_bandwidth(int max_threads = 0, int readings = 11);

}  // namespace headway::cpu
