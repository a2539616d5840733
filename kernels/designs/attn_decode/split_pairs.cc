// headway-design: split_pairs
// summary: split-K over the valid slots (one contiguous range per thread, partial max/sum/accumulator merged by online softmax); both query heads of a KV group from one pass over its K and V rows, in blocks of P_BLOCK slots, K and V of a block in turn (P_BLOCK up to 32), or in two passes, all the K rows then all the V rows, each in memory order, over each block of P_BLOCK slots (256, 1024: the block's scores in L1) or over the thread's whole range (P_BLOCK 0); bf16 widened in registers (AVX-512 or AVX2), f32 sums, a piece of the accumulators kept in registers across a block of V rows (P_BLOCK 0: the accumulators in L1); optional prefetch of K and V rows P_PREFETCH slots ahead
// param P_THREADS 1 2 4 default 2
// param P_BLOCK 0 8 16 32 256 1024 default 256
// param P_PREFETCH 0 2 4 8 default 4
//
// The driver (ranges, blocks, the block's softmax, the merge): hw::attn_decode_split in
// "headway_attn.h" (include/headway/headway_attn.h), with its row dot and rows' update
// (hw::AttnRows: a key row's values multiplied into both heads' sums, 4 vectors a head; for the
// value rows of a block, a piece of both heads' accumulators kept in registers while each row's
// piece is added with the two heads' weights). This file holds how bf16 values become f32: 16
// (AVX-512) or 8 (AVX2) at a time, zero-extended to 32 bits (vpmovzxwd) and shifted left by 16.
// Scalar fallback without AVX2/FMA (or when D is not a multiple of 32).
#include "headway_attn.h"
#include "headway_kernel.h"

#ifndef P_THREADS
#define P_THREADS 2
#endif
#ifndef P_BLOCK
#define P_BLOCK 256
#endif
#ifndef P_PREFETCH
#define P_PREFETCH 4
#endif

typedef struct hw_attn_decode_args {
  const uint16_t* q;        // input bf16 [N, G, D]
  const int32_t* valid;     // input int32 []
  const uint16_t* k_cache;  // input bf16 [T, N, D]
  const uint16_t* v_cache;  // input bf16 [T, N, D]
  uint16_t* attn;           // output bf16 [N, G, D]
  const int64_t* dims;      // T, N, G, D, VMIN
} hw_attn_decode_args;

namespace {

struct Bf16 {
#if defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
  // Zero-masked converts and shifts: GCC 12 warns that the plain ones' undefined source is
  // uninitialized.
  static __m512 load16(const uint16_t* p) {
    const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm512_castsi512_ps(
        _mm512_maskz_slli_epi32(0xFFFF, _mm512_maskz_cvtepu16_epi32(0xFFFF, bits), 16));
  }
#endif
#if defined(__AVX2__) && defined(__FMA__)
  static __m256 load8(const uint16_t* p) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16));
  }
#endif
  static float value(uint16_t v) { return hw::bf16_to_f32(v); }
};

struct Design : hw::AttnRows<Bf16, uint16_t> {
  using Args = hw_attn_decode_args;
  using Cache = uint16_t;
  static constexpr int kThreads = P_THREADS, kBlock = P_BLOCK, kPrefetch = P_PREFETCH;
  static constexpr float kQScale = 1.0f;
  static const Cache* keys(const Args* a) { return a->k_cache; }
  static const Cache* values(const Args* a) { return a->v_cache; }
  static float key_scale(const Args*, int64_t, int64_t) { return 1.0f; }
  static float value_scale(const Args*, int64_t, int64_t) { return 1.0f; }
};

}  // namespace

extern "C" void hw_attn_decode(const hw_attn_decode_args* a) { hw::attn_decode_split<Design>(a); }
