/* headway kernel decoders: the f8e4m3fn weight decoders of the built-in qkv and attn_out designs
 * (C++ only). Included by a candidate as "headway_decoders.h".
 *
 * Each decoder is a pair of functions over rows of n codes, `stride` bytes apart:
 *   <name>_store(x, xp, n)   the n bf16-valued activations x stored in the decoder's layout;
 *   <name>_dot<R, Prefetch>(w, stride, xp, n, out)
 *                            out[r] = row r of the R rows at w (w + r * stride) dotted with the
 *                            stored activations, in f32;
 * and a struct for a design of hw::attn_out_rows / hw::qkv_rows ("headway_rows.h") over rows of
 * Cols codes, `Cols` apart, which supplies D's Store, store(x, xp) and dot<R>(w, xp, out):
 *   struct Design : hw::F8ShiftRows<HW_QS, 1, 2> { kGroupRows, kThreads, kSchedule, ... };
 * n and Cols are multiples of 64; xp is aligned to 64 bytes. Prefetch > 0 issues one prefetch
 * per 64 weight bytes for the same line Prefetch groups of R rows ahead (4 KiB pages stop the
 * hardware stream prefetchers), into cache level PrefetchTo: 2, L2, by default, since lines
 * prefetched a group of rows (16 KiB) ahead into a 32 KiB L1 that also holds the activations are
 * partly evicted before they are used (docs/PERFORMANCE.md); 1, L1. Each SIMD path sits under its
 * instruction sets' macros, with a scalar table decode elsewhere, so every decoder builds on any
 * x86-64. NaN codes (0x7f, 0xff) are not decoded as NaN by the bit-trick paths. Nothing here keeps
 * state that depends on a kernel's inputs: the tables are derived from the formats alone. */
#ifndef HEADWAY_KERNEL_DECODERS_H
#define HEADWAY_KERNEL_DECODERS_H
#include <cstddef>
#include <cstdint>

#include "headway_kernel.h"
#include "headway_support.h"

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace hw {

/* The f8e4m3fn decode table of the scalar fallbacks, built at load time in a candidate that uses
 * it (a template: only then). */
template <int = 0>
static const F8Table kF8DecodeTable;

/* The scalar fallback of every decoder: out[r] = (row r decoded by table . xp) * scale. */
template <int R, int Cols>
inline void f8_table_dot(const uint8_t* w, const float* xp, float scale, float* out,
                         int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  const size_t stride = static_cast<size_t>(n);
  for (int r = 0; r < R; ++r) {
    const uint8_t* row = w + static_cast<size_t>(r) * stride;
    float acc[4] = {0, 0, 0, 0};
    for (int j = 0; j < n; j += 4)
      for (int k = 0; k < 4; ++k) acc[k] += kF8DecodeTable<>.v[row[j + k]] * xp[j + k];
    out[r] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) * scale;
  }
}

/* ---- f8_shift (design shift_pool): an f8e4m3fn code s.eeee.mmm in the top byte of a 32-bit
 * lane, shifted right arithmetically by 4, becomes s.ssss.eeee.mmm...; AND 0x87F00000 leaves the
 * f32 whose exponent field is eeee and whose mantissa starts with mmm: the code's value times
 * 2^-120 (subnormal codes become f32 subnormals, still exact). One 16-bit shift serves the odd
 * bytes of all words at once, the even bytes first move up by 8: 9 integer ops and 4 FMAs per 32
 * codes. Lane i of decoded vector k holds code 4i+k, so the activations are stored in that order,
 * times 2^32 so that products stay normal. Requires AVX2, FMA and F16C. */
