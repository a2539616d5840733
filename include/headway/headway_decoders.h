/* headway kernel decoders: the f8e4m3fn weight decoders of the built-in qkv and attn_out designs
 * and, at the end, the NVFP4 decoder of the ffn design dpbf16_blocks (C++ only). Included by a
 * candidate as "headway_decoders.h".
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
#include <cstring>

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

/* The scalar fallbacks' activations: xp[j] = x[j] / scale, for f8_table_dot with that scale. */
template <int Cols>
inline void f8_table_store(const float* x, float* xp, float scale, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  for (int j = 0; j < n; ++j) xp[j] = x[j] / scale;
}

/* <decoder>_dot and <decoder>_store as the scalar table decode, where the decoder's instruction
 * sets are missing: the stored activations are x / OutScale. */
#define HW_F8_TABLE_DECODER(decoder, OutScale)                                                \
  template <int R, int Cols, int Prefetch = 0, int PrefetchTo = 2>                            \
  inline void decoder##_dot(const uint8_t* w, const float* xp, float* out, int cols = Cols) { \
    f8_table_dot<R, Cols>(w, xp, OutScale, out, cols);                                        \
  }                                                                                           \
  template <int Cols>                                                                         \
  inline void decoder##_store(const float* x, float* xp, int cols = Cols) {                   \
    f8_table_store<Cols>(x, xp, OutScale, cols);                                              \
  }

/* Name<Cols, Prefetch, PrefetchTo = 2>: a design's rows (hw::attn_out_rows, hw::qkv_rows) over
 * <decoder>_store and <decoder>_dot, whose activations are StoreType. */
#define HW_F8_DECODER_ROWS(Name, decoder, StoreType)                               \
  template <int Cols, int Prefetch, int PrefetchTo = 2>                            \
  struct Name {                                                                    \
    using Store = StoreType;                                                       \
    static void store(const float* x, Store* xp) { decoder##_store<Cols>(x, xp); } \
    template <int R>                                                               \
    static void dot(const uint8_t* w, const Store* xp, float* out) {               \
      decoder##_dot<R, Cols, Prefetch, PrefetchTo>(w, xp, out);                    \
    }                                                                              \
  }

/* ---- f8 to f32 bits (f8_shift and f8_sext): both decoders leave, in a 32-bit lane, the f32 whose
 * exponent field is the code's eeee and whose mantissa starts with its mmm, masked by 0x87F00000:
 * the code's value times 2^-120 (subnormal codes become f32 subnormals, still exact). The
 * activations are stored times 2^32 so that products stay normal. */
constexpr float kF8BitsXScale = 0x1p32f;    // activations are stored times 2^32 ...
constexpr float kF8BitsOutScale = 0x1p88f;  // ... and decoded weights are value * 2^-120

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
/* The loop of both: R rows of n codes, A accumulators per row (FMA latency 4, 2 per cycle), 32
 * codes a step; Step(xp + j) loads what a step's rows share and Step::add<A>(p, acc[r]) adds 32
 * codes at p times their activations. out[r] = the row's sum times kF8BitsOutScale. */
template <class Step, int R, int Cols, int Prefetch, int PrefetchTo>
inline void f8_bits_dot(const uint8_t* w, const float* xp, float* out, int cols) {
  const int n = Cols > 0 ? Cols : cols;
  const size_t stride = static_cast<size_t>(n);
  constexpr int A = R == 1 ? 4 : 2;
  __m256 acc[R][A];
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < A; ++k) acc[r][k] = _mm256_setzero_ps();
  for (int j = 0; j < n; j += 32) {
    const Step step(xp + j);
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = w + static_cast<size_t>(r) * stride + j;
      if constexpr (Prefetch > 0) {
        if ((j & 63) == 0) prefetch_line<PrefetchTo>(p + size_t{Prefetch} * R * stride);
      }
      step.template add<A>(p, acc[r]);
    }
  }
  for (int r = 0; r < R; ++r) {
    __m256 s = acc[r][0];
    for (int k = 1; k < A; ++k) s = _mm256_add_ps(s, acc[r][k]);
    out[r] = hsum(s) * kF8BitsOutScale;
  }
}

