#include "targets/cpu/bandwidth.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "common/cache_sizes.h"
#include "common/shared_memory.h"
#include "common/stats.h"
#include "targets/cpu/parallel_readings.h"
#include "targets/cpu/runner_host.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace headway::cpu {

namespace {

#if defined(__AVX2__)
constexpr const char* kMethod = "avx2 256-bit loads, 4 accumulators";
uint64_t read_range(const std::byte* p, size_t n) {
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  for (size_t i = 0; i + 128 <= n; i += 128) {
    a0 = _mm256_add_epi64(a0, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i)));
    a1 = _mm256_add_epi64(a1, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 32)));
    a2 = _mm256_add_epi64(a2, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 64)));
    a3 = _mm256_add_epi64(a3, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 96)));
  }
  const __m256i s = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), s);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}
#else
constexpr const char* kMethod = "64-bit scalar loads, 4 accumulators";
uint64_t read_range(const std::byte* p, size_t n) {
  uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (size_t i = 0; i + 32 <= n; i += 32) {
    uint64_t w[4];
    std::memcpy(w, p + i, 32);
    a0 += w[0];
    a1 += w[1];
    a2 += w[2];
    a3 += w[3];
  }
  return a0 + a1 + a2 + a3;
}
#endif

// Every worker stamps its own start and end (parallel_readings), so a reading spans the earliest
// start to the latest end; the first reading is a warm-up and is dropped.
BandwidthAtThreads measure_at(const std::byte* buffer, size_t bytes, int threads, int readings) {
  std::vector<uint64_t> sinks(static_cast<size_t>(threads) * 8);
  const size_t share = bytes / static_cast<size_t>(threads) / 128 * 128;
  const std::vector<double> seconds = parallel_readings(threads, readings + 1, {}, [&](int t) {
    sinks[static_cast<size_t>(t) * 8] += read_range(buffer + static_cast<size_t>(t) * share, share);
  });
  BandwidthAtThreads result;
  result.threads = threads;
  for (size_t pass = 1; pass < seconds.size(); ++pass) {
    result.gbps.push_back(static_cast<double>(share) * threads / seconds[pass] / 1e9);
  }
  result.median_gbps = median(result.gbps);
  result.cv = coefficient_of_variation(result.gbps);
  return result;
}

}  // namespace

BandwidthProfile measure_read_bandwidth(int max_threads, int readings) {
  if (max_threads <= 0)
    max_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  BandwidthProfile profile;
  profile.buffer_bytes = std::max<uint64_t>(4 * last_level_cache_bytes(), 256ull << 20);
  // On the pages the timed calls' input sets get (SharedMemory::Pages::kHugeWherePossible), so
  // that a floor and the kernels measured against it stream through the same kind of pages.
  SharedMemory memory("headway-bandwidth", profile.buffer_bytes,
                      SharedMemory::Pages::kHugeWherePossible);
  std::byte* buffer = memory.data();
  profile.method = std::string(kMethod) +
                   (memory.huge_page_share() == 1.0 ? ", on 2 MiB pages" : ", on 4 KiB pages");
  // Filled by the threads that will read it.
  std::vector<std::thread> init;
  const size_t share = profile.buffer_bytes / static_cast<size_t>(max_threads);
  for (int t = 0; t < max_threads; ++t) {
    init.emplace_back(
        [&, t] { std::memset(buffer + static_cast<size_t>(t) * share, t + 1, share); });
  }
  for (auto& t : init) t.join();
  for (int threads = 1; threads <= max_threads; ++threads) {
    profile.by_threads.push_back(measure_at(buffer, profile.buffer_bytes, threads, readings));
    if (profile.by_threads.back().median_gbps > profile.best_gbps) {
      profile.best_gbps = profile.by_threads.back().median_gbps;
      profile.best_threads = threads;
    }
  }
  return profile;
}

}  // namespace headway::cpu
