#pragma once
// Streaming read bandwidth of the host, the denominator of the cpu target's floor. The floor must
// be the fastest way this chip can read the bytes a kernel moves, or a kernel that finds a faster
// one times below its floor: so the bandwidth is the best over thread counts and over several
// readers (plain vector loads, software prefetch at several distances, non-temporal prefetch),
// their readings interleaved so that every reader meets the same spells of a shared host.
#include <cstdint>
#include <string>
#include <vector>

namespace headway::cpu {

struct ReaderReading {
  std::string reader;        // e.g. "prefetcht0 1 KiB ahead"
  double median_gbps = 0.0;  // GB/s = 1e9 bytes per second
  std::vector<double> gbps;  // every reading
};

struct BandwidthAtThreads {
  int threads = 0;
  double median_gbps = 0.0;            // the best reader's median
  double cv = 0.0;                     // of the best reader's readings
  std::vector<double> gbps;            // the best reader's readings
  std::string reader;                  // the best reader
  std::vector<ReaderReading> readers;  // every reader, in bandwidth_reader_names() order
};

struct BandwidthProfile {
  std::vector<BandwidthAtThreads> by_threads;  // 1..max_threads
  double best_gbps = 0.0;                      // the highest median
  int best_threads = 0;
  uint64_t buffer_bytes = 0;
  std::string method;  // the loads' instruction set, the readers, and the pages
};

// The readers measure_read_bandwidth compares, in order.
std::vector<std::string> bandwidth_reader_names();

// Reads a buffer of max(4 x last-level cache, 256 MiB) with 1..max_threads threads, each
// thread a contiguous share, with every reader: per thread count, one warm-up pass per reader,
// then `readings` rounds of one timed pass per reader. max_threads <= 0 means every online core.
BandwidthProfile measure_read_bandwidth(int max_threads = 0, int readings = 11);

}  // namespace headway::cpu
