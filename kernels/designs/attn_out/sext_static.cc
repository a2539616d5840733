// headway-design: sext_static
// summary: f8 widened in natural order by sign-extending byte loads (vpmovsxbd) plus one shift and one AND to f32 bits, no activation permutation; static contiguous row split (no atomics), each thread converts the activations itself; optional software prefetch
// param P_ROWS 1 2 4 default 2
// param P_THREADS 1 2 4 default 2
// param P_SPIN_US 0 10000 default 0
// param P_PREFETCH 0 1 2 4 default 1
//
// Decode: vpmovsxbd turns 8 codes into 8 sign-extended int32; shifting left by 20 puts the
// code's exponent and mantissa at bits 26..20 with copies of the sign above, and AND 0x87F00000 leaves
// the f32 equal to the code's value times 2^-120 (subnormal codes stay exact as f32 subnormals). The
// codes keep their natural order, so the activations are used as they come (times 2^32).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "headway_kernel.h"
#include "headway_rows.h"
#include "headway_support.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define HW_SIMD 1
#else
#define HW_SIMD 0
#endif

#ifndef P_ROWS
#define P_ROWS 2
#endif
#ifndef P_THREADS
#define P_THREADS 2
#endif
#ifndef P_SPIN_US
#define P_SPIN_US 0
#endif
#ifndef P_PREFETCH
#define P_PREFETCH 1
#endif

namespace {

constexpr int kCols = HW_QS;  // 4096 codes per row

constexpr float kXScale = 0x1p32f;    // activations are used times 2^32 ...
constexpr float kOutScale = 0x1p88f;  // ... and decoded weights are value * 2^-120

#if HW_SIMD
// R consecutive rows starting at w, dotted with the activations (natural order).
template <int R>
inline void dot_rows(const uint8_t* w, const float* xp, float* out) {
  constexpr int A = R == 1 ? 4 : 2;  // accumulators per row (FMA latency 4, 2 per cycle)
  const __m256i M = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
  __m256 acc[R][A];
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < A; ++k) acc[r][k] = _mm256_setzero_ps();
  for (int j = 0; j < kCols; j += 32) {
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = w + static_cast<size_t>(r) * kCols + j;
#if P_PREFETCH > 0
      // the same line of this row P_PREFETCH groups of R rows ahead (crosses 4 KiB pages, which
      // the hardware stream prefetchers do not)
      if ((j & 63) == 0) _mm_prefetch(reinterpret_cast<const char*>(p + size_t{P_PREFETCH} * R * kCols), _MM_HINT_T0);
#endif
      for (int k = 0; k < 4; ++k) {
        const __m256i v = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 8 * k)));
        const __m256 f = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(v, 20), M));
        acc[r][k % A] = _mm256_fmadd_ps(f, _mm256_load_ps(xp + j + 8 * k), acc[r][k % A]);
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    __m256 s = acc[r][0];
    for (int k = 1; k < A; ++k) s = _mm256_add_ps(s, acc[r][k]);
    out[r] = hw::hsum(s) * kOutScale;
  }
}

inline void store_x(const float* x, float* xp) {
  for (int j = 0; j < kCols; ++j) xp[j] = x[j] * kXScale;
}
#else
const hw::F8Table kF8;
template <int R>
inline void dot_rows(const uint8_t* w, const float* xp, float* out) {
  for (int r = 0; r < R; ++r) {
    const uint8_t* row = w + static_cast<size_t>(r) * kCols;
    float acc[4] = {0, 0, 0, 0};
    for (int j = 0; j < kCols; j += 4)
      for (int k = 0; k < 4; ++k) acc[k] += kF8.v[row[j + k]] * xp[j + k];
    out[r] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) * kOutScale;
  }
}
inline void store_x(const float* x, float* xp) {
  for (int j = 0; j < kCols; ++j) xp[j] = x[j] / kOutScale;
}
#endif

struct Design {
  using Store = float;
  static constexpr int kGroupRows = P_ROWS, kThreads = P_THREADS;
  static constexpr int kSpinUs = P_SPIN_US;
  static constexpr hw::Schedule kSchedule = hw::Schedule::kStaticParts;
  static void store(const float* x, Store* xp) { store_x(x, xp); }
  template <int R>
  static void dot(const uint8_t* w, const Store* xp, float* out) { dot_rows<R>(w, xp, out); }
};

}  // namespace

extern "C" void hw_attn_out(const hw_attn_out_args* a) { hw::attn_out_rows<Design>(a); }
