// headway-design: shift_blocks
// summary: e2m1 decoded to f32 bits by 16-bit shifts and one AND per nibble (no tables); code dwords de-interleaved so each f32 lane holds one 16-element block and one vector of 8 decoded block scales scales 128 elements; gate and up rows decoded together against shared x; persistent pool with per-thread regions and stealing for both projections
// subnormals: the e2m1 codes 0.5 and -0.5 decode to f32 subnormals (the value times 2^-126)
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 8 16 32 default 16
// param P_DOWN_ROWS 1 2 4 default 1
// param P_PREFETCH 0 1 2 4 default 4
// param P_PREFETCH_TO 1 2 default 2
//
// Decode: an e2m1 nibble s.ee.m at the top of a 16-bit word, shifted right arithmetically by 6,
// becomes s.ssssss.ee.m...; AND 0x81C00000 (after moving a low word up by 16) leaves the f32 with
// exponent field ee and mantissa bit m: the nibble's value times 2^-126 (the 0.5 codes become f32
// subnormals, still exact). 64 code bytes (8 blocks) are loaded as two vectors of 8 dwords and split
// by shufps into first and second block halves, so lane i of every decoded vector belongs to block
// pi(i), pi = {0,1,4,5,2,3,6,7}: eight block sums come out in one vector, which one FMA scales by the
// eight decoded f8 block scales. Per 128 elements: 2 shuffles, 38 shift/AND ops, 16+1 FMAs, 4 ops for
// the scales. Activations are stored in the matching order, times 2^64.
#include "headway_kernel.h"
#include "headway_rows.h"
#include "headway_support.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define HW_SIMD 1
#else
#define HW_SIMD 0
#endif

#ifndef P_THREADS
#define P_THREADS 2
#endif
#ifndef P_CHUNK
#define P_CHUNK 16
#endif
#ifndef P_DOWN_ROWS
#define P_DOWN_ROWS 1
#endif
#ifndef P_PREFETCH
#define P_PREFETCH 4
#endif
#ifndef P_PREFETCH_TO
#define P_PREFETCH_TO 2
#endif

// One gate row and the same up row are decoded together (two rows of each, P_ROWS 2, spilled
// registers and ran slower on the 2-core EPYC VM).
#define P_ROWS 1

