/* headway attention decode: the split-K driver of the attn_decode designs (C++ only). Included by
 * a candidate as "headway_attn.h".
 *
 * attn[n][g] = sum_t softmax_t(q[n][g] . K[t][n] * inv_sqrt_d) V[t][n] over the slots t < valid,
 * for N groups of G query heads of D values (kernels/specs/gemma4/attn_decode/). The driver splits
 * the valid slots into one contiguous range per thread. Each thread walks its range in blocks of
 * D::kBlock slots: it dots every key row of the block once with the G query heads of its group
 * (one pass over K for the G heads), takes the block's maximum score per head, rescales its
 * running sum and accumulator when that maximum grows, and adds each value row once, weighted by
 * the G heads' probabilities (one pass over V). Each thread leaves its partial (maximum, sum,
 * accumulator) per head; the caller merges them: with M the largest of the threads' maxima m_i,
 * each thread's sum and accumulator weigh exp(m_i - M), and attn = the weighted accumulators'
 * total / the weighted sums' total, rounded once to bf16. A thread with no slots leaves maximum
 * -inf and sum 0 and weighs nothing. Scores, probabilities and sums are f32. With AVX-512 the
 * block's maxima, exponentials (exp16) and sums take 16 heads a vector.
 *
 * With D::kBlock 0 a thread reads its range in two passes, each a single stream in memory order:
 * every key row (the scores of the whole range kept, heads floats a slot), the range's softmax at
 * its maximum, then every value row, added to the G heads' accumulators in L1. On one core of the
 * EPYC (Zen 5) that streams 26-29 GB/s where blocks of 8, K and V in turn, stream 21-23 (32,768
 * slots, docs/PERFORMANCE.md, "Attention decode designs"). With D::kBlock of kTwoPassBlockMin or
 * more, each block of the range is read so, in turn: its scores stay in L1 (16 KiB for 256 slots
 * of 16 heads) where a whole range's (1 MiB a thread at 32,768 slots) crowd the L2.
 *
 * A design supplies what makes it different as a struct D:
 *   using Args;                          the kernel's argument struct (q, valid, dims, attn ...)
 *   using Cache;                         the cache element (uint16_t bf16, uint8_t f8 codes)
 *   static constexpr int kThreads, kBlock, kPrefetch;   threads; slots per block (0: the two
 *                                        passes above over the whole range; kTwoPassBlockMin or
 *                                        more: over each block); key and value rows prefetched
 *                                        this many slots ahead (0: none)
 *   static constexpr float kQScale;      q is stored times this (exact: a power of two)
 *   static const Cache* keys(const Args*), *values(const Args*);
 *   static float key_scale(const Args*, int64_t t, int64_t n);    the raw dot -> score factor,
 *   static float value_scale(const Args*, int64_t t, int64_t n);  probability -> row weight factor,
 *                                        both without inv_sqrt_d (the driver applies it)
 *   template <int G> static void dot(const Cache* row, const float* q, int d, float* out);
 *       out[g] = row . q[g*d ...] for g < G (one pass over the row);
 *   template <int G> static void axpy_rows(const Cache* row, int64_t stride, int rows,
 *                                          const float* w, int64_t w_stride, int d, float* acc);
 *       acc[g*d + i] += sum over r < rows of w[r*w_stride + g] * row[r*stride + i], for g < G
 *       (each of the rows read once for the G heads; a design may keep a piece of acc in
 *       registers across the rows).
 * D::dot<G> and D::axpy_rows<G> are instantiated for G = 2 (the contract's) and called for
 * G == 2; any other G takes D::dot<1> and D::axpy_rows<1> once per head. A design whose rows
 * decode element by element takes both from hw::AttnRows<L, Cache> (below) by deriving from it.
 * Nothing here keeps state that depends on the inputs: the scratch is rewritten on every call. */
