// headway-design: shift_pool
// summary: f8 decoded to f32 bits by 16-bit shifts and one AND (no tables, no converts), activations pre-permuted to match, P_ROWS rows share each activation load; rows streamed by a persistent pool (one contiguous region per thread, stealing at the end); each head's RMSNorm+RoPE runs as soon as its 256 rows are in
// param P_ROWS 1 2 4 default 4
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 4 8 16 32 default 8
// param P_PREFETCH 0 1 2 4 default 1
//
// Decode: an f8e4m3fn code s.eeee.mmm in the top byte of a 32-bit lane, shifted right
// arithmetically by 4, becomes s.ssss.eeee.mmm...; AND 0x87F00000 leaves the f32 whose exponent field
// is eeee and whose mantissa starts with mmm: the code's value times 2^-120 (subnormal codes become
// f32 subnormals, still exact; NaN codes are not decoded as NaN). One 16-bit shift serves the odd
// bytes of all words at once, the even bytes first move up by 8: 9 integer ops and 4 FMAs per 32
// codes. Lane i of decoded vector k holds code 4i+k, so the activations are stored in that order
// (times 2^32, so that products stay normal) once per call.
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
#define P_ROWS 4
#endif
#ifndef P_THREADS
#define P_THREADS 2
#endif
#ifndef P_CHUNK
#define P_CHUNK 8
#endif
#ifndef P_PREFETCH
#define P_PREFETCH 1
#endif

namespace {

constexpr int kCols = HW_H;               // 3840 codes per row
constexpr int kRows = HW_QS + 2 * HW_PS;  // q, k, v rows as one list of 8192
constexpr int kHeads = kRows / HW_DS;     // 32 heads of 256 rows

constexpr float kXScale = 0x1p32f;    // activations are stored times 2^32 ...
constexpr float kOutScale = 0x1p88f;  // ... and decoded weights are value * 2^-120

#if HW_SIMD
// R consecutive rows starting at w, dotted with the permuted activations.
template <int R>
inline void dot_rows(const uint8_t* w, const float* xp, float* out) {
  constexpr int A = R == 1 ? 4 : 2;  // accumulators per row (FMA latency 4, 2 per cycle)
  const __m256i M = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
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
      const __m256i t = _mm256_srai_epi16(v, 4);                          // odd bytes: s.ssss.eeee.mmm
      const __m256i u = _mm256_srai_epi16(_mm256_slli_epi16(v, 8), 4);    // even bytes
      const __m256 f3 = _mm256_castsi256_ps(_mm256_and_si256(t, M));      // codes 4i+3
      const __m256 f1 = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(t, 16), M));  // 4i+1
      const __m256 f2 = _mm256_castsi256_ps(_mm256_and_si256(u, M));      // codes 4i+2
      const __m256 f0 = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(u, 16), M));  // 4i
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

// xp[j + 8k + i] = x[j + 4i + k] * 2^32 for every block of 32.
inline void store_x(const float* x, float* xp) {
  for (int j = 0; j < kCols; j += 32)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 8; ++i) xp[j + 8 * k + i] = x[j + 4 * i + k] * kXScale;
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

// xn = bf16(RMSNorm(x) * input_rms_weight), stored in the decoder's activation layout.
struct Design {
  using Store = float;
  static constexpr int kGroupRows = P_ROWS, kChunk = P_CHUNK, kThreads = P_THREADS;
  static constexpr hw::Schedule kSchedule = hw::Schedule::kStealChunks;
  static void store(const float* x, Store* xp) { store_x(x, xp); }
  template <int R>
  static void dot(const uint8_t* w, const Store* xp, float* out) { dot_rows<R>(w, xp, out); }
};

}  // namespace

extern "C" void hw_qkv(const hw_qkv_args* a) { hw::qkv_rows<Design>(a); }
