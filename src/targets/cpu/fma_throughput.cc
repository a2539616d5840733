#include "targets/cpu/fma_throughput.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "common/stats.h"
#include "targets/cpu/parallel_readings.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define HEADWAY_FMA_SIMD 1
#else
#define HEADWAY_FMA_SIMD 0
#endif

namespace headway::cpu {

namespace {

// c = c * m + a with m just below 1 and a = 1 - m keeps every accumulator near 1: no overflow, no
// subnormals. m comes from a volatile so that nothing is folded at compile time.
volatile float g_multiplier = 0.9999999f;
constexpr int kChains = 12;  // independent accumulators: covers 2 FMA pipes x 4-6 cycles latency

#if HEADWAY_FMA_SIMD
constexpr int kLanes = 8;
constexpr const char* kIsa = "avx2+fma";

float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// `iters` iterations of kChains independent _mm256_fmadd_ps; returns the accumulators' sum.
float fma_chains(uint64_t iters) {
  const float mf = g_multiplier;
  const __m256 m = _mm256_set1_ps(mf), a = _mm256_set1_ps(1.0f - mf);
  // Distinct starting values: identical chains would be one chain after common subexpression
  // elimination.
  const __m256 d = _mm256_set1_ps(0x1p-10f);
  __m256 c0 = _mm256_set1_ps(1.0f), c1 = _mm256_add_ps(c0, d), c2 = _mm256_add_ps(c1, d);
  __m256 c3 = _mm256_add_ps(c2, d), c4 = _mm256_add_ps(c3, d), c5 = _mm256_add_ps(c4, d);
  __m256 c6 = _mm256_add_ps(c5, d), c7 = _mm256_add_ps(c6, d), c8 = _mm256_add_ps(c7, d);
  __m256 c9 = _mm256_add_ps(c8, d), c10 = _mm256_add_ps(c9, d), c11 = _mm256_add_ps(c10, d);
  for (uint64_t i = 0; i < iters; ++i) {
    c0 = _mm256_fmadd_ps(c0, m, a);
    c1 = _mm256_fmadd_ps(c1, m, a);
    c2 = _mm256_fmadd_ps(c2, m, a);
    c3 = _mm256_fmadd_ps(c3, m, a);
    c4 = _mm256_fmadd_ps(c4, m, a);
    c5 = _mm256_fmadd_ps(c5, m, a);
    c6 = _mm256_fmadd_ps(c6, m, a);
    c7 = _mm256_fmadd_ps(c7, m, a);
    c8 = _mm256_fmadd_ps(c8, m, a);
    c9 = _mm256_fmadd_ps(c9, m, a);
    c10 = _mm256_fmadd_ps(c10, m, a);
    c11 = _mm256_fmadd_ps(c11, m, a);
  }
  const __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                                 _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
  return hsum(_mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11))));
}

// `iters` x 4 dependent _mm256_fmadd_ps.
float fma_one_chain(uint64_t iters) {
  const float mf = g_multiplier;
  const __m256 m = _mm256_set1_ps(mf), a = _mm256_set1_ps(1.0f - mf);
  __m256 c = _mm256_set1_ps(1.0f);
  for (uint64_t i = 0; i < iters; ++i) {
    c = _mm256_fmadd_ps(c, m, a);
    c = _mm256_fmadd_ps(c, m, a);
    c = _mm256_fmadd_ps(c, m, a);
    c = _mm256_fmadd_ps(c, m, a);
  }
  return hsum(c);
}
#else
constexpr int kLanes = 1;
constexpr const char* kIsa = "scalar";