constexpr float kF8ShiftXScale = 0x1p32f;    // activations are stored times 2^32 ...
constexpr float kF8ShiftOutScale = 0x1p88f;  // ... and decoded weights are value * 2^-120

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
template <int R, int Cols, int Prefetch = 0, int PrefetchTo = 2>
inline void f8_shift_dot(const uint8_t* w, const float* xp, float* out, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  const size_t stride = static_cast<size_t>(n);
  constexpr int A = R == 1 ? 4 : 2;  // accumulators per row (FMA latency 4, 2 per cycle)
  const __m256i M = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
  __m256 acc[R][A];
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < A; ++k) acc[r][k] = _mm256_setzero_ps();
  for (int j = 0; j < n; j += 32) {
    const __m256 x0 = _mm256_load_ps(xp + j), x1 = _mm256_load_ps(xp + j + 8);
    const __m256 x2 = _mm256_load_ps(xp + j + 16), x3 = _mm256_load_ps(xp + j + 24);
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = w + static_cast<size_t>(r) * stride + j;
      if constexpr (Prefetch > 0) {
        if ((j & 63) == 0) prefetch_line<PrefetchTo>(p + size_t{Prefetch} * R * stride);
      }
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      const __m256i t = _mm256_srai_epi16(v, 4);  // odd bytes: s.ssss.eeee.mmm
      const __m256i u = _mm256_srai_epi16(_mm256_slli_epi16(v, 8), 4);  // even bytes
      const __m256 f3 = _mm256_castsi256_ps(_mm256_and_si256(t, M));    // codes 4i+3
      const __m256 f1 = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(t, 16), M));  // 4i+1
      const __m256 f2 = _mm256_castsi256_ps(_mm256_and_si256(u, M));  // codes 4i+2
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
    out[r] = hsum(s) * kF8ShiftOutScale;
  }
}

/* xp[j + 8k + i] = x[j + 4i + k] * 2^32 for every block of 32. */
template <int Cols>
inline void f8_shift_store(const float* x, float* xp, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  for (int j = 0; j < n; j += 32)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 8; ++i) xp[j + 8 * k + i] = x[j + 4 * i + k] * kF8ShiftXScale;
}
#else
template <int R, int Cols, int Prefetch = 0, int PrefetchTo = 2>
inline void f8_shift_dot(const uint8_t* w, const float* xp, float* out, int cols = Cols) {
  f8_table_dot<R, Cols>(w, xp, kF8ShiftOutScale, out, cols);
}
template <int Cols>
inline void f8_shift_store(const float* x, float* xp, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  for (int j = 0; j < n; ++j) xp[j] = x[j] / kF8ShiftOutScale;
}
#endif

template <int Cols, int Prefetch, int PrefetchTo = 2>
struct F8ShiftRows {
  using Store = float;
  static void store(const float* x, Store* xp) { f8_shift_store<Cols>(x, xp); }
  template <int R>
  static void dot(const uint8_t* w, const Store* xp, float* out) {
    f8_shift_dot<R, Cols, Prefetch, PrefetchTo>(w, xp, out);
  }
};

/* ---- f8_sext (design sext_static): vpmovsxbd turns 8 codes into 8 sign-extended int32; shifting
 * left by 20 puts the code's exponent and mantissa at bits 26..20 with copies of the sign above,
 * and AND 0x87F00000 leaves the f32 equal to the code's value times 2^-120 (subnormal codes stay
 * exact as f32 subnormals). The codes keep their natural order, so the activations are stored as
 * they come, times 2^32. Requires AVX2, FMA and F16C. */
constexpr float kF8SextXScale = 0x1p32f;    // activations are used times 2^32 ...
constexpr float kF8SextOutScale = 0x1p88f;  // ... and decoded weights are value * 2^-120

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
template <int R, int Cols, int Prefetch = 0, int PrefetchTo = 2>
inline void f8_sext_dot(const uint8_t* w, const float* xp, float* out, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  const size_t stride = static_cast<size_t>(n);
  constexpr int A = R == 1 ? 4 : 2;  // accumulators per row (FMA latency 4, 2 per cycle)
  const __m256i M = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
  __m256 acc[R][A];
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < A; ++k) acc[r][k] = _mm256_setzero_ps();
  for (int j = 0; j < n; j += 32) {
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = w + static_cast<size_t>(r) * stride + j;
      if constexpr (Prefetch > 0) {
        if ((j & 63) == 0) prefetch_line<PrefetchTo>(p + size_t{Prefetch} * R * stride);
      }
      for (int k = 0; k < 4; ++k) {
        const __m256i v =
            _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 8 * k)));
        const __m256 f = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(v, 20), M));
        acc[r][k % A] = _mm256_fmadd_ps(f, _mm256_load_ps(xp + j + 8 * k), acc[r][k % A]);
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    __m256 s = acc[r][0];
    for (int k = 1; k < A; ++k) s = _mm256_add_ps(s, acc[r][k]);
    out[r] = hsum(s) * kF8SextOutScale;
  }
}

