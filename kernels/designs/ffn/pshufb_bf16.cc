// headway-design: pshufb_bf16
// summary: e2m1 decoded by two 16-entry vpshufb tables (high and low byte of the bf16 value, sign included), bytes interleaved into bf16 words and widened to f32 by shift/AND; block scales decoded once per row to f32 and applied per pair of half-vectors; gate and up rows decoded together; persistent pool with per-thread regions and stealing
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 8 16 32 default 16
// param P_DOWN_ROWS 1 2 4 default 1
// param P_PREFETCH 0 1 2 4 default 4
// param P_PREFETCH_TO 1 2 default 2
//
// Decode: every e2m1 value is exact in bf16, and its bf16 pattern is two bytes H(c), L(c) of the
// 4-bit code c; vpshufb looks both up for 32 nibbles at a time. unpack{lo,hi}_epi8(L, H) makes bf16
// words (within 128-bit lanes) and a 32-bit shift / AND 0xFFFF0000 turns each word into its f32. Per
// 64 elements: 3 ops to split nibbles, 4 lookups, 4 unpacks, 8 widening ops, 8 FMAs and 2 scale FMAs.
// Lanes 0-3 of a decoded vector come from the chunk's first 16 bytes, lanes 4-7 from the next 16, so
// each vector spans two blocks: the block sums are scaled by [s0 x4 | s2 x4] and [s1 x4 | s3 x4]. No
// f32 subnormals anywhere.
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

constexpr float kXScale = 1.0f;

// Position of element e in the permuted activation layout (chunks of 64, see dot_rows).
inline int perm_pos(int e) {
  const int j = e & ~63, q = e & 63, byte = q >> 1, par = q & 1;
  const int lane = byte >> 4, part = (byte >> 3) & 1, word = byte & 7, ab = word & 1, dw = word >> 1;
  return j + ((part * 2 + par) * 2 + ab) * 8 + lane * 4 + dw;
}

#if HW_SIMD
// nb f8e4m3fn block scales (nb a multiple of 8) to f32.
inline void decode_scales(const uint8_t* s, int nb, float* out) {
  const __m256i M = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
  const __m256 s120 = _mm256_set1_ps(0x1p120f);
  for (int b = 0; b < nb; b += 8) {
    long long q;
    std::memcpy(&q, s + b, 8);
    const __m256i v = _mm256_slli_epi32(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(q)), 24);
    _mm256_store_ps(out + b, _mm256_mul_ps(_mm256_castsi256_ps(_mm256_and_si256(_mm256_srai_epi32(v, 4), M)), s120));
  }
}

// T rows (codes[t], scales[t]) of n elements dotted with the permuted activations (no global scale).
template <int T>
inline void dot_rows(const uint8_t* const* codes, const uint8_t* const* scales, const float* xp, int n, float* out,
                     size_t ahead_codes, size_t ahead_scales) {
  // bf16 of every e2m1 code: high byte (sign included) and low byte
  const __m256i TH = _mm256_setr_epi8(0, 0x3F, 0x3F, 0x3F, 0x40, 0x40, 0x40, 0x40, -128, -65, -65, -65, -64, -64, -64, -64,
                                      0, 0x3F, 0x3F, 0x3F, 0x40, 0x40, 0x40, 0x40, -128, -65, -65, -65, -64, -64, -64, -64);
  const __m256i TL = _mm256_setr_epi8(0, 0, -128, -64, 0, 0x40, -128, -64, 0, 0, -128, -64, 0, 0x40, -128, -64,
                                      0, 0, -128, -64, 0, 0x40, -128, -64, 0, 0, -128, -64, 0, 0x40, -128, -64);
  const __m256i NM = _mm256_set1_epi8(0x0F);
  const __m256i HM = _mm256_set1_epi32(static_cast<int>(0xFFFF0000u));
  alignas(32) float sc[T][HW_L / HW_FP4_BLOCK];
  __m256 acc[T];
  for (int t = 0; t < T; ++t) {
    acc[t] = _mm256_setzero_ps();
    decode_scales(scales[t], n / HW_FP4_BLOCK, sc[t]);
  }
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
      const __m256i lo = _mm256_and_si256(v, NM), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), NM);
      const __m256i Hl = _mm256_shuffle_epi8(TH, lo), Ll = _mm256_shuffle_epi8(TL, lo);
      const __m256i Hh = _mm256_shuffle_epi8(TH, hi), Lh = _mm256_shuffle_epi8(TL, hi);
      const float* sp = sc[t] + j / 16;
      const __m256 s02 = _mm256_blend_ps(_mm256_broadcast_ss(sp), _mm256_broadcast_ss(sp + 2), 0xF0);
      const __m256 s13 = _mm256_blend_ps(_mm256_broadcast_ss(sp + 1), _mm256_broadcast_ss(sp + 3), 0xF0);
      __m256 b0, b1;
      {  // bytes 0-7 of each 16: blocks 0 | 2
        const __m256i we = _mm256_unpacklo_epi8(Ll, Hl), wo = _mm256_unpacklo_epi8(Lh, Hh);
        b0 = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(we, 16)), _mm256_load_ps(xv));
        b0 = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(we, HM)), _mm256_load_ps(xv + 8), b0);
        b0 = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_slli_epi32(wo, 16)), _mm256_load_ps(xv + 16), b0);
        b0 = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(wo, HM)), _mm256_load_ps(xv + 24), b0);
      }
      {  // bytes 8-15 of each 16: blocks 1 | 3
        const __m256i we = _mm256_unpackhi_epi8(Ll, Hl), wo = _mm256_unpackhi_epi8(Lh, Hh);
        b1 = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(we, 16)), _mm256_load_ps(xv + 32));
        b1 = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(we, HM)), _mm256_load_ps(xv + 40), b1);
        b1 = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_slli_epi32(wo, 16)), _mm256_load_ps(xv + 48), b1);
        b1 = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(wo, HM)), _mm256_load_ps(xv + 56), b1);
      }
      acc[t] = _mm256_fmadd_ps(b0, s02, acc[t]);
      acc[t] = _mm256_fmadd_ps(b1, s13, acc[t]);
    }
  }
  for (int t = 0; t < T; ++t) out[t] = hw::hsum(acc[t]);
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
