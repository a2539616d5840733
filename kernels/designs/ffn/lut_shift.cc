// headway-design: lut_shift
// summary: e2m1 mapped by one 16-entry vpshufb table to a byte s.E6.m whose 6-bit exponent keeps every value a normal f32 (no subnormals), then decoded like f8 by 16-bit shifts and one AND; the 8 decoded vectors of a 64-element chunk share one vector of 4 block scales; gate and up rows decoded together; persistent pool with per-thread regions and stealing
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 8 16 32 default 16
// param P_DOWN_ROWS 1 2 4 default 1
// param P_PREFETCH 0 1 2 4 default 4
// param P_PREFETCH_TO 1 2 default 2
//
// Decode: nibble c -> byte b = s<<7 | E<<1 | m with E = ee + 56 (0.5 -> E 56, m 0; 0 -> 0), so a
// byte at the top of a 16-bit word, shifted right arithmetically by 2 and ANDed with 0x9FC00000 (a
// low word first moves up by 16), is the f32 of the value times 2^-70. Per 32 nibbles of one parity the
// four decoded vectors hold lookup byte 4d+k in lane d, so every lane stays inside one 8-element half
// block and lanes 2b, 2b+1 share block b's scale. Activations are stored times 2^100 so that block sums
// times the raw (value * 2^-120) scales stay normal.
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

constexpr float kXScale = 0x1p100f;   // activations are stored times 2^100 ...
constexpr float kOutScale = 0x1p90f;  // ... weights decode to value * 2^-70, scales to value * 2^-120

// Position of element e in the permuted activation layout (chunks of 64): parity p, byte 4d+k of
// that parity's 32 nibbles -> vector p*4+k, lane d.
inline int perm_pos(int e) {
  const int j = e & ~63, q = e & 63, par = q & 1, byte = q >> 1, d = byte >> 2, k = byte & 3;
  return j + (par * 4 + k) * 8 + d;
}

#if HW_SIMD
// T rows (codes[t], scales[t]) of n elements dotted with the permuted activations (no global scale).
template <int T>
inline void dot_rows(const uint8_t* const* codes, const uint8_t* const* scales, const float* xp, int n, float* out,
                     size_t ahead_codes, size_t ahead_scales) {
  // e2m1 code -> s.E6.m with E = ee + 56 (0.5 -> E 56): a normal f32 exponent for every value
  const __m256i TB = _mm256_setr_epi8(0, 0x70, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, -128, -16, -14, -13, -12, -11, -10, -9,
                                      0, 0x70, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, -128, -16, -14, -13, -12, -11, -10, -9);
  const __m256i NM = _mm256_set1_epi8(0x0F);
  const __m256i M = _mm256_set1_epi32(static_cast<int>(0x9FC00000u));
  const __m256i SM = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
  constexpr int C = T >= 4 ? 2 : 4;  // block-sum chains per row (FMA latency 4, 2 per cycle)
  const __m256i spread = _mm256_setr_epi8(-1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1, 1, -1, -1, -1, 1,
                                          -1, -1, -1, 2, -1, -1, -1, 2, -1, -1, -1, 3, -1, -1, -1, 3);
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (int j = 0; j < n; j += 64) {
    const float* xv = xp + j;
    for (int t = 0; t < T; ++t) {
#if P_PREFETCH > 0
      // the same bytes of this row P_PREFETCH row groups ahead (crosses 4 KiB pages, which the
      // hardware stream prefetchers do not)
      if ((j & 127) == 0) hw::prefetch_line<P_PREFETCH_TO>(codes[t] + j / 2 + ahead_codes);
      if ((j & 1023) == 0) hw::prefetch_line<P_PREFETCH_TO>(scales[t] + j / 16 + ahead_scales);
#else
      (void)ahead_codes;
      (void)ahead_scales;
#endif
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes[t] + j / 2));
      const __m256i b[2] = {_mm256_shuffle_epi8(TB, _mm256_and_si256(v, NM)),
                            _mm256_shuffle_epi8(TB, _mm256_and_si256(_mm256_srli_epi16(v, 4), NM))};
      __m256 bs[C];
      for (int c = 0; c < C; ++c) bs[c] = _mm256_setzero_ps();
      for (int par = 0; par < 2; ++par) {
        const float* x = xv + par * 32;
        const __m256i hi = _mm256_srai_epi16(b[par], 2);
        const __m256i lo = _mm256_srai_epi16(_mm256_slli_epi16(b[par], 8), 2);
        const int q = par * 4;
        bs[(q + 0) % C] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(lo, 16), M)), _mm256_load_ps(x), bs[(q + 0) % C]);
        bs[(q + 1) % C] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(hi, 16), M)), _mm256_load_ps(x + 8), bs[(q + 1) % C]);
        bs[(q + 2) % C] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(lo, M)), _mm256_load_ps(x + 16), bs[(q + 2) % C]);
        bs[(q + 3) % C] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(hi, M)), _mm256_load_ps(x + 24), bs[(q + 3) % C]);
      }
      __m256 sum = bs[0];
      for (int c = 1; c < C; ++c) sum = _mm256_add_ps(sum, bs[c]);
      int sq;
      std::memcpy(&sq, scales[t] + j / 16, 4);  // 4 block scales: lanes 2b, 2b+1 get block b
      const __m256 sc = _mm256_castsi256_ps(
          _mm256_and_si256(_mm256_srai_epi32(_mm256_shuffle_epi8(_mm256_set1_epi32(sq), spread), 4), SM));
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
