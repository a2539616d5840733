/* headway CUDA decode attention: the split-K (flash-decoding) machinery of the cuda designs of
 * attn_decode and attn_decode_f8 (kernels/specs/gemma4/attn_decode/), included by a candidate as
 * "headway_cuda_attn.h" (it includes "headway_cuda_support.h").
 *
 * The valid slots 0 .. valid-1 of each KV group n are cut into S contiguous splits of
 * ceil(valid / S) slots (the last ones may be short or empty). One block takes a (group, split)
 * item at a time: each warp keeps an online-softmax state (maximum m, sum l, accumulator acc) per
 * query head of the group over the rows it reads, each K and V row read once for the group's G
 * heads; the block merges its warps' states and writes the item's partial (m, l, acc) to scratch.
 * A second launch merges the S partials of each head by the rescale rule
 *     M = max_s m_s,  w_s = exp(m_s - M) (0 where l_s = 0),  attn = sum_s w_s acc_s / sum_s w_s l_s
 * and rounds attn to bf16 once. An empty split (or warp) has l = 0 and weighs nothing, so the
 * result is right for any valid in 1 .. T.
 *
 * A design supplies the rows: a struct with
 *     __device__ void load(int t, int lane, float (&k)[8], float (&v)[8], float& ks, float& vs)
 * giving lane `lane`'s 8 elements [8 lane, 8 lane + 8) of row t of K and of V (group n) and the
 * row's scales (1 for a bf16 cache), and the group's q (query heads n G .. n G + G - 1).
 *
 * Limits (the spec's shape sets keep them): G <= HW_ATTN_MAX_G, D <= 256 and a multiple of 8, and
 * the scratch holds N G S (D + 2) floats (hw_attn_scratch_bytes with the largest N G and D).
 * Scores and sums are f32; exp is expf.
 */
#ifndef HEADWAY_CUDA_ATTN_H
#define HEADWAY_CUDA_ATTN_H
#include "headway_cuda_support.h"

#ifdef __CUDACC__

#define HW_ATTN_MAX_G 2 /* query heads of a KV group the states hold */
#define HW_ATTN_E 8     /* elements of a row a lane holds: lane l has [8 l, 8 l + 8) */

/* The scratch a plan needs for `heads` query heads of `d` elements and `splits` splits. */
#define hw_attn_scratch_bytes(heads, d, splits) \
  ((unsigned long long)(heads) * (splits) * ((d) + 2) * 4)

/* The dims of the specs: T, N, G, D (VMIN is the generator's). */
struct hw_attn_dims {
  int t, n, g, d;
};
static __device__ __forceinline__ hw_attn_dims hw_attn_dims_of(const int64_t* dims) {
  return {(int)dims[0], (int)dims[1], (int)dims[2], (int)dims[3]};
}

/* Where the partials live in scratch: m [H][S], l [H][S], acc [H][S][D] (H = N G). */
struct hw_attn_partials {
  float *m, *l, *acc;
};
static __device__ __forceinline__ hw_attn_partials hw_attn_partials_at(unsigned char* scratch,
                                                                       int heads, int splits) {
  float* f = (float*)scratch;
  return {f, f + heads * splits, f + 2 * heads * splits};
}

/* One warp's online-softmax state for the G heads: lane `lane` holds acc elements [8 lane, +8). */
struct hw_attn_state {
  float m[HW_ATTN_MAX_G], l[HW_ATTN_MAX_G], acc[HW_ATTN_MAX_G][HW_ATTN_E];
};

static __device__ __forceinline__ void hw_attn_state_clear(hw_attn_state& st) {
#pragma unroll
  for (int g = 0; g < HW_ATTN_MAX_G; ++g) {
    st.m[g] = -INFINITY;
    st.l[g] = 0.0f;
#pragma unroll
    for (int e = 0; e < HW_ATTN_E; ++e) st.acc[g][e] = 0.0f;
  }
}