#ifndef HEADWAY_KERNEL_ATTN_H
#define HEADWAY_KERNEL_ATTN_H
#include <cmath>
#include <cstdint>
#include <vector>

#include "headway_rows.h"
#include "headway_support.h"

namespace hw {

/* The smallest D::kBlock read in two passes a block (above); smaller blocks read K and V in turn.
 */
constexpr int kTwoPassBlockMin = 64;

#if defined(__AVX512F__)
/* exp of 16 floats to about 1 ulp (inputs clamped to [-104, 88]: below, 0; above, not reached by
 * a score minus a maximum): 2^n * p(r) with n = round(x / ln 2), r = x - n ln 2 in two parts and p
 * the degree-7 Taylor polynomial. */
inline __m512 exp16(__m512 x) {
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-104.0f)), _mm512_set1_ps(88.0f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187e-06f), r);
  static constexpr float kCoef[8] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24,
                                     1.0f / 6,    0.5f,       1.0f,       1.0f};
  __m512 poly = _mm512_set1_ps(kCoef[0]);
  for (int k = 1; k < 8; ++k) poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(kCoef[k]));
  return _mm512_scalef_ps(poly, n);
}

/* out[0] and out[1]: the sums of a's and b's lanes (shuffles, no trip through memory). */
inline void hsum_pair(__m512 a, __m512 b, float* out) {
  __m512 s = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x44), _mm512_shuffle_f32x4(a, b, 0xEE));
  s = _mm512_add_ps(s, _mm512_shuffle_f32x4(s, s, 0xB1));  // 128-bit lanes 0, 1: a; 2, 3: b
  s = _mm512_add_ps(s, _mm512_permute_ps(s, 0x4E));
  s = _mm512_add_ps(s, _mm512_permute_ps(s, 0xB1));
  out[0] = _mm512_cvtss_f32(s);
  out[1] = _mm_cvtss_f32(_mm512_extractf32x4_ps(s, 2));
}

/* out[g] = the sum of s[g][0..3]'s lanes, g < G. */
template <int G>
inline void hsum_heads(const __m512 (&s)[G][4], float* out) {
  __m512 t[G];
  for (int g = 0; g < G; ++g)
    t[g] = _mm512_add_ps(_mm512_add_ps(s[g][0], s[g][1]), _mm512_add_ps(s[g][2], s[g][3]));
  int g = 0;
  for (; g + 1 < G; g += 2) hsum_pair(t[g], t[g + 1], out + g);
  if (g < G) out[g] = hsum(t[g]);
}
#endif

/* dot and axpy_rows (the driver's contract above) for rows whose elements decode one by one, as
 * L does it:
 *   static __m512 load16(const Cache* p);   16 elements as f32 (where AVX-512F, AVX2 and FMA are)
 *   static __m256 load8(const Cache* p);    8 elements as f32 (where AVX2 and FMA are)
 *   static float value(Cache c);            one element (elsewhere, or D not a multiple of 32)
 * The dot keeps 4 vectors of sums a head; axpy_rows keeps a piece of the G heads' accumulators
 * (4 vectors a head) in registers while each row's piece is decoded once and added with the G
 * weights. */
template <class L, class Cache>
struct AttnRows {
  template <int G>
  static void dot(const Cache* row, const float* q, int d, float* out) {
#if defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
    if (d % 64 == 0) {
      __m512 s[G][4];
      for (int g = 0; g < G; ++g)
        for (int k = 0; k < 4; ++k) s[g][k] = _mm512_setzero_ps();
      for (int i = 0; i < d; i += 64) {
        for (int k = 0; k < 4; ++k) {
          const __m512 x = L::load16(row + i + 16 * k);
          for (int g = 0; g < G; ++g)
            s[g][k] = _mm512_fmadd_ps(_mm512_loadu_ps(q + g * d + i + 16 * k), x, s[g][k]);
        }
      }
      hsum_heads<G>(s, out);
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
          const __m256 x = L::load8(row + i + 8 * k);
          for (int g = 0; g < G; ++g)
            s[g][k] = _mm256_fmadd_ps(_mm256_loadu_ps(q + g * d + i + 8 * k), x, s[g][k]);
        }
      }
      for (int g = 0; g < G; ++g)
        out[g] =
            hsum(_mm256_add_ps(_mm256_add_ps(s[g][0], s[g][1]), _mm256_add_ps(s[g][2], s[g][3])));
      return;
    }
