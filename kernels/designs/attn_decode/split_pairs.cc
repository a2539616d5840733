// headway-design: split_pairs
// summary: split-K over the valid slots (one contiguous range per thread, partial max/sum/accumulator merged by online softmax); both query heads of a KV group from one pass over its K and V rows, in blocks of P_BLOCK slots; bf16 widened in registers (AVX-512 or AVX2), f32 sums, a piece of the accumulators kept in registers across a block of V rows; optional prefetch of K rows P_PREFETCH slots ahead and of the block's V rows
// param P_THREADS 1 2 4 default 2
// param P_BLOCK 8 16 32 default 16
// param P_PREFETCH 0 2 4 8 default 4
//
// The driver (ranges, blocks, the block's softmax, the merge): hw::attn_decode_split in
// "headway_attn.h" (include/headway/headway_attn.h). This file holds the bf16 row dot and the
// rows' update: a key row is widened 16 (AVX-512) or 8 (AVX2) values at a time (vpmovzxwd, shift
// by 16) and multiplied into both heads' sums (4 accumulators a head); for the value rows of a
// block, a piece of both heads' accumulators (64 or 32 values a head) stays in registers while
// every row's piece is widened once and added with the two heads' weights. Scalar fallback
// without AVX2/FMA (or when D is not a multiple of 32).
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

typedef struct hw_attn_decode_args {
  const uint16_t* q;        // input bf16 [N, G, D]
  const int32_t* valid;     // input int32 []
  const uint16_t* k_cache;  // input bf16 [T, N, D]
  const uint16_t* v_cache;  // input bf16 [T, N, D]
  uint16_t* attn;           // output bf16 [N, G, D]
  const int64_t* dims;      // T, N, G, D, VMIN
} hw_attn_decode_args;

namespace {

#if defined(__AVX512F__)
// Zero-masked converts and shifts: GCC 12 warns that the plain ones' undefined source is
// uninitialized.
inline __m512 widen16(const uint16_t* p) {
  const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return _mm512_castsi512_ps(
      _mm512_maskz_slli_epi32(0xFFFF, _mm512_maskz_cvtepu16_epi32(0xFFFF, bits), 16));
}
#endif
#if defined(__AVX2__) && defined(__FMA__)
inline __m256 widen8(const uint16_t* p) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(
      _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16));
}
#endif

struct Design {
  using Args = hw_attn_decode_args;
  using Cache = uint16_t;
  static constexpr int kThreads = P_THREADS, kBlock = P_BLOCK, kPrefetch = P_PREFETCH;
  static constexpr float kQScale = 1.0f;
  static const Cache* keys(const Args* a) { return a->k_cache; }
  static const Cache* values(const Args* a) { return a->v_cache; }
  static float key_scale(const Args*, int64_t, int64_t) { return 1.0f; }
  static float value_scale(const Args*, int64_t, int64_t) { return 1.0f; }