/* Folds rows t0 .. t0 + R - 1 (those below `end`; t0 < end) into the warp's state. q[g]: the
 * lane's 8 elements of head g's query times 1/sqrt(D). All 32 lanes call it together. The R rows'
 * loads are issued before any of them is used. */
template <int R, class Rows>
static __device__ __forceinline__ void hw_attn_rows(const Rows& rows, int t0, int end, int lane,
                                                    int heads,
                                                    const float (&q)[HW_ATTN_MAX_G][HW_ATTN_E],
                                                    hw_attn_state& st) {
  float k[R][HW_ATTN_E], v[R][HW_ATTN_E], ks[R], vs[R];
#pragma unroll
  for (int r = 0; r < R; ++r) rows.load(t0 + r < end ? t0 + r : t0, lane, k[r], v[r], ks[r], vs[r]);
#pragma unroll
  for (int g = 0; g < HW_ATTN_MAX_G; ++g) {
    if (g >= heads) break;
    float s[R];
    float top = st.m[g];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      float dot = 0.0f;
#pragma unroll
      for (int e = 0; e < HW_ATTN_E; ++e) dot += q[g][e] * k[r][e];
      dot = hw_warp_sum(dot); /* every lane, whatever the row: a shuffle out of any branch */
      s[r] = t0 + r < end ? dot * ks[r] : -INFINITY;
      top = fmaxf(top, s[r]);
    }
    /* top is finite: row t0 is below end. A state that held nothing (m = -inf) scales by 0. */
    const float shrink = expf(st.m[g] - top);
    st.m[g] = top;
    st.l[g] *= shrink;
#pragma unroll
    for (int e = 0; e < HW_ATTN_E; ++e) st.acc[g][e] *= shrink;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const float p = expf(s[r] - top);
      st.l[g] += p;
      const float pv = p * vs[r]; /* the row's V scale, once per row */
#pragma unroll
      for (int e = 0; e < HW_ATTN_E; ++e) st.acc[g][e] += pv * v[r][e];
    }
  }
}

/* The weight of a state of maximum m and sum l in a merge whose maximum is top: 0 for an empty
 * one (l = 0, m = -inf), whatever top is. */
static __device__ __forceinline__ float hw_attn_weight(float m, float l, float top) {
  return l > 0.0f ? expf(m - top) : 0.0f;
}

/* Merges the block's NWARPS warp states into the partial of split `split` of each of the G heads
 * of group n (index h S + split for head h = n G + g): every thread of the block calls it;
 * synchronizes. sm: shared memory of NWARPS (2 + 256) HW_ATTN_MAX_G floats. */
template <int NWARPS>
static __device__ __forceinline__ void hw_attn_block_partial(const hw_attn_state& st, float* sm,
                                                             hw_attn_partials out, int n, int split,
                                                             int splits, hw_attn_dims dims) {
  float* sm_m = sm;                                /* [NWARPS][MAX_G] */
  float* sm_l = sm + NWARPS * HW_ATTN_MAX_G;       /* [NWARPS][MAX_G] */
  float* sm_acc = sm + 2 * NWARPS * HW_ATTN_MAX_G; /* [NWARPS][MAX_G][256] */
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads(); /* the previous item's readers are done */
#pragma unroll
  for (int g = 0; g < HW_ATTN_MAX_G; ++g) {
    if (lane == 0) {
      sm_m[warp * HW_ATTN_MAX_G + g] = st.m[g];
      sm_l[warp * HW_ATTN_MAX_G + g] = st.l[g];
    }
#pragma unroll
    for (int e = 0; e < HW_ATTN_E; ++e) {
      const int i = HW_ATTN_E * lane + e;
      if (i < dims.d) sm_acc[(warp * HW_ATTN_MAX_G + g) * 256 + i] = st.acc[g][e];
    }
  }
  __syncthreads();
  for (int x = threadIdx.x; x < dims.g * dims.d; x += blockDim.x) {
    const int g = x / dims.d, i = x % dims.d;
    float top = -INFINITY;
    for (int w = 0; w < NWARPS; ++w) top = fmaxf(top, sm_m[w * HW_ATTN_MAX_G + g]);
    float l = 0.0f, acc = 0.0f;
    for (int w = 0; w < NWARPS; ++w) {
      const float weight =
          hw_attn_weight(sm_m[w * HW_ATTN_MAX_G + g], sm_l[w * HW_ATTN_MAX_G + g], top);
      l += weight * sm_l[w * HW_ATTN_MAX_G + g];
      acc += weight * sm_acc[(w * HW_ATTN_MAX_G + g) * 256 + i];
    }
    const int p = (n * dims.g + g) * splits + split;
    out.acc[p * dims.d + i] = acc;
    if (i == 0) {
      out.m[p] = top;
      out.l[p] = l;
    }
  }
}

