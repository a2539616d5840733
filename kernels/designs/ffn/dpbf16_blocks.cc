// headway-design: dpbf16_blocks
// summary: AVX-512: e2m1 decoded exactly to bf16 words by vpermw (a 16-entry word table, one lookup per nibble position of 32 code words) and dotted with the bf16 activations by one chain of four vdpbf16ps, block sums land in lane pairs and one FMA applies 8 block scales per 128 elements; gate and up rows decoded together against shared x; persistent pool with per-thread regions and stealing for both projections
// requires: avx512bw avx512bf16
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 8 16 32 default 16
// param P_ROWS 1 2 default 1
// param P_DOWN_ROWS 1 2 4 default 2
// param P_PREFETCH 0 1 2 4 default 4
// param P_PREFETCH_TO 1 2 default 2
//
// Decode: hw::nvfp4_bf16_dot ("headway_decoders.h"): vpermw looks up each nibble position of 32
// code words in a table of the 16 e2m1 values as bf16 (exact), one chain of four vdpbf16ps leaves
// the block sums in lane pairs and one FMA applies the 8 decoded block scales per 128 elements.
// The activations (x, and h for the down projection) are bf16 by the contract and are stored once
// in the matching order. Without AVX-512 BW/BF16 (the proposer never offers it there: `requires:`)
// the file still builds, with a scalar table decode.
#include "headway_decoders.h"
#include "headway_kernel.h"
#include "headway_rows.h"
#include "headway_support.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__AVX512BW__) && defined(__AVX512BF16__)
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
#define P_DOWN_ROWS 2
#endif
#ifndef P_PREFETCH
#define P_PREFETCH 4
#endif
#ifndef P_PREFETCH_TO
#define P_PREFETCH_TO 2
#endif

#ifndef P_ROWS
#define P_ROWS 1
#endif

namespace {

#if HW_SIMD
using XStore = uint16_t;  // activations as bf16 bits, in the decoder's order

template <int T>
inline void dot_rows(const uint8_t* const* codes, const uint8_t* const* scales, const XStore* xp, int n, float* out,
                     size_t ahead_codes, size_t ahead_scales) {
  hw::nvfp4_bf16_dot<T, (P_PREFETCH > 0), P_PREFETCH_TO>(codes, scales, xp, n, out, ahead_codes, ahead_scales);
}
#else
using XStore = float;

template <int T>
inline void dot_rows(const uint8_t* const* codes, const uint8_t* const* scales, const XStore* xp, int n, float* out,
                     size_t, size_t) {
  hw::nvfp4_dot_table<T>(codes, scales, n, out, [xp](int e) { return xp[hw::nvfp4_bf16_pos(e)]; });
}
#endif

inline XStore to_store(float v) {
#if HW_SIMD
  return hw::f32_to_bf16(v);
#else
  return v;
#endif
}

struct Design {
  using Store = XStore;
  static constexpr int kGroupRows = P_ROWS, kDownGroupRows = P_DOWN_ROWS, kChunk = P_CHUNK;
  static constexpr int kThreads = P_THREADS, kPrefetch = P_PREFETCH;
  static int pos(int e) { return hw::nvfp4_bf16_pos(e); }
  static Store stored(float v) { return to_store(v); }
  template <int T>
  static void dot(const uint8_t* const* codes, const uint8_t* const* scales, const Store* xp, int n, float* out,
                  size_t ahead_codes, size_t ahead_scales) {
    dot_rows<T>(codes, scales, xp, n, out, ahead_codes, ahead_scales);
  }
};

}  // namespace

extern "C" void hw_ffn(const hw_ffn_args* a) { hw::ffn_rows<Design>(a); }