template <int Cols>
inline void f8_sext_store(const float* x, float* xp, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  for (int j = 0; j < n; ++j) xp[j] = x[j] * kF8SextXScale;
}
#else
template <int R, int Cols, int Prefetch = 0, int PrefetchTo = 2>
inline void f8_sext_dot(const uint8_t* w, const float* xp, float* out, int cols = Cols) {
  f8_table_dot<R, Cols>(w, xp, kF8SextOutScale, out, cols);
}
template <int Cols>
inline void f8_sext_store(const float* x, float* xp, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  for (int j = 0; j < n; ++j) xp[j] = x[j] / kF8SextOutScale;
}
#endif

template <int Cols, int Prefetch, int PrefetchTo = 2>
struct F8SextRows {
  using Store = float;
  static void store(const float* x, Store* xp) { f8_sext_store<Cols>(x, xp); }
  template <int R>
  static void dot(const uint8_t* w, const Store* xp, float* out) {
    f8_sext_dot<R, Cols, Prefetch, PrefetchTo>(w, xp, out);
  }
};

/* ---- f8_f16c (designs f16cvt, f16cvt_heads): for a 16-bit word holding codes c_even (low byte)
 * and c_odd (high byte), an arithmetic shift right by 1 and AND 0xBF80 leave
 * sign | (c_odd & 0x7f) << 7: the f16 of c_odd's value times 2^-8; the even byte first moves up
 * by 8. vcvtph2ps widens 8 f16 at a time, exactly, subnormal codes included, so no f32 subnormal
 * ever reaches an FMA. Per 32 codes: 5 integer ops, 2 extracts, 4 converts, 4 FMAs; the
 * activations are stored in the matching even/odd order. Requires AVX2, FMA and F16C. */
constexpr float kF8F16cXScale = 1.0f;
constexpr float kF8F16cOutScale = 256.0f;  // decoded weights are value * 2^-8

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
template <int R, int Cols, int Prefetch = 0, int PrefetchTo = 2>
inline void f8_f16c_dot(const uint8_t* w, const float* xp, float* out, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  const size_t stride = static_cast<size_t>(n);
  constexpr int A = R == 1 ? 4 : 2;  // accumulators per row (FMA latency 4, 2 per cycle)
  const __m256i M = _mm256_set1_epi16(static_cast<short>(0xBF80));
  __m256 acc[R][A];
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < A; ++k) acc[r][k] = _mm256_setzero_ps();
  for (int j = 0; j < n; j += 32) {
    const __m256 x0 = _mm256_load_ps(xp + j), x1 = _mm256_load_ps(xp + j + 8);
    const __m256 x2 = _mm256_load_ps(xp + j + 16), x3 = _mm256_load_ps(xp + j + 24);
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = w + static_cast<size_t>(r) * stride + j;
      if constexpr (Prefetch > 0) {
        if ((j & 63) == 0) prefetch_line<PrefetchTo>(p + size_t{Prefetch} * R * stride);
      }
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      const __m256i odd = _mm256_and_si256(_mm256_srai_epi16(v, 1), M);  // f16 of codes 2i+1
      const __m256i even =
          _mm256_and_si256(_mm256_srai_epi16(_mm256_slli_epi16(v, 8), 1), M);  // codes 2i
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
    out[r] = hsum(s) * kF8F16cOutScale;
  }
}