namespace {

constexpr float kXScale = 0x1p64f;    // activations are stored times 2^64 ...
constexpr float kOutScale = 0x1p62f;  // ... weights decode to value * 2^-126
constexpr int kPi[8] = {0, 1, 4, 5, 2, 3, 6, 7};

// Position of element e in the permuted activation layout (blocks of 128): vector h*8+k, lane
// kPi[block] holds element 16*block + 8*h + k.
inline int perm_pos(int e) {
  const int j = e & ~127, b = (e >> 4) & 7, h = (e >> 3) & 1, k = e & 7;
  return j + (h * 8 + k) * 8 + kPi[b];
}

#if HW_SIMD
// T rows (codes[t], scales[t]) of n elements dotted with the permuted activations (no global scale).
template <int T>
inline void dot_rows(const uint8_t* const* codes, const uint8_t* const* scales, const float* xp, int n, float* out,
                     size_t ahead_codes, size_t ahead_scales) {
  constexpr int C = T >= 4 ? 2 : 4;  // block-sum chains per row (FMA latency 4, 2 per cycle)
  const __m256i M = _mm256_set1_epi32(static_cast<int>(0x81C00000u));
  const __m256i SM = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
  const __m256i spread = _mm256_setr_epi8(-1, -1, -1, 0, -1, -1, -1, 1, -1, -1, -1, 4, -1, -1, -1, 5,
                                          -1, -1, -1, 2, -1, -1, -1, 3, -1, -1, -1, 6, -1, -1, -1, 7);
  const __m256 s120 = _mm256_set1_ps(0x1p120f);
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (int j = 0; j < n; j += 128) {
    const float* xv = xp + j;
    for (int t = 0; t < T; ++t) {
#if P_PREFETCH > 0
      // the same bytes of this row P_PREFETCH row groups ahead (crosses 4 KiB pages, which the
      // hardware stream prefetchers do not)
      hw::prefetch_line<P_PREFETCH_TO>(codes[t] + j / 2 + ahead_codes);
      if ((j & 1023) == 0) hw::prefetch_line<P_PREFETCH_TO>(scales[t] + j / 16 + ahead_scales);
#else
      (void)ahead_codes;
      (void)ahead_scales;
#endif
      const uint8_t* p = codes[t] + j / 2;
      const __m256 a0 = _mm256_loadu_ps(reinterpret_cast<const float*>(p));
      const __m256 a1 = _mm256_loadu_ps(reinterpret_cast<const float*>(p + 32));
      __m256 bs[C];
      for (int c = 0; c < C; ++c) bs[c] = _mm256_setzero_ps();
      int q = 0;
      for (int hh = 0; hh < 2; ++hh) {
        // dwords of blocks 0,1,4,5 | 2,3,6,7: first halves (hh 0) or second halves (hh 1)
        __m256i v = _mm256_castps_si256(hh == 0 ? _mm256_shuffle_ps(a0, a1, 0x88) : _mm256_shuffle_ps(a0, a1, 0xDD));
        for (int kk = 3; kk >= 0; --kk) {  // nibble kk+4 tops the high word, nibble kk the low word
          const __m256i s = _mm256_srai_epi16(v, 6);
          const __m256 fhi = _mm256_castsi256_ps(_mm256_and_si256(s, M));
          const __m256 flo = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(s, 16), M));
          bs[q % C] = _mm256_fmadd_ps(fhi, _mm256_load_ps(xv + (hh * 8 + kk + 4) * 8), bs[q % C]);
          ++q;
          bs[q % C] = _mm256_fmadd_ps(flo, _mm256_load_ps(xv + (hh * 8 + kk) * 8), bs[q % C]);
          ++q;
          if (kk) v = _mm256_slli_epi16(v, 4);
        }
      }
      long long sq;
      std::memcpy(&sq, scales[t] + j / 16, 8);  // 8 block scales, spread in lane order kPi
      const __m256i sv = _mm256_shuffle_epi8(_mm256_set1_epi64x(sq), spread);
      const __m256 sc = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_and_si256(_mm256_srai_epi32(sv, 4), SM)), s120);
      __m256 sum = bs[0];
      for (int c = 1; c < C; ++c) sum = _mm256_add_ps(sum, bs[c]);
      acc[t] = _mm256_fmadd_ps(sum, sc, acc[t]);
    }
  }
  for (int t = 0; t < T; ++t) out[t] = hw::hsum(acc[t]) * kOutScale;
}
#else
template <int T>
inline void dot_rows(const uint8_t* const* codes, const uint8_t* const* scales, const float* xp, int n, float* out,
                     size_t, size_t) {
  hw::nvfp4_dot_table<T>(codes, scales, n, out, [xp](int e) { return xp[perm_pos(e)]; });
  for (int t = 0; t < T; ++t) out[t] /= kXScale;
}
#endif

struct Design {
  using Store = float;
  static constexpr int kGroupRows = P_ROWS, kDownGroupRows = P_DOWN_ROWS, kChunk = P_CHUNK;
  static constexpr int kThreads = P_THREADS, kPrefetch = P_PREFETCH;
  static int pos(int e) { return perm_pos(e); }
  static Store stored(float v) { return v * kXScale; }
  template <int T>
  static void dot(const uint8_t* const* codes, const uint8_t* const* scales, const Store* xp, int n, float* out,
                  size_t ahead_codes, size_t ahead_scales) {
    dot_rows<T>(codes, scales, xp, n, out, ahead_codes, ahead_scales);
  }
};

}  // namespace

extern "C" void hw_ffn(const hw_ffn_args* a) { hw::ffn_rows<Design>(a); }