/* The second launch's work: every head's `splits` partials merged by the rescale rule and attn
 * written as bf16, heads taken by blocks in turn (any grid, any block size). */
static __device__ __forceinline__ void hw_attn_merge(hw_attn_partials in, hw_bf16* attn, int splits,
                                                     hw_attn_dims dims) {
  const int heads = dims.n * dims.g;
  for (int h = blockIdx.x; h < heads; h += gridDim.x) {
    const float* m = in.m + h * splits;
    const float* l = in.l + h * splits;
    float top = -INFINITY;
    for (int s = 0; s < splits; ++s) top = fmaxf(top, m[s]);
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += hw_attn_weight(m[s], l[s], top) * l[s];
    for (int i = threadIdx.x; i < dims.d; i += blockDim.x) {
      float acc = 0.0f;
      for (int s = 0; s < splits; ++s)
        acc += hw_attn_weight(m[s], l[s], top) * in.acc[(h * splits + s) * dims.d + i];
      attn[h * dims.d + i] = hw_float_to_bf16(acc / sum);
    }
  }
}

/* The first launch's work: (group, split) items taken by blocks in turn; NWARPS warps of R-row
 * steps. make_rows(n) gives group n's rows. sm as hw_attn_block_partial's. */
template <int NWARPS, int R, class MakeRows>
static __device__ __forceinline__ void hw_attn_partials_pass(const hw_bf16* q_all, int valid,
                                                             hw_attn_dims dims, int splits,
                                                             unsigned char* scratch,
                                                             const MakeRows& make_rows, float* sm) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const hw_attn_partials out = hw_attn_partials_at(scratch, dims.n * dims.g, splits);
  const int chunk = (valid + splits - 1) / splits;
  const float inv_sqrt_d = 1.0f / sqrtf((float)dims.d);
  for (int item = blockIdx.x; item < dims.n * splits; item += gridDim.x) {
    const int n = item / splits, split = item % splits;
    const int begin = split * chunk;
    const int end = valid < begin + chunk ? valid : begin + chunk;
    float q[HW_ATTN_MAX_G][HW_ATTN_E];
#pragma unroll
    for (int g = 0; g < HW_ATTN_MAX_G; ++g) {
#pragma unroll
      for (int e = 0; e < HW_ATTN_E; ++e) {
        const int i = HW_ATTN_E * lane + e;
        q[g][e] = g < dims.g && i < dims.d
                      ? hw_bf16_to_float(q_all[(n * dims.g + g) * dims.d + i]) * inv_sqrt_d
                      : 0.0f;
      }
    }
    const auto rows = make_rows(n);
    hw_attn_state st;
    hw_attn_state_clear(st);
    for (int t0 = begin + warp * R; t0 < end; t0 += NWARPS * R)
      hw_attn_rows<R>(rows, t0, end, lane, dims.g, q, st);
    hw_attn_block_partial<NWARPS>(st, sm, out, n, split, splits, dims);
  }
}

#endif /* __CUDACC__ */
#endif /* HEADWAY_CUDA_ATTN_H */