/* <decoder>_dot<R, Cols, Prefetch = 0, PrefetchTo = 2>(w, xp, out, cols = Cols): f8_bits_dot with
 * the decoder's Step. */
#define HW_F8_BITS_DOT(decoder, Step)                                                         \
  template <int R, int Cols, int Prefetch = 0, int PrefetchTo = 2>                            \
  inline void decoder##_dot(const uint8_t* w, const float* xp, float* out, int cols = Cols) { \
    f8_bits_dot<Step, R, Cols, Prefetch, PrefetchTo>(w, xp, out, cols);                       \
  }
#endif

/* ---- f8_shift (design shift_pool): an f8e4m3fn code s.eeee.mmm in the top byte of a 32-bit
 * lane, shifted right arithmetically by 4, becomes s.ssss.eeee.mmm...; AND 0x87F00000 leaves the
 * f32 bits (above). One 16-bit shift serves the odd bytes of all words at once, the even bytes
 * first move up by 8: 9 integer ops and 4 FMAs per 32 codes. Lane i of decoded vector k holds code
 * 4i+k, so the activations are stored in that order. Requires AVX2, FMA and F16C. */
constexpr float kF8ShiftXScale = kF8BitsXScale;
constexpr float kF8ShiftOutScale = kF8BitsOutScale;

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
/* f8_shift's step: the 4 activation vectors shared by the rows, loaded once. */
struct F8ShiftStep {
  __m256 x0, x1, x2, x3;
  explicit F8ShiftStep(const float* xp)
      : x0(_mm256_load_ps(xp)),
        x1(_mm256_load_ps(xp + 8)),
        x2(_mm256_load_ps(xp + 16)),
        x3(_mm256_load_ps(xp + 24)) {}
  template <int A>
  void add(const uint8_t* p, __m256 (&acc)[A]) const {
    const __m256i M = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i t = _mm256_srai_epi16(v, 4);                        // odd bytes: s.ssss.eeee.mmm
    const __m256i u = _mm256_srai_epi16(_mm256_slli_epi16(v, 8), 4);  // even bytes
    const __m256 f3 = _mm256_castsi256_ps(_mm256_and_si256(t, M));    // codes 4i+3
    const __m256 f1 = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(t, 16), M));  // 4i+1
    const __m256 f2 = _mm256_castsi256_ps(_mm256_and_si256(u, M));  // codes 4i+2
    const __m256 f0 = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(u, 16), M));  // 4i
    acc[0 % A] = _mm256_fmadd_ps(f0, x0, acc[0 % A]);
    acc[1 % A] = _mm256_fmadd_ps(f1, x1, acc[1 % A]);
    acc[2 % A] = _mm256_fmadd_ps(f2, x2, acc[2 % A]);
    acc[3 % A] = _mm256_fmadd_ps(f3, x3, acc[3 % A]);
  }
};

/* xp[j + 8k + i] = x[j + 4i + k] * 2^32 for every block of 32. */
template <int Cols>
inline void f8_shift_store(const float* x, float* xp, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  for (int j = 0; j < n; j += 32)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 8; ++i) xp[j + 8 * k + i] = x[j + 4 * i + k] * kF8ShiftXScale;
}
HW_F8_BITS_DOT(f8_shift, F8ShiftStep)
#else
HW_F8_TABLE_DECODER(f8_shift, kF8ShiftOutScale)
#endif

HW_F8_DECODER_ROWS(F8ShiftRows, f8_shift, float);

/* ---- f8_sext (design sext_static): vpmovsxbd turns 8 codes into 8 sign-extended int32; shifting
 * left by 20 puts the code's exponent and mantissa at bits 26..20 with copies of the sign above,
 * and AND 0x87F00000 leaves the f32 bits (above). The codes keep their natural order, so the
 * activations are stored as they come. Requires AVX2, FMA and F16C. */
