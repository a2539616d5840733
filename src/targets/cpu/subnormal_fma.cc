#include "targets/cpu/subnormal_fma.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>

#include "common/stats.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define HEADWAY_SUBNORMAL_SIMD 1
#else
#define HEADWAY_SUBNORMAL_SIMD 0
#endif

namespace headway::cpu {

namespace {

// The multiplicands: 2^-130 is an f32 subnormal, 2^-120 a normal; times 2^100 each product is
// normal (2^-30, 2^-20), as a decoded weight times its pre-scaled activation is. From volatiles,
// so that nothing is folded at compile time.
volatile float g_subnormal = 0x1p-130f;
volatile float g_normal = 0x1p-120f;
volatile float g_activation = 0x1p100f;
constexpr int kChains = 8;
constexpr uint64_t kIterations = 1 << 16;  // x 8 chains: about 1 ms on normal inputs

#if HEADWAY_SUBNORMAL_SIMD
constexpr const char* kIsa = "avx2+fma, 8 lanes";
// kIterations x kChains independent FMAs acc = w * x + acc; returns the sum of the accumulators.
float fma_chains(float w_value) {
  const __m256 w = _mm256_set1_ps(w_value), x = _mm256_set1_ps(g_activation);
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(1.0f + static_cast<float>(c));
  for (uint64_t i = 0; i < kIterations; ++i) {
    for (auto& a : acc) a = _mm256_fmadd_ps(w, x, a);
  }
  __m256 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm256_add_ps(s, acc[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  return lanes[0] + lanes[7];
}
#else
constexpr const char* kIsa = "scalar multiply-add";
float fma_chains(float w) {
  const float x = g_activation;
  float acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = 1.0f + static_cast<float>(c);
  for (uint64_t i = 0; i < kIterations; ++i) {
    for (auto& a : acc) a = w * x + a;
  }
  float s = 0.0f;
  for (float a : acc) s += a;
  return s;
}
#endif

volatile float g_sink = 0.0f;

double seconds_of(float w) {
  const auto t0 = std::chrono::steady_clock::now();
  g_sink = g_sink + fma_chains(w);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

SubnormalFma measure_subnormal_fma(int readings) {
  SubnormalFma out;
  seconds_of(g_normal);  // warm-up pair
  seconds_of(g_subnormal);
  std::vector<double> normal, subnormal;
  for (int r = 0; r < std::max(readings, 1); ++r) {
    normal.push_back(seconds_of(g_normal));
    subnormal.push_back(seconds_of(g_subnormal));
    out.ratios.push_back(subnormal.back() / normal.back());
  }
  const double per_fma = 1e9 / (static_cast<double>(kIterations) * kChains);
  out.normal_ns = median(normal) * per_fma;
  out.subnormal_ns = median(subnormal) * per_fma;
  out.ratio = median(out.ratios);
  out.method = fmt::format(
      "median over {} pairs of one-thread readings of {} independent FMA chains ({}), one "
      "multiplicand 2^-130 (subnormal) against 2^-120, the other 2^100: products and sums normal",
      out.ratios.size(), kChains, kIsa);
  return out;
}

}  // namespace headway::cpu