/* Per 32: xp = x[0,2,..,14], x[16,..,30], x[1,..,15], x[17,..,31]. */
template <int Cols>
inline void f8_f16c_store(const float* x, float* xp, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  for (int j = 0; j < n; j += 32)
    for (int i = 0; i < 8; ++i) {
      xp[j + i] = x[j + 2 * i] * kF8F16cXScale;
      xp[j + 8 + i] = x[j + 16 + 2 * i] * kF8F16cXScale;
      xp[j + 16 + i] = x[j + 2 * i + 1] * kF8F16cXScale;
      xp[j + 24 + i] = x[j + 17 + 2 * i] * kF8F16cXScale;
    }
}
#else
template <int R, int Cols, int Prefetch = 0, int PrefetchTo = 2>
inline void f8_f16c_dot(const uint8_t* w, const float* xp, float* out, int cols = Cols) {
  f8_table_dot<R, Cols>(w, xp, kF8F16cOutScale, out, cols);
}
template <int Cols>
inline void f8_f16c_store(const float* x, float* xp, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  for (int j = 0; j < n; ++j) xp[j] = x[j] / kF8F16cOutScale;
}
#endif

template <int Cols, int Prefetch, int PrefetchTo = 2>
struct F8F16cRows {
  using Store = float;
  static void store(const float* x, Store* xp) { f8_f16c_store<Cols>(x, xp); }
  template <int R>
  static void dot(const uint8_t* w, const Store* xp, float* out) {
    f8_f16c_dot<R, Cols, Prefetch, PrefetchTo>(w, xp, out);
  }
};

/* ---- f8_perm_bf16 (design perm_bf16): the code's 7-bit magnitude indexes two 128-byte tables
 * (the high and the low byte of its bf16 value) with vpermi2b; the sign bit is ORed into the high
 * byte; vpunpck{l,h}bw interleave the bytes into bf16 words. The activations are bf16 by the
 * contract, so vdpbf16ps multiplies exactly (8-bit by 8-bit significands) and accumulates in f32.
 * The interleaves work within 128-bit lanes, so the activations are stored in the order the words
 * come out. Every f8 value, subnormals included, is a normal bf16: the decode is exact. Requires
 * AVX-512 BW, VBMI and BF16; elsewhere the activations are f32 and the decode is by table. */
#if defined(__AVX512BW__) && defined(__AVX512VBMI__) && defined(__AVX512BF16__)
using F8PermBf16Store = uint16_t;  // activations as bf16 bits, in the decoder's order

/* bf16 bits of every f8e4m3fn magnitude (codes 0..127), as a table of high bytes and a table of
 * low bytes for vpermi2b (a 7-bit index picks one of 128 bytes from two registers). */
struct F8Bf16Tables {
  alignas(64) uint8_t hi[128];
  alignas(64) uint8_t lo[128];
  F8Bf16Tables() {
    for (int c = 0; c < 128; ++c) {
      const hw_bf16 b = f32_to_bf16(f8e4m3_to_f32(static_cast<uint8_t>(c)));
      hi[c] = static_cast<uint8_t>(b >> 8);
      lo[c] = static_cast<uint8_t>(b & 0xff);
    }
  }
};
/* The tables, built at load time in a candidate that uses them (a template: only then). */
template <int = 0>
static const F8Bf16Tables kF8Bf16Tables;

/* Per 64 codes: two vpermi2b (high and low bf16 bytes of the magnitude), one vpternlogd (OR in the
 * code's sign bit), two byte interleaves into bf16 words and two vdpbf16ps. Word vector a holds
 * codes 16L+0..7 of 128-bit lane L, b codes 16L+8..15. */