constexpr float kF8SextXScale = kF8BitsXScale;
constexpr float kF8SextOutScale = kF8BitsOutScale;

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
/* f8_sext's step: each row loads its activations as it uses them. */
struct F8SextStep {
  const float* xp;
  explicit F8SextStep(const float* x) : xp(x) {}
  template <int A>
  void add(const uint8_t* p, __m256 (&acc)[A]) const {
    const __m256i M = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
    for (int k = 0; k < 4; ++k) {
      const __m256i v =
          _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 8 * k)));
      const __m256 f = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(v, 20), M));
      acc[k % A] = _mm256_fmadd_ps(f, _mm256_load_ps(xp + 8 * k), acc[k % A]);
    }
  }
};

template <int Cols>
inline void f8_sext_store(const float* x, float* xp, int cols = Cols) {
  const int n = Cols > 0 ? Cols : cols;
  for (int j = 0; j < n; ++j) xp[j] = x[j] * kF8SextXScale;
}
HW_F8_BITS_DOT(f8_sext, F8SextStep)
#else
HW_F8_TABLE_DECODER(f8_sext, kF8SextOutScale)
#endif

HW_F8_DECODER_ROWS(F8SextRows, f8_sext, float);

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
HW_F8_TABLE_DECODER(f8_f16c, kF8F16cOutScale)
#endif

HW_F8_DECODER_ROWS(F8F16cRows, f8_f16c, float);

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

HW_F8_DECODER_ROWS(F8PermBf16Rows, f8_perm_bf16, F8PermBf16Store);

/* ---- NVFP4 (the ffn designs): rows of n e2m1 codes (two per byte, low nibble first) with one
 * f8e4m3fn scale per 16-element block, T rows at a time (codes[t], scales[t]), dotted with
 * activations stored in the decoder's order; no global scale. n is a multiple of 128. With
 * Prefetch, row t's code line ahead_codes bytes ahead (and, every 1024 elements, its scale line
 * ahead_scales bytes ahead) is prefetched into cache level PrefetchTo for every 128 elements. */

/* Row codes/scales' prefetch at element j, as above (nothing without Prefetch). */
template <bool Prefetch, int PrefetchTo>
inline void nvfp4_prefetch(const uint8_t* codes, const uint8_t* scales, int j, size_t ahead_codes,
                           size_t ahead_scales) {
  if constexpr (Prefetch) {
    prefetch_line<PrefetchTo>(codes + j / 2 + ahead_codes);
    if ((j & 1023) == 0) prefetch_line<PrefetchTo>(scales + j / 16 + ahead_scales);
  } else {
    (void)codes, (void)scales, (void)j, (void)ahead_codes, (void)ahead_scales;
  }
}

/* ---- nvfp4_bf16 (design dpbf16_blocks): 64 code bytes are 32 16-bit words of four nibbles
 * each; vpermw with the word shifted right by 0, 4, 8 and 12 bits looks up the k-th nibble of
 * every word in a table of the 16 e2m1 values as bf16 (all exact, 0.5 included: no subnormals).
 * Word i of lookup k is element 4i+k, so vdpbf16ps (which adds words 2l and 2l+1 into f32 lane l)
 * leaves the sum of block b in lanes 2b and 2b+1; one chain of four vdpbf16ps per 128 elements
 * (not two joined by an add: 1.8-2.9% faster on one thread). The 8 f8 block scales are decoded
 * exactly by a shift and an AND into the matching lanes and applied by one FMA. The activations
 * are bf16 bits in nvfp4_bf16_pos order. Requires AVX-512 BW and BF16. */

/* Position of element e in nvfp4_bf16's activation layout (blocks of 128): word 32k + 2l + h holds
 * element 8l + 4h + k. */
inline int nvfp4_bf16_pos(int e) {
  const int j = e & ~127, l = (e >> 3) & 15, h = (e >> 2) & 1, k = e & 3;
  return j + 32 * k + 2 * l + h;
}

#if defined(__AVX512BW__) && defined(__AVX512BF16__)
/* The 16 e2m1 codes as bf16 words, twice (vpermw reads 5 index bits; bit 4 is the next nibble's
 * lowest bit and must not matter), and the pshufb control that spreads 8 block-scale bytes
 * (broadcast to every 128-bit lane) to the top byte of dword lanes 2b and 2b+1 for block b. */