#endif
    for (int g = 0; g < G; ++g) out[g] = 0.0f;
    for (int i = 0; i < d; ++i) {
      const float x = L::value(row[i]);
      for (int g = 0; g < G; ++g) out[g] += q[g * d + i] * x;
    }
  }

  template <int G>
  static void axpy_rows(const Cache* row, int64_t stride, int rows, const float* w,
                        int64_t w_stride, int d, float* acc) {
#if defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
    if (d % 64 == 0) {
      for (int i = 0; i < d; i += 64) {
        __m512 sum[G][4];
        for (int g = 0; g < G; ++g)
          for (int k = 0; k < 4; ++k) sum[g][k] = _mm512_loadu_ps(acc + g * d + i + 16 * k);
        for (int r = 0; r < rows; ++r) {
          const Cache* v = row + r * stride + i;
          __m512 x[4];
          for (int k = 0; k < 4; ++k) x[k] = L::load16(v + 16 * k);
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
          for (int k = 0; k < 4; ++k) x[k] = L::load8(v + 8 * k);
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
        const float x = L::value(row[r * stride + i]);
        for (int g = 0; g < G; ++g) acc[g * d + i] += w[r * w_stride + g] * x;
      }
    }
  }
};

/* One thread's scratch: prepared q, its partial per head, the block's scores. */
struct AttnPartial {
  float* q;     /* [heads * d] */
  float* m;     /* [heads] running maximum score */
  float* l;     /* [heads] running sum of exp(score - m) */
  float* acc;   /* [heads * d] running weighted sum of value rows */
  float* score; /* [block * heads] */
};

template <class D>
struct AttnDecodeJob {
  const typename D::Args* a;
  int64_t valid, groups, g_heads, d;
  int threads;
  float inv_sqrt_d;
  std::vector<float>* scratch;
  size_t per_thread;

  int64_t heads() const { return groups * g_heads; }
  /* Each thread's part starts on a cache line of its own (the scratch holds 16 floats more than
   * the parts), so that the accumulators' vectors never straddle two lines. */
  AttnPartial partial(int tid) const {
    const uintptr_t at = reinterpret_cast<uintptr_t>(scratch->data());
    float* base = reinterpret_cast<float*>((at + 63) & ~uintptr_t{63}) +
                  per_thread * static_cast<size_t>(tid);
    const int64_t h = heads();
    return {base, base + h * d, base + h * d + h, base + h * d + 2 * h, base + 2 * h * d + 2 * h};
  }
  /* A thread's scratch with room for the scores of `score_rows` slots. */
  static size_t floats_per_thread(int64_t heads, int64_t d, int64_t score_rows) {
    const size_t n = static_cast<size_t>(heads * (2 * d + 2) + score_rows * heads);
    return (n + 15) / 16 * 16;  // a whole number of cache lines
  }

  template <int G>
  void dot(const typename D::Cache* row, const float* q, float* out) const {
    if (G == g_heads) {
      D::template dot<G>(row, q, static_cast<int>(d), out);
    } else {
      for (int64_t g = 0; g < g_heads; ++g)
        D::template dot<1>(row, q + g * d, static_cast<int>(d), out + g);
    }
  }
  template <int G>
  void axpy_rows(const typename D::Cache* row, int rows, const float* w, float* acc) const {
    const int64_t stride = groups * d, w_stride = heads();
    if (G == g_heads) {
      D::template axpy_rows<G>(row, stride, rows, w, w_stride, static_cast<int>(d), acc);
    } else {
      for (int64_t g = 0; g < g_heads; ++g)
        D::template axpy_rows<1>(row, stride, rows, w + g, w_stride, static_cast<int>(d),
                                 acc + g * d);
    }
  }

