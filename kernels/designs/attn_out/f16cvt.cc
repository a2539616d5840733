// headway-design: f16cvt
// summary: f8 rebuilt as f16 bit patterns by 16-bit shifts and one AND, widened exactly by the F16C converter (vcvtph2ps; no f32 subnormals); P_ROWS rows share each activation load; persistent pool with per-thread regions and stealing
// param P_ROWS 1 2 4 default 2
// param P_THREADS 1 2 4 default 2
// param P_SPIN_US 0 10000 default 0
// param P_CHUNK 4 8 16 32 default 8
// param P_PREFETCH 0 1 2 4 default 1
//
// Decode: for a 16-bit word holding codes c_even (low byte) and c_odd (high byte), an arithmetic
// shift right by 1 and AND 0xBF80 leave sign | (c_odd & 0x7f) << 7: the f16 of c_odd's value times
// 2^-8; the even byte first moves up by 8. vcvtph2ps widens 8 f16 at a time, exactly, subnormal codes
// included, so no f32 subnormal ever reaches an FMA. Per 32 codes: 5 integer ops, 2 extracts, 4
// converts, 4 FMAs; the activations are stored once per call in the matching even/odd order.
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
#ifndef P_CHUNK
#define P_CHUNK 8
#endif
#ifndef P_PREFETCH
#define P_PREFETCH 1
#endif

namespace {

constexpr int kCols = HW_QS;  // 4096 codes per row

constexpr float kXScale = 1.0f;
constexpr float kOutScale = 256.0f;  // decoded weights are value * 2^-8

#if HW_SIMD
// R consecutive rows starting at w, dotted with the permuted activations.
template <int R>
inline void dot_rows(const uint8_t* w, const float* xp, float* out) {
  constexpr int A = R == 1 ? 4 : 2;  // accumulators per row (FMA latency 4, 2 per cycle)
  const __m256i M = _mm256_set1_epi16(static_cast<short>(0xBF80));
  __m256 acc[R][A];
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < A; ++k) acc[r][k] = _mm256_setzero_ps();
  for (int j = 0; j < kCols; j += 32) {
    const __m256 x0 = _mm256_load_ps(xp + j), x1 = _mm256_load_ps(xp + j + 8);
    const __m256 x2 = _mm256_load_ps(xp + j + 16), x3 = _mm256_load_ps(xp + j + 24);
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = w + static_cast<size_t>(r) * kCols + j;
#if P_PREFETCH > 0
      // the same line of this row P_PREFETCH groups of R rows ahead (crosses 4 KiB pages, which
      // the hardware stream prefetchers do not)
      if ((j & 63) == 0) _mm_prefetch(reinterpret_cast<const char*>(p + size_t{P_PREFETCH} * R * kCols), _MM_HINT_T0);
#endif
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      const __m256i odd = _mm256_and_si256(_mm256_srai_epi16(v, 1), M);                         // f16 of codes 2i+1
      const __m256i even = _mm256_and_si256(_mm256_srai_epi16(_mm256_slli_epi16(v, 8), 1), M);  // codes 2i
      const __m256 f0 = _mm256_cvtph_ps(_mm256_castsi256_si128(even));
      const __m256 f1 = _mm256_cvtph_ps(_mm256_extracti128_si256(even, 1));
      const __m256 f2 = _mm256_cvtph_ps(_mm256_castsi256_si128(odd));
      const __m256 f3 = _mm256_cvtph_ps(_mm256_extracti128_si256(odd, 1));
      acc[r][0 % A] = _mm256_fmadd_ps(f0, x0, acc[r][0 % A]);
      acc[r][1 % A] = _mm256_fmadd_ps(f1, x1, acc[r][1 % A]);
      acc[r][2 % A] = _mm256_fmadd_ps(f2, x2, acc[r][2 % A]);
      acc[r][3 % A] = _mm256_fmadd_ps(f3, x3, acc[r][3 % A]);
    }
  }
  for (int r = 0; r < R; ++r) {
    __m256 s = acc[r][0];
    for (int k = 1; k < A; ++k) s = _mm256_add_ps(s, acc[r][k]);
    out[r] = hw::hsum(s) * kOutScale;
  }
}

// Per 32: xp = x[0,2,..,14], x[16,..,30], x[1,..,15], x[17,..,31].
inline void store_x(const float* x, float* xp) {
  for (int j = 0; j < kCols; j += 32)
    for (int i = 0; i < 8; ++i) {
      xp[j + i] = x[j + 2 * i] * kXScale;
      xp[j + 8 + i] = x[j + 16 + 2 * i] * kXScale;
      xp[j + 16 + i] = x[j + 2 * i + 1] * kXScale;
      xp[j + 24 + i] = x[j + 17 + 2 * i] * kXScale;
    }
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
  static constexpr int kGroupRows = P_ROWS, kChunk = P_CHUNK, kThreads = P_THREADS;
  static constexpr int kSpinUs = P_SPIN_US;
  static constexpr hw::Schedule kSchedule = hw::Schedule::kStealChunks;
  static void store(const float* x, Store* xp) { store_x(x, xp); }
  template <int R>
  static void dot(const uint8_t* w, const Store* xp, float* out) { dot_rows<R>(w, xp, out); }
};

}  // namespace

extern "C" void hw_attn_out(const hw_attn_out_args* a) { hw::attn_out_rows<Design>(a); }
