// headway-design: split_sext
// summary: split-K over the valid slots (one contiguous range per thread, partial max/sum/accumulator merged by online softmax); both query heads of a KV group from one pass over its K and V codes, in blocks of P_BLOCK slots, K and V of a block in turn (P_BLOCK up to 32), or in two passes, all the K rows then all the V rows, each in memory order, over each block of P_BLOCK slots (256, 1024: the block's scores in L1) or over the thread's whole range (P_BLOCK 0); f8 decoded in registers (vpmovsxbd, shift, AND: value * 2^-120), each row's scale applied once to its dot or weight; optional prefetch of K and V rows P_PREFETCH slots ahead
// subnormals: f8 codes below 2^-6 decode to f32 subnormals (the code's value times 2^-120)
// param P_THREADS 1 2 4 default 2
// param P_BLOCK 0 8 16 32 256 default 16
// param P_PREFETCH 0 2 4 8 default 4
//
// The driver (ranges, blocks, the block's softmax, the merge): hw::attn_decode_split in
// "headway_attn.h" (include/headway/headway_attn.h), with its row dot and rows' update
// (hw::AttnRows). This file holds the decode, as the sext_static designs': vpmovsxbd widens 16
// (AVX-512) or 8 (AVX2) codes to int32, a left shift by 20 and AND 0x87F00000 leave the f32 equal
// to the code's value times 2^-120 (subnormal codes exact). q is stored times 2^32 so that
// products stay normal; a key row's dot is times 2^-88, undone with its scale (2^88 * k_scale); a
// value row's weight is the probability times v_scale times 2^120.
// Scalar table fallback without AVX2/FMA (or when D is not a multiple of 32).
#include "headway_attn.h"
#include "headway_kernel.h"

#ifndef P_THREADS
#define P_THREADS 2
#endif
#ifndef P_BLOCK
#define P_BLOCK 16
#endif
#ifndef P_PREFETCH
#define P_PREFETCH 4
#endif

typedef struct hw_attn_decode_f8_args {
  const uint16_t* q;       // input bf16 [N, G, D]
  const int32_t* valid;    // input int32 []
  const uint8_t* k_cache;  // input f8e4m3 [T, N, D]
  const uint8_t* v_cache;  // input f8e4m3 [T, N, D]
  const float* k_scale;    // input f32 [T, N]
  const float* v_scale;    // input f32 [T, N]
  uint16_t* attn;          // output bf16 [N, G, D]
  const int64_t* dims;     // T, N, G, D, VMIN
} hw_attn_decode_f8_args;

namespace {

#if defined(__AVX2__) && defined(__FMA__)
constexpr float kQScale = 0x1p32f;       // q stored times 2^32 ...
constexpr float kDotScale = 0x1p88f;     // ... decoded codes are value * 2^-120
constexpr float kWeightScale = 0x1p120f;
constexpr float kCodeScale = 0x1p-120f;  // the table decode scaled to match
#else
constexpr float kQScale = 1.0f, kDotScale = 1.0f, kWeightScale = 1.0f, kCodeScale = 1.0f;
#endif

// The scalar path's decode: each code's value times kCodeScale (exact), as the SIMD paths'.
struct CodeTable {
  float v[256];
  CodeTable() {
    const hw::F8Table f8;
    for (int c = 0; c < 256; ++c) v[c] = f8.v[c] * kCodeScale;
  }
};

struct F8 {
#if defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
  // Zero-masked converts and shifts: GCC 12 warns that the plain ones' undefined source is
  // uninitialized.
  static __m512 load16(const uint8_t* p) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m512i codes = _mm512_maskz_cvtepi8_epi32(0xFFFF, bytes);
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_maskz_slli_epi32(0xFFFF, codes, 20),
                                                _mm512_set1_epi32(static_cast<int>(0x87F00000u))));
  }
#endif
#if defined(__AVX2__) && defined(__FMA__)
  static __m256 load8(const uint8_t* p) {
    const __m256i codes =
        _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(codes, 20),
                                                _mm256_set1_epi32(static_cast<int>(0x87F00000u))));
  }
#endif
  static float value(uint8_t c) {
    static const CodeTable table;
    return table.v[c];
  }
};

struct Design : hw::AttnRows<F8, uint8_t> {
  using Args = hw_attn_decode_f8_args;
  using Cache = uint8_t;
  static constexpr int kThreads = P_THREADS, kBlock = P_BLOCK, kPrefetch = P_PREFETCH;
  static constexpr float kQScale = ::kQScale;
  static const Cache* keys(const Args* a) { return a->k_cache; }
  static const Cache* values(const Args* a) { return a->v_cache; }
  static float key_scale(const Args* a, int64_t t, int64_t n) {
    return a->k_scale[t * a->dims[1] + n] * kDotScale;
  }
  static float value_scale(const Args* a, int64_t t, int64_t n) {
    return a->v_scale[t * a->dims[1] + n] * kWeightScale;
  }
};

}  // namespace

extern "C" void hw_attn_decode_f8(const hw_attn_decode_f8_args* a) {
  hw::attn_decode_split<Design>(a);
}
