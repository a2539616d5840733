#include "targets/cpu/bandwidth.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <thread>

#include "common/cache_sizes.h"
#include "common/shared_memory.h"
#include "common/stats.h"
#include "targets/cpu/parallel_readings.h"
#include "targets/cpu/runner_host.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace headway::cpu {

namespace {

constexpr int kPrefetchT0 = 0;
constexpr int kPrefetchNta = 1;

// Prefetches the four lines of a 256-byte chunk (nothing where the build has no prefetch).
inline void prefetch_chunk(const std::byte* p, int hint) {
#if defined(__SSE__)
  for (int k = 0; k < 4; ++k) {
    if (hint == kPrefetchNta) {
      _mm_prefetch(reinterpret_cast<const char*>(p + 64 * k), _MM_HINT_NTA);
    } else {
      _mm_prefetch(reinterpret_cast<const char*>(p + 64 * k), _MM_HINT_T0);
    }
  }
#else
  (void)p;
  (void)hint;
#endif
}

// Every reader streams 256 bytes an iteration with the widest loads the build allows, into
// independent accumulators; they differ in the software prefetch ahead of the loads.
#if defined(__AVX512F__)
constexpr const char* kReadLoads = "avx512 512-bit loads";
inline uint64_t read_chunks(const std::byte* p, size_t n, size_t ahead, int hint) {
  __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
  for (size_t i = 0; i + 256 <= n; i += 256) {
    if (ahead && i + ahead + 256 <= n) prefetch_chunk(p + i + ahead, hint);
    a0 = _mm512_add_epi64(a0, _mm512_load_si512(p + i));
    a1 = _mm512_add_epi64(a1, _mm512_load_si512(p + i + 64));
    a2 = _mm512_add_epi64(a2, _mm512_load_si512(p + i + 128));
    a3 = _mm512_add_epi64(a3, _mm512_load_si512(p + i + 192));
  }
  alignas(64) uint64_t lanes[8];
  _mm512_store_si512(lanes, _mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3)));
  uint64_t sum = 0;
  for (uint64_t lane : lanes) sum += lane;
  return sum;
}
#elif defined(__AVX2__)
constexpr const char* kReadLoads = "avx2 256-bit loads";
inline uint64_t read_chunks(const std::byte* p, size_t n, size_t ahead, int hint) {
  __m256i a[8];
  for (auto& v : a) v = _mm256_setzero_si256();
  for (size_t i = 0; i + 256 <= n; i += 256) {
    if (ahead && i + ahead + 256 <= n) prefetch_chunk(p + i + ahead, hint);
    for (int k = 0; k < 8; ++k) {
      a[k] = _mm256_add_epi64(a[k],
                              _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 32 * k)));
    }
  }
  for (int k = 1; k < 8; ++k) a[0] = _mm256_add_epi64(a[0], a[k]);
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), a[0]);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}
#else
constexpr const char* kReadLoads = "64-bit scalar loads";
inline uint64_t read_chunks(const std::byte* p, size_t n, size_t ahead, int hint) {
  uint64_t a[8] = {};
  for (size_t i = 0; i + 256 <= n; i += 256) {
    if (ahead && i + ahead + 256 <= n) prefetch_chunk(p + i + ahead, hint);
    for (int k = 0; k < 32; ++k) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      a[k % 8] += w;
    }
  }
  uint64_t s = 0;
  for (uint64_t v : a) s += v;
  return s;
}
#endif

struct BandwidthReader {
  const char* name;
  size_t ahead;  // bytes between the prefetched chunk and the loaded one; 0: no prefetch
  int hint;      // kPrefetchT0 or kPrefetchNta
};
constexpr BandwidthReader kReaders[] = {
    {"no prefetch", 0, kPrefetchT0},
    {"prefetcht0 1 KiB ahead", 1024, kPrefetchT0},
    {"prefetcht0 4 KiB ahead", 4096, kPrefetchT0},
    {"prefetchnta 1 KiB ahead", 1024, kPrefetchNta},
};
constexpr size_t kReaderCount = std::size(kReaders);