  template <int G>
  static void dot(const Cache* row, const float* q, int d, float* out) {
#if defined(__AVX512F__)
    if (d % 64 == 0) {
      __m512 s[G][4];
      for (int g = 0; g < G; ++g)
        for (int k = 0; k < 4; ++k) s[g][k] = _mm512_setzero_ps();
      for (int i = 0; i < d; i += 64) {
        for (int k = 0; k < 4; ++k) {
          const __m512 x = widen16(row + i + 16 * k);
          for (int g = 0; g < G; ++g)
            s[g][k] = _mm512_fmadd_ps(_mm512_loadu_ps(q + g * d + i + 16 * k), x, s[g][k]);
        }
      }
      for (int g = 0; g < G; ++g)
        out[g] = hw::hsum(_mm512_add_ps(_mm512_add_ps(s[g][0], s[g][1]),
                                        _mm512_add_ps(s[g][2], s[g][3])));
      return;
    }
#endif
#if defined(__AVX2__) && defined(__FMA__)
    if (d % 32 == 0) {
      __m256 s[G][4];
      for (int g = 0; g < G; ++g)
        for (int k = 0; k < 4; ++k) s[g][k] = _mm256_setzero_ps();
      for (int i = 0; i < d; i += 32) {
        for (int k = 0; k < 4; ++k) {
          const __m256 x = widen8(row + i + 8 * k);
          for (int g = 0; g < G; ++g)
            s[g][k] = _mm256_fmadd_ps(_mm256_loadu_ps(q + g * d + i + 8 * k), x, s[g][k]);
        }
      }
      for (int g = 0; g < G; ++g)
        out[g] = hw::hsum(_mm256_add_ps(_mm256_add_ps(s[g][0], s[g][1]),
                                        _mm256_add_ps(s[g][2], s[g][3])));
      return;
    }
#endif
    for (int g = 0; g < G; ++g) out[g] = 0.0f;
    for (int i = 0; i < d; ++i) {
      const float x = hw::bf16_to_f32(row[i]);
      for (int g = 0; g < G; ++g) out[g] += q[g * d + i] * x;
    }
  }

  // A piece of acc (4 vectors a head) stays in registers while the rows go by.
  template <int G>
  static void axpy_rows(const Cache* row, int64_t stride, int rows, const float* w,
                        int64_t w_stride, int d, float* acc) {
#if defined(__AVX512F__)
    if (d % 64 == 0) {
      for (int i = 0; i < d; i += 64) {
        __m512 sum[G][4];
        for (int g = 0; g < G; ++g)
          for (int k = 0; k < 4; ++k) sum[g][k] = _mm512_loadu_ps(acc + g * d + i + 16 * k);
        for (int r = 0; r < rows; ++r) {
          const Cache* v = row + r * stride + i;
          __m512 x[4];
          for (int k = 0; k < 4; ++k) x[k] = widen16(v + 16 * k);
          for (int g = 0; g < G; ++g) {
            const __m512 wg = _mm512_set1_ps(w[r * w_stride + g]);
            for (int k = 0; k < 4; ++k) sum[g][k] = _mm512_fmadd_ps(wg, x[k], sum[g][k]);
          }
        }
        for (int g = 0; g < G; ++g)
          for (int k = 0; k < 4; ++k) _mm512_storeu_ps(acc + g * d + i + 16 * k, sum[g][k]);
      }
      return;
    }
#endif
#if defined(__AVX2__) && defined(__FMA__)
    if (d % 32 == 0) {
      for (int i = 0; i < d; i += 32) {
        __m256 sum[G][4];
        for (int g = 0; g < G; ++g)
          for (int k = 0; k < 4; ++k) sum[g][k] = _mm256_loadu_ps(acc + g * d + i + 8 * k);
        for (int r = 0; r < rows; ++r) {
          const Cache* v = row + r * stride + i;
          __m256 x[4];
          for (int k = 0; k < 4; ++k) x[k] = widen8(v + 8 * k);
          for (int g = 0; g < G; ++g) {
            const __m256 wg = _mm256_set1_ps(w[r * w_stride + g]);
            for (int k = 0; k < 4; ++k) sum[g][k] = _mm256_fmadd_ps(wg, x[k], sum[g][k]);
          }
        }
        for (int g = 0; g < G; ++g)
          for (int k = 0; k < 4; ++k) _mm256_storeu_ps(acc + g * d + i + 8 * k, sum[g][k]);
      }
      return;
    }
#endif
    for (int r = 0; r < rows; ++r) {
      for (int i = 0; i < d; ++i) {
        const float x = hw::bf16_to_f32(row[r * stride + i]);
        for (int g = 0; g < G; ++g) acc[g * d + i] += w[r * w_stride + g] * x;
      }
    }
  }
};

}  // namespace

extern "C" void hw_attn_decode(const hw_attn_decode_args* a) { hw::attn_decode_split<Design>(a); }
