// headway-design: split_f16c
// summary: split-K over the valid slots (one contiguous range per thread, partial max/sum/accumulator merged by online softmax); both query heads of a KV group from one pass over its K and V codes, in blocks of P_BLOCK slots, K and V of a block in turn (P_BLOCK up to 32), or in two passes, all the K rows then all the V rows, each in memory order, over each block of P_BLOCK slots (256, 1024: the block's scores in L1) or over the thread's whole range (P_BLOCK 0); f8 rebuilt as f16 bit patterns (sign-extended to 16 bits, shifted left by 7, AND 0xBF80) and widened exactly by the F16C converter (vcvtph2ps): no f32 subnormals; each row's scale applied once to its dot or weight; optional prefetch of K and V rows P_PREFETCH slots ahead
// requires: f16c
// param P_THREADS 1 2 4 default 2
// param P_BLOCK 0 8 16 32 256 default 16
// param P_PREFETCH 0 2 4 8 default 4
//
// The driver (ranges, blocks, the block's softmax, the merge): hw::attn_decode_split in
// "headway_attn.h" (include/headway/headway_attn.h), with its row dot and rows' update
// (hw::AttnRows). This file holds the decode. A code sign-extended to 16 bits (vpmovsxbw) and
// shifted left by 7 holds its sign in bits 15 and 14 and its exponent and mantissa in bits 7-13;
// AND 0xBF80 clears bit 14 and leaves the f16 whose value is the code's value times 2^-8 (f16's
// exponent bias, 15, is e4m3's, 7, plus 8; subnormal codes become f16 subnormals, exactly).
// vcvtph2ps widens 16 (AVX-512) or 8 (AVX2) of them to f32 exactly: every f16 is a normal f32,
// so no subnormal reaches an FMA (split_sext makes them, which Intel cores multiply slowly;
// docs/PERFORMANCE.md, "Designs a chip makes slow"). A key row's dot is times 2^-8, undone with
// its scale (2^8 * k_scale); a value row's weight is the probability times v_scale times 2^8.
// Scalar table fallback without AVX2/FMA/F16C (or when D is not a multiple of 32).
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

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define HW_F16C_DECODE 1
constexpr float kRowScale = 0x1p8f;     // decoded codes are value * 2^-8
constexpr float kCodeScale = 0x1p-8f;  // the table decode scaled to match
#else
constexpr float kRowScale = 1.0f, kCodeScale = 1.0f;
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
  static float value(uint8_t c) {
    static const CodeTable table;
    return table.v[c];
  }
#if defined(HW_F16C_DECODE)
  // The f16 bit patterns of 8 or 16 codes (value * 2^-8).
  static __m128i halves8(const uint8_t* p) {
    const __m128i words = _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    return _mm_and_si128(_mm_slli_epi16(words, 7), _mm_set1_epi16(static_cast<short>(0xBF80)));
  }
  static __m256i halves16(const uint8_t* p) {
    const __m256i words =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_and_si256(_mm256_slli_epi16(words, 7),
                            _mm256_set1_epi16(static_cast<short>(0xBF80)));
  }
  static __m256 load8(const uint8_t* p) { return _mm256_cvtph_ps(halves8(p)); }
#if defined(__AVX512F__)
  static __m512 load16(const uint8_t* p) { return _mm512_cvtph_ps(halves16(p)); }
#endif
#elif defined(__AVX2__) && defined(__FMA__)  // no F16C (the proposer never offers it there)
  static __m256 load8(const uint8_t* p) {
    alignas(32) float v[8];
    for (int k = 0; k < 8; ++k) v[k] = value(p[k]);
    return _mm256_load_ps(v);
  }
#if defined(__AVX512F__)
  static __m512 load16(const uint8_t* p) {
    alignas(64) float v[16];
    for (int k = 0; k < 16; ++k) v[k] = value(p[k]);
    return _mm512_load_ps(v);
  }
#endif
#endif
};

struct Design : hw::AttnRows<F8, uint8_t> {
  using Args = hw_attn_decode_f8_args;
  using Cache = uint8_t;
  static constexpr int kThreads = P_THREADS, kBlock = P_BLOCK, kPrefetch = P_PREFETCH;
  static constexpr float kQScale = 1.0f;
  static const Cache* keys(const Args* a) { return a->k_cache; }
  static const Cache* values(const Args* a) { return a->v_cache; }
  static float key_scale(const Args* a, int64_t t, int64_t n) {
    return a->k_scale[t * a->dims[1] + n] * kRowScale;
  }
  static float value_scale(const Args* a, int64_t t, int64_t n) {
    return a->v_scale[t * a->dims[1] + n] * kRowScale;
  }
};

}  // namespace

extern "C" void hw_attn_decode_f8(const hw_attn_decode_f8_args* a) {
  hw::attn_decode_split<Design>(a);
}