template <int R, int Cols, int Prefetch = 0, int PrefetchTo = 2>
inline void f8_perm_bf16_dot(const uint8_t* w, const F8PermBf16Store* xp, float* out,
                             int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  const size_t stride = static_cast<size_t>(n);
  constexpr int A = R == 1 ? 4 : 2;  // accumulators per row
  const __m512i hi0 = _mm512_load_si512(kF8Bf16Tables<>.hi);
  const __m512i hi1 = _mm512_load_si512(kF8Bf16Tables<>.hi + 64);
  const __m512i lo0 = _mm512_load_si512(kF8Bf16Tables<>.lo);
  const __m512i lo1 = _mm512_load_si512(kF8Bf16Tables<>.lo + 64);
  const __m512i sign = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512 acc[R][A];
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < A; ++k) acc[r][k] = _mm512_setzero_ps();
  for (int j = 0; j < n; j += 64) {
    const __m512bh xa = (__m512bh)_mm512_load_si512(xp + j);
    const __m512bh xb = (__m512bh)_mm512_load_si512(xp + j + 32);
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = w + static_cast<size_t>(r) * stride + j;
      if constexpr (Prefetch > 0) prefetch_line<PrefetchTo>(p + size_t{Prefetch} * R * stride);
      const __m512i v = _mm512_loadu_si512(p);
      // high byte: the magnitude's, OR the code's sign bit (a | (b & c) = 0xF8)
      const __m512i h =
          _mm512_ternarylogic_epi32(_mm512_permutex2var_epi8(hi0, v, hi1), v, sign, 0xF8);
      const __m512i l = _mm512_permutex2var_epi8(lo0, v, lo1);
      const __m512bh wa = (__m512bh)_mm512_unpacklo_epi8(l, h);
      const __m512bh wb = (__m512bh)_mm512_unpackhi_epi8(l, h);
      acc[r][(2 * (j / 64)) % A] = _mm512_dpbf16_ps(acc[r][(2 * (j / 64)) % A], wa, xa);
      acc[r][(2 * (j / 64) + 1) % A] = _mm512_dpbf16_ps(acc[r][(2 * (j / 64) + 1) % A], wb, xb);
    }
  }
  for (int r = 0; r < R; ++r) {
    __m512 s = acc[r][0];
    for (int k = 1; k < A; ++k) s = _mm512_add_ps(s, acc[r][k]);
    out[r] = hsum(s);
  }
}

/* For every block of 64: xp[j + 8L + i] = x[j + 16L + i], xp[j + 32 + 8L + i] = x[j + 16L + 8 + i]
 * (L = 0..3, i = 0..7), as bf16 (x is already bf16-rounded, so this is exact). */
template <int Cols>
inline void f8_perm_bf16_store(const float* x, F8PermBf16Store* xp, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  for (int j = 0; j < n; j += 64)
    for (int L = 0; L < 4; ++L)
      for (int i = 0; i < 8; ++i) {
        xp[j + 8 * L + i] = f32_to_bf16(x[j + 16 * L + i]);
        xp[j + 32 + 8 * L + i] = f32_to_bf16(x[j + 16 * L + 8 + i]);
      }
}
#else
using F8PermBf16Store = float;
template <int R, int Cols, int Prefetch = 0, int PrefetchTo = 2>
inline void f8_perm_bf16_dot(const uint8_t* w, const F8PermBf16Store* xp, float* out,
                             int cols = Cols) {
  f8_table_dot<R, Cols>(w, xp, 1.0f, out, cols);
}
template <int Cols>
inline void f8_perm_bf16_store(const float* x, F8PermBf16Store* xp, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  for (int j = 0; j < n; ++j) xp[j] = x[j];
}
#endif

template <int Cols, int Prefetch, int PrefetchTo = 2>
struct F8PermBf16Rows {
  using Store = F8PermBf16Store;
  static void store(const float* x, Store* xp) { f8_perm_bf16_store<Cols>(x, xp); }
  template <int R>
  static void dot(const uint8_t* w, const Store* xp, float* out) {
    f8_perm_bf16_dot<R, Cols, Prefetch, PrefetchTo>(w, xp, out);
  }
};

}  // namespace hw
#endif /* HEADWAY_KERNEL_DECODERS_H */
