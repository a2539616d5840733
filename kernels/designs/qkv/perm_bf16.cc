// headway-design: perm_bf16
// summary: AVX-512: f8 decoded exactly to bf16 by two vpermi2b table lookups (high and low byte, 128 entries each) and dotted with the bf16 activations by vdpbf16ps, 64 codes per step, P_ROWS rows share each activation load; rows streamed by a persistent pool (one contiguous region per thread, stealing at the end); each head's RMSNorm+RoPE runs as soon as its 256 rows are in
// requires: avx512bw avx512vbmi avx512bf16
// param P_ROWS 1 2 4 default 4
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 4 8 16 32 default 8
// param P_PREFETCH 0 1 2 4 default 1
//
// Decode: the code's 7-bit magnitude indexes two 128-byte tables (the high and the low byte of
// its bf16 value) with vpermi2b; the sign bit is ORed into the high byte; vpunpck{l,h}bw
// interleave the bytes into bf16 words. The activations are already bf16 by the contract, so
// vdpbf16ps multiplies exactly (8-bit by 8-bit significands) and accumulates in f32. The
// interleaves work within 128-bit lanes, so the activations are stored once per call in the
// order the words come out. Without AVX-512 BW/VBMI/BF16 (the proposer never offers it there:
// `requires:`) the file still builds, with a scalar table decode.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "headway_kernel.h"
#include "headway_rows.h"
#include "headway_support.h"

#if defined(__AVX512BW__) && defined(__AVX512VBMI__) && defined(__AVX512BF16__)
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

#if HW_SIMD
using XStore = uint16_t;  // activations as bf16 bits, in the decoder's order

// bf16 bits of every f8e4m3fn magnitude (codes 0..127), as a table of high bytes and a table of
// low bytes for vpermi2b (a 7-bit index picks one of 128 bytes from two registers). Every f8
// value, subnormals included, is a normal bf16: the decode is exact. Constant: derived from
// nothing but the format.
struct Bf16Tables {
  alignas(64) uint8_t hi[128];
  alignas(64) uint8_t lo[128];
  Bf16Tables() {
    for (int c = 0; c < 128; ++c) {
      const hw_bf16 b = hw::f32_to_bf16(hw::f8e4m3_to_f32(static_cast<uint8_t>(c)));
      hi[c] = static_cast<uint8_t>(b >> 8);
      lo[c] = static_cast<uint8_t>(b & 0xff);
    }
  }
};
const Bf16Tables kTables;

// R consecutive rows starting at w, dotted with the permuted bf16 activations. Per 64 codes: two
// vpermi2b (high and low bf16 bytes of the magnitude), one vpternlogd (OR in the code's sign
// bit), two byte interleaves into bf16 words and two vdpbf16ps. The interleaves work within
// 128-bit lanes: word vector a holds codes 16L+0..7 of lane L, b codes 16L+8..15.
template <int R>
inline void dot_rows(const uint8_t* w, const XStore* xp, float* out) {
  constexpr int A = R == 1 ? 4 : 2;  // accumulators per row
  const __m512i hi0 = _mm512_load_si512(kTables.hi), hi1 = _mm512_load_si512(kTables.hi + 64);
  const __m512i lo0 = _mm512_load_si512(kTables.lo), lo1 = _mm512_load_si512(kTables.lo + 64);
  const __m512i sign = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512 acc[R][A];
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < A; ++k) acc[r][k] = _mm512_setzero_ps();
  for (int j = 0; j < kCols; j += 64) {
    const __m512bh xa = (__m512bh)_mm512_load_si512(xp + j);
    const __m512bh xb = (__m512bh)_mm512_load_si512(xp + j + 32);
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = w + static_cast<size_t>(r) * kCols + j;
#if P_PREFETCH > 0
      // the same line of this row P_PREFETCH groups of R rows ahead (crosses 4 KiB pages, which
      // the hardware stream prefetchers do not)
      _mm_prefetch(reinterpret_cast<const char*>(p + size_t{P_PREFETCH} * R * kCols), _MM_HINT_T0);
#endif
      const __m512i v = _mm512_loadu_si512(p);
      // high byte: the magnitude's, OR the code's sign bit (a | (b & c) = 0xF8)
      const __m512i h = _mm512_ternarylogic_epi32(_mm512_permutex2var_epi8(hi0, v, hi1), v, sign, 0xF8);
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
    out[r] = hw::hsum(s);
  }
}

// For every block of 64: xp[j + 8L + i] = x[j + 16L + i], xp[j + 32 + 8L + i] = x[j + 16L + 8 + i]
// (L = 0..3, i = 0..7), as bf16 (x is already bf16-rounded, so this is exact).
inline void store_x(const float* x, XStore* xp) {
  for (int j = 0; j < kCols; j += 64)
    for (int L = 0; L < 4; ++L)
      for (int i = 0; i < 8; ++i) {
        xp[j + 8 * L + i] = hw::f32_to_bf16(x[j + 16 * L + i]);
        xp[j + 32 + 8 * L + i] = hw::f32_to_bf16(x[j + 16 * L + 8 + i]);
      }
}
#else
using XStore = float;
const hw::F8Table kF8;
template <int R>
inline void dot_rows(const uint8_t* w, const XStore* xp, float* out) {
  for (int r = 0; r < R; ++r) {
    const uint8_t* row = w + static_cast<size_t>(r) * kCols;
    float acc[4] = {0, 0, 0, 0};
    for (int j = 0; j < kCols; j += 4)
      for (int k = 0; k < 4; ++k) acc[k] += kF8.v[row[j + k]] * xp[j + k];
    out[r] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }
}
inline void store_x(const float* x, XStore* xp) {
  for (int j = 0; j < kCols; ++j) xp[j] = x[j];
}
#endif

// xn = bf16(RMSNorm(x) * input_rms_weight), stored in the decoder's activation layout.
struct Design {
  using Store = XStore;
  static constexpr int kGroupRows = P_ROWS, kChunk = P_CHUNK, kThreads = P_THREADS;
  static constexpr hw::Schedule kSchedule = hw::Schedule::kStealChunks;
  static void store(const float* x, Store* xp) { store_x(x, xp); }
  template <int R>
  static void dot(const uint8_t* w, const Store* xp, float* out) { dot_rows<R>(w, xp, out); }
};

}  // namespace

extern "C" void hw_qkv(const hw_qkv_args* a) { hw::qkv_rows<Design>(a); }