  void prefetch_row(const typename D::Cache* row) const {
#if defined(__AVX__)
    const char* p = reinterpret_cast<const char*>(row);
    const int64_t bytes = d * static_cast<int64_t>(sizeof(typename D::Cache));
    for (int64_t b = 0; b < bytes; b += 64) prefetch_line<2>(p + b);
#else
    (void)row;
#endif
  }

  /* Head h's running sum and accumulator times shrink, as its maximum grows. */
  void rescale(const AttnPartial& p, int64_t h, float shrink) const {
    p.l[h] *= shrink;
    for (int64_t i = 0; i < d; ++i) p.acc[h * d + i] *= shrink;
  }

  /* The block's probabilities in place of its scores (score[r * heads + h], r < rows), relative
   * to each head's running maximum, which grows to the block's maximum first (the running sum
   * and accumulator shrink by exp(old - new) then); their sums added to the running sums. */
  void softmax_block(const AttnPartial& p, int rows) const {
    const int64_t h_count = heads();
    int64_t h0 = 0;
#if defined(__AVX512F__)
    for (; h0 < h_count; h0 += 16) {  // 16 heads a vector: the scores of a slot are contiguous
      const __mmask16 lanes = h_count - h0 >= 16
                                  ? __mmask16{0xFFFF}
                                  : static_cast<__mmask16>((1u << (h_count - h0)) - 1);
      const __m512 minus_inf = _mm512_set1_ps(-INFINITY);
      __m512 top = minus_inf;
      for (int r = 0; r < rows; ++r)
        top =
            _mm512_max_ps(top, _mm512_mask_loadu_ps(minus_inf, lanes, p.score + r * h_count + h0));
      const __m512 old_max = _mm512_mask_loadu_ps(minus_inf, lanes, p.m + h0);
      const __mmask16 grows = _mm512_mask_cmp_ps_mask(lanes, top, old_max, _CMP_GT_OQ);
      const __m512 new_max = _mm512_mask_blend_ps(grows, old_max, top);
      if (grows) {
        alignas(64) float shrink[16];
        _mm512_store_ps(shrink, exp16(_mm512_sub_ps(old_max, new_max)));
        for (int k = 0; k < 16; ++k) {
          if ((grows >> k & 1) && p.l[h0 + k] > 0.0f) rescale(p, h0 + k, shrink[k]);
        }
      }
      _mm512_mask_storeu_ps(p.m + h0, lanes, new_max);
      __m512 sum = _mm512_maskz_loadu_ps(lanes, p.l + h0);
      for (int r = 0; r < rows; ++r) {
        float* score = p.score + r * h_count + h0;
        const __m512 prob = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, score), new_max));
        _mm512_mask_storeu_ps(score, lanes, prob);
        sum = _mm512_mask_add_ps(sum, lanes, sum, prob);
      }
      _mm512_mask_storeu_ps(p.l + h0, lanes, sum);
    }