float fma_chains(uint64_t iters) {
  const float m = g_multiplier, a = 1.0f - m;
  // Distinct starting values: identical chains would be one chain after common subexpression
  // elimination.
  constexpr float d = 0x1p-10f;
  float c0 = 1.0f, c1 = c0 + d, c2 = c1 + d, c3 = c2 + d, c4 = c3 + d, c5 = c4 + d;
  float c6 = c5 + d, c7 = c6 + d, c8 = c7 + d, c9 = c8 + d, c10 = c9 + d, c11 = c10 + d;
  for (uint64_t i = 0; i < iters; ++i) {
    c0 = c0 * m + a;
    c1 = c1 * m + a;
    c2 = c2 * m + a;
    c3 = c3 * m + a;
    c4 = c4 * m + a;
    c5 = c5 * m + a;
    c6 = c6 * m + a;
    c7 = c7 * m + a;
    c8 = c8 * m + a;
    c9 = c9 * m + a;
    c10 = c10 * m + a;
    c11 = c11 * m + a;
  }
  return ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) + ((c8 + c9) + (c10 + c11));
}

float fma_one_chain(uint64_t iters) {
  const float m = g_multiplier, a = 1.0f - m;
  float c = 1.0f;
  for (uint64_t i = 0; i < iters; ++i) {
    c = c * m + a;
    c = c * m + a;
    c = c * m + a;
    c = c * m + a;
  }
  return c;
}
#endif

constexpr double kReadingSeconds = 2e-3;

// Iterations of `f` that take about kReadingSeconds on one thread.
uint64_t iterations_for(float (*f)(uint64_t), volatile float& sink) {
  constexpr uint64_t kProbe = 20000;
  sink = sink + f(kProbe);  // warm-up (clock ramp, page-in)
  const auto t0 = std::chrono::steady_clock::now();
  sink = sink + f(kProbe);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double per = std::max(s, 1e-7) / static_cast<double>(kProbe);
  return std::clamp(static_cast<uint64_t>(kReadingSeconds / per), uint64_t{1000},
                    uint64_t{1} << 30);
}

struct alignas(64) Sink {
  volatile float value = 0.0f;
};

}  // namespace

const char* fma_isa() { return kIsa; }

FmaThroughput measure_fma_throughput(int max_threads, int readings) {
  if (max_threads <= 0)
    max_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  readings = std::max(readings, 1);
  FmaThroughput result;
  result.isa = kIsa;
  result.lanes = kLanes;
  result.chains = kChains;
  result.threads = max_threads;
  std::vector<Sink> sinks(static_cast<size_t>(max_threads));

  const uint64_t iters = iterations_for(fma_chains, sinks[0].value);
  const double flops = 2.0 * kLanes * kChains * static_cast<double>(iters);
  for (int threads = 1; threads <= max_threads; ++threads) {
    auto run = [&](int t) {
      sinks[static_cast<size_t>(t)].value = sinks[static_cast<size_t>(t)].value + fma_chains(iters);
    };
    FmaAtThreads at;
    at.threads = threads;
    for (double s : parallel_readings(threads, readings, run, run))
      at.readings.push_back(flops * threads / s / 1e9);
    at.gflops = median(at.readings);
    at.cv = coefficient_of_variation(at.readings);
    if (at.gflops > result.gflops) {
      result.gflops = at.gflops;
      result.best_threads = threads;
    }
    result.by_threads.push_back(std::move(at));
  }

  const uint64_t chain_iters = iterations_for(fma_one_chain, sinks[0].value);
  auto chain = [&](int) { sinks[0].value = sinks[0].value + fma_one_chain(chain_iters); };
  for (double s : parallel_readings(1, readings, chain, chain)) {
    result.latency_readings.push_back(s * 1e9 / (4.0 * static_cast<double>(chain_iters)));
  }
  result.latency_ns = median(result.latency_readings);
  result.latency_cv = coefficient_of_variation(result.latency_readings);
  result.chain_gflops = result.latency_ns > 0.0 ? 2.0 * kLanes / result.latency_ns : 0.0;
  result.method = fmt::format(
      "{}: {} independent {}-lane FMA accumulators per thread in registers, ~{:.0f} ms readings "
      "(2 flops per lane); latency from one dependent chain",
      HEADWAY_FMA_SIMD ? "avx2+fma _mm256_fmadd_ps"
                       : "scalar multiply-add (no avx2+fma at build time)",
      kChains, kLanes, kReadingSeconds * 1e3);
  return result;
}

}  // namespace headway::cpu