// Every worker stamps its own start and end (parallel_readings), so a reading spans the earliest
// start to the latest end. Reading r uses reader r % kReaderCount: the readers take turns, and
// the first turn of each is a warm-up, dropped.
BandwidthAtThreads measure_at(const std::byte* buffer, size_t bytes, int threads, int readings) {
  std::vector<uint64_t> sinks(static_cast<size_t>(threads) * 8);
  std::vector<size_t> turn(static_cast<size_t>(threads) * 8, 0);
  const size_t share = bytes / static_cast<size_t>(threads) / 256 * 256;
  const int passes = static_cast<int>(kReaderCount) * (readings + 1);
  const std::vector<double> seconds = parallel_readings(threads, passes, {}, [&](int t) {
    const auto i = static_cast<size_t>(t) * 8;
    const BandwidthReader& r = kReaders[turn[i]++ % kReaderCount];
    sinks[i] += read_chunks(buffer + static_cast<size_t>(t) * share, share, r.ahead, r.hint);
  });
  BandwidthAtThreads result;
  result.threads = threads;
  for (size_t k = 0; k < kReaderCount; ++k) {
    ReaderReading reading{kReaders[k].name, 0.0, {}};
    for (size_t pass = kReaderCount + k; pass < seconds.size(); pass += kReaderCount) {
      reading.gbps.push_back(static_cast<double>(share) * threads / seconds[pass] / 1e9);
    }
    reading.median_gbps = median(reading.gbps);
    if (reading.median_gbps > result.median_gbps) {
      result.median_gbps = reading.median_gbps;
      result.cv = coefficient_of_variation(reading.gbps);
      result.gbps = reading.gbps;
      result.reader = reading.reader;
    }
    result.readers.push_back(std::move(reading));
  }
  return result;
}

}  // namespace

std::vector<std::string> bandwidth_reader_names() {
  std::vector<std::string> names;
  for (const BandwidthReader& r : kReaders) names.emplace_back(r.name);
  return names;
}

BandwidthProfile measure_read_bandwidth(int max_threads, int readings) {
  if (max_threads <= 0)
    max_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  BandwidthProfile profile;
  profile.buffer_bytes = std::max<uint64_t>(4 * last_level_cache_bytes(), 256ull << 20);
  // One measurement at a time in a process (two at once would share the memory bus), each on the
  // buffer of the one before where it has the size: 256 MiB of fresh pages took 0.1-0.15 s to
  // back on the EPYC, which each of a floor recheck's measurements paid.
  static std::mutex one_at_a_time;
  static std::unique_ptr<SharedMemory> kept;
  const std::lock_guard lock(one_at_a_time);
  const bool fresh = !kept || kept->size() < profile.buffer_bytes;
  // On the pages the timed calls' input sets get (SharedMemory::Pages::kHugeWherePossible), so
  // that a floor and the kernels measured against it stream through the same kind of pages.
  if (fresh) {
    kept.reset();
    kept = std::make_unique<SharedMemory>("headway-bandwidth", profile.buffer_bytes,
                                          SharedMemory::Pages::kHugeWherePossible);
  }
  const SharedMemory& memory = *kept;
  std::byte* buffer = memory.data();
  std::string readers;
  for (const BandwidthReader& r : kReaders)
    readers += std::string(readers.empty() ? "" : ", ") + r.name;
  profile.method = fmt::format("{}, 256 bytes an iteration; best of {} readers taking turns ({})",
                               kReadLoads, kReaderCount, readers) +
                   (memory.huge_page_share() == 1.0 ? ", on 2 MiB pages" : ", on 4 KiB pages");
  // Filled by the threads that will read it, when new.
  std::vector<std::thread> init;
  const size_t share = profile.buffer_bytes / static_cast<size_t>(max_threads);
  for (int t = 0; t < max_threads && fresh; ++t) {
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