#endif
    for (int64_t h = h0; h < h_count; ++h) {
      float top = -INFINITY;
      for (int r = 0; r < rows; ++r) {
        const float score = p.score[r * h_count + h];
        top = score > top ? score : top;
      }
      if (top > p.m[h]) {
        if (p.l[h] > 0.0f) rescale(p, h, std::exp(p.m[h] - top));
        p.m[h] = top;
      }
      for (int r = 0; r < rows; ++r) {
        float& score = p.score[r * h_count + h];
        score = std::exp(score - p.m[h]);
        p.l[h] += score;
      }
    }
  }

  int64_t begin(int tid) const { return valid * tid / threads; }
  int64_t end(int tid) const { return valid * (tid + 1) / threads; }

  /* Thread tid's q prepared, and its partial empty: maximum -inf, sum and accumulator 0. */
  AttnPartial start(int tid) const {
    const AttnPartial p = partial(tid);
    const int64_t h_count = heads();
    for (int64_t i = 0; i < h_count * d; ++i) {
      p.q[i] = bf16_to_f32(a->q[i]) * D::kQScale;
      p.acc[i] = 0.0f;
    }
    for (int64_t h = 0; h < h_count; ++h) {
      p.m[h] = -INFINITY;
      p.l[h] = 0.0f;
    }
    return p;
  }

  /* The scores of slots [b, e) into score[(t - b) * heads + h], every key row once in memory
   * order (the G heads of its group from one pass); rows `ahead` slots on, before `limit`,
   * prefetched (0: none), the value rows too where `values_too`. */
  void scores(const AttnPartial& p, int64_t b, int64_t e, int64_t ahead, int64_t limit,
              bool values_too) const {
    const int64_t h_count = heads();
    float raw[8];
    for (int64_t t = b; t < e; ++t) {
      for (int64_t n = 0; n < groups; ++n) {
        if (ahead > 0 && t + ahead < limit) {
          prefetch_row(row_of(D::keys(a), t + ahead, n));
          if (values_too) prefetch_row(row_of(D::values(a), t + ahead, n));
        }
        dot<2>(row_of(D::keys(a), t, n), p.q + n * g_heads * d, raw);
        const float f = D::key_scale(a, t, n) * inv_sqrt_d;
        for (int64_t g = 0; g < g_heads; ++g)
          p.score[(t - b) * h_count + n * g_heads + g] = raw[g] * f;
      }
    }
  }

  /* The probabilities of slots [b, e) (after softmax_block) times each value row's scale. */
  void scale_weights(const AttnPartial& p, int64_t b, int64_t e) const {
    const int64_t h_count = heads();
    for (int64_t t = b; t < e; ++t) {
      for (int64_t n = 0; n < groups; ++n) {
        const float f = D::value_scale(a, t, n);
        for (int64_t g = 0; g < g_heads; ++g) p.score[(t - b) * h_count + n * g_heads + g] *= f;
      }
    }
  }

  /* Thread tid's partial over its range of slots, a block of D::kBlock slots at a time. */
  void run(int tid) const {
    const AttnPartial p = start(tid);
    const int64_t range_end = end(tid);
    for (int64_t b = begin(tid); b < range_end; b += D::kBlock) {
      const int64_t e = b + D::kBlock < range_end ? b + D::kBlock : range_end;
      scores(p, b, e, D::kPrefetch, range_end, true);
      softmax_block(p, static_cast<int>(e - b));
      scale_weights(p, b, e);
      for (int64_t n = 0; n < groups; ++n)  // values: every value row of the block once
        axpy_rows<2>(row_of(D::values(a), b, n), static_cast<int>(e - b), p.score + n * g_heads,
                     p.acc + n * g_heads * d);
    }
  }

  /* Slots [b, e) in two passes over memory, each one stream: every key row in memory order (the
   * scores of [b, e)), their softmax (rescaling the partial where the maximum grows), then every
   * value row in memory order, added once to the G heads' accumulators (which stay in L1: heads
   * * d floats). */
  void two_passes(const AttnPartial& p, int64_t b, int64_t e) const {
    scores(p, b, e, D::kPrefetch, e, false);
    softmax_block(p, static_cast<int>(e - b));
    scale_weights(p, b, e);
    const int64_t h_count = heads();
    for (int64_t t = b; t < e; ++t) {
      for (int64_t n = 0; n < groups; ++n) {
        if (D::kPrefetch > 0 && t + D::kPrefetch < e)
          prefetch_row(row_of(D::values(a), t + D::kPrefetch, n));
        axpy_rows<2>(row_of(D::values(a), t, n), 1, p.score + (t - b) * h_count + n * g_heads,
                     p.acc + n * g_heads * d);
      }
    }
  }

  /* Thread tid's partial over its range of slots in two passes (D::kBlock 0) or in blocks of
   * D::kBlock slots, each in two passes. */
  void run_two_pass(int tid) const {
    const AttnPartial p = start(tid);
    const int64_t range_end = end(tid);
    const int64_t step = D::kBlock > 0 ? D::kBlock : range_end - begin(tid);
    for (int64_t b = begin(tid); b < range_end; b += step)
      two_passes(p, b, b + step < range_end ? b + step : range_end);
  }

  /* Slot t's row of group n in a cache laid out [T][N][D]. */
  const typename D::Cache* row_of(const typename D::Cache* cache, int64_t t, int64_t n) const {
    return cache + (t * groups + n) * d;
  }

  /* attn from every thread's partial. */
  void merge(hw_bf16* attn) const {
    const int64_t h_count = heads();
    std::vector<float> weight(static_cast<size_t>(threads)), total(static_cast<size_t>(d));
    for (int64_t h = 0; h < h_count; ++h) {
      float top = -INFINITY;
      for (int t = 0; t < threads; ++t) top = partial(t).m[h] > top ? partial(t).m[h] : top;
      float sum = 0.0f;
      for (int t = 0; t < threads; ++t) {
        const AttnPartial p = partial(t);
        weight[t] = p.l[h] > 0.0f ? std::exp(p.m[h] - top) : 0.0f;
        sum += p.l[h] * weight[t];
      }
      const float inv = 1.0f / sum;
      for (int64_t i = 0; i < d; ++i) total[i] = 0.0f;
      for (int t = 0; t < threads; ++t) {  // a thread's row at a time, so that it vectorizes
        if (weight[t] == 0.0f) continue;
        const float* acc = partial(t).acc + h * d;
        for (int64_t i = 0; i < d; ++i) total[i] += acc[i] * weight[t];
      }
      for (int64_t i = 0; i < d; ++i) attn[h * d + i] = f32_to_bf16(total[i] * inv);
    }
  }
};