struct Nvfp4Bf16Tables {
  alignas(64) uint16_t e2m1[32];
  alignas(64) int8_t spread[64];
  Nvfp4Bf16Tables() {
    const E2m1Table t;
    for (int i = 0; i < 32; ++i) e2m1[i] = f32_to_bf16(t.v[i & 15]);
    for (int q = 0; q < 4; ++q)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k)
          spread[16 * q + 4 * j + k] = static_cast<int8_t>(k == 3 ? 2 * q + j / 2 : -1);
  }
};
/* The tables, built at load time in a candidate that uses them (a template: only then). */
template <int = 0>
static const Nvfp4Bf16Tables kNvfp4Bf16Tables;

/* out[t] = row t . x, from xb (x as bf16 bits in nvfp4_bf16_pos order). */
template <int T, bool Prefetch = false, int PrefetchTo = 2>
inline void nvfp4_bf16_dot(const uint8_t* const* codes, const uint8_t* const* scales,
                           const uint16_t* xb, int n, float* out, size_t ahead_codes = 0,
                           size_t ahead_scales = 0) {
  const __m512i table = _mm512_load_si512(kNvfp4Bf16Tables<>.e2m1);
  const __m512i spread = _mm512_load_si512(kNvfp4Bf16Tables<>.spread);
  const __m512i SM = _mm512_set1_epi32(static_cast<int>(0x87F00000u));
  const __m512 s120 = _mm512_set1_ps(0x1p120f);
  __m512 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
  for (int j = 0; j < n; j += 128) {
    const __m512bh x0 = (__m512bh)_mm512_load_si512(xb + j);
    const __m512bh x1 = (__m512bh)_mm512_load_si512(xb + j + 32);
    const __m512bh x2 = (__m512bh)_mm512_load_si512(xb + j + 64);
    const __m512bh x3 = (__m512bh)_mm512_load_si512(xb + j + 96);
    for (int t = 0; t < T; ++t) {
      nvfp4_prefetch<Prefetch, PrefetchTo>(codes[t], scales[t], j, ahead_codes, ahead_scales);
      const __m512i w = _mm512_loadu_si512(codes[t] + j / 2);
      const __m512bh w0 = (__m512bh)_mm512_permutexvar_epi16(w, table);
      const __m512bh w1 = (__m512bh)_mm512_permutexvar_epi16(_mm512_srli_epi16(w, 4), table);
      const __m512bh w2 = (__m512bh)_mm512_permutexvar_epi16(_mm512_srli_epi16(w, 8), table);
      const __m512bh w3 = (__m512bh)_mm512_permutexvar_epi16(_mm512_srli_epi16(w, 12), table);
      __m512 sum = _mm512_dpbf16_ps(_mm512_setzero_ps(), w0, x0);
      sum = _mm512_dpbf16_ps(sum, w1, x1);
      sum = _mm512_dpbf16_ps(sum, w2, x2);
      sum = _mm512_dpbf16_ps(sum, w3, x3);
      long long sq;
      std::memcpy(&sq, scales[t] + j / 16, 8);  // the 8 block scales of these 128 elements
      const __m512i sv = _mm512_shuffle_epi8(_mm512_set1_epi64(sq), spread);
      // f8 in the top byte, >> 4 arithmetic, AND 0x87F00000: the scale times 2^-120, exact (the
      // zero-masked shift: GCC 12 warns that _mm512_srai_epi32's undefined source is uninitialized)
      const __m512 sc = _mm512_mul_ps(
          _mm512_castsi512_ps(_mm512_and_si512(_mm512_maskz_srai_epi32(0xFFFF, sv, 4), SM)), s120);
      acc[t] = _mm512_fmadd_ps(sum, sc, acc[t]);
    }
  }
  for (int t = 0; t < T; ++t) out[t] = hsum(acc[t]);
}
#endif

}  // namespace hw
#endif /* HEADWAY_KERNEL_DECODERS_H */