/* The kernel: a->dims is T, N, G, D, ...; *a->valid slots (1 <= valid <= T); at most 8 heads a
 * group. Each thread's partial by AttnDecodeJob::run (blocks of D::kBlock slots, K and V in turn)
 * or, where D::kBlock is 0 or at least kTwoPassBlockMin, by run_two_pass. */
template <class D>
inline void attn_decode_split(const typename D::Args* a) {
  static std::vector<float> scratch;  // rewritten on every call
  AttnDecodeJob<D> job{a,
                       *a->valid,
                       a->dims[1],
                       a->dims[2],
                       a->dims[3],
                       D::kThreads,
                       1.0f / std::sqrt(static_cast<float>(a->dims[3])),
                       &scratch,
                       0};
  Pool& workers = pool(D::kThreads);
  job.threads = workers.threads();
  constexpr bool kTwoPass = D::kBlock == 0 || D::kBlock >= kTwoPassBlockMin;
  const int64_t rows = D::kBlock == 0 ? (job.valid + job.threads - 1) / job.threads : D::kBlock;
  job.per_thread = AttnDecodeJob<D>::floats_per_thread(job.heads(), job.d, rows);
  const size_t need = job.per_thread * static_cast<size_t>(job.threads) + 16;
  if (scratch.size() < need) scratch.resize(need);
  workers.run(
      [](void* ctx, int tid) {
        const auto* job = static_cast<const AttnDecodeJob<D>*>(ctx);
        if (kTwoPass) {
          job->run_two_pass(tid);
        } else {
          job->run(tid);
        }
      },
      &job);
  job.merge(a->attn);
}

}  // namespace hw
#endif /* HEADWAY_KERNEL_ATTN_H */
