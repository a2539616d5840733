/* headway CUDA support: device helpers for candidates of the cuda target, shared by its baselines
 * and designs. Included by a candidate as "headway_cuda_support.h"; it includes "headway_cuda.h".
 *
 * What it holds: bf16 rounding and unpacking, gelu; warp, block and transposing sums and a block
 * maximum; the swizzled layout of activations in shared memory; f8e4m3 decoders (hardware
 * convert with a table or formula fallback, and an exact shift/AND decoder) and the e2m1
 * shift/AND decoder, with the dot products built on them; the "last block to arrive" counter;
 * and the finishing steps of qkv (per-head RMSNorm + RoPE), attn_out and ffn (RMSNorm +
 * residual).
 *
 * Every helper is a static __device__ __forceinline__ function (templates where a constant such
 * as a warp count differs), with its contract in the comment above it. Helpers that say they
 * synchronize call __syncthreads(): every thread of the block must call them. Nothing here keeps
 * state across calls of a kernel. Inline PTX is used only under __CUDA_ARCH__, so the file also
 * builds for the host under an emulation of the CUDA subset, which takes the portable paths.
 */
#ifndef HEADWAY_CUDA_SUPPORT_H
#define HEADWAY_CUDA_SUPPORT_H
#include "headway_cuda.h"

#ifdef __CUDACC__

/* 1 in device code for sm_89 and later, where cvt.rn.f16x2.e4m3x2 exists; else 0 (the
 * f8 decoders below then use a table or the formula of hw_f8e4m3_to_float). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define HW_F8_CVT 1
#else
#define HW_F8_CVT 0
#endif

/* ---- bf16 and activation functions ---- */

/* v rounded to bf16 (nearest even, as hw_float_to_bf16), returned as f32. */
static __device__ __forceinline__ float hw_round_bf16(float v) {
  return hw_bf16_to_float(hw_float_to_bf16(v));
}

/* The 8 bf16 of v as f32 (exact): out[k] is element k, element 2i being the low half of word i
 * (x, y, z, w), as a uint4 loaded from a bf16 array holds them. */
static __device__ __forceinline__ void hw_bf16x8_to_float(const uint4& v, float* out) {
  const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    out[2 * i] = __uint_as_float(words[i] << 16);
    out[2 * i + 1] = __uint_as_float(words[i] & 0xffff0000u);
  }
}

/* The contract's gelu: 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3))), f32, tanhf. */
static __device__ __forceinline__ float hw_gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

/* ---- sums ---- */

/* Sum of v over the 32 lanes of a warp (xor butterfly 16, 8, 4, 2, 1); every lane gets the same
 * total. All 32 lanes must call it together. */
static __device__ __forceinline__ float hw_warp_sum(float v) {
#pragma unroll
  for (int o = 16; o >= 1; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/* Sum of v over the block, blockDim.x == 32 * NWARPS; every thread gets the same total (the warp
 * totals added in warp order). red: __shared__ float[NWARPS] or larger. Synchronizes (before
 * writing red and after), so consecutive calls may share red. */
template <int NWARPS>
static __device__ __forceinline__ float hw_block_sum(float v, float* red) {
  v = hw_warp_sum(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < NWARPS; ++w) total += red[w];
  return total;
}

/* The maximum of v over the block, blockDim.x == 32 * NWARPS; every thread gets it. red:
 * __shared__ float[NWARPS] or larger. Synchronizes as hw_block_sum. */
template <int NWARPS>
static __device__ __forceinline__ float hw_block_max(float v, float* red) {
#pragma unroll
  for (int o = 16; o >= 1; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads();
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float top = red[0];
#pragma unroll
  for (int w = 1; w < NWARPS; ++w) top = fmaxf(top, red[w]);
  return top;
}

/* Transposing warp sum of R values per lane (R a power of two, at most 32): lane l returns the
 * sum over the warp's 32 lanes of v[l >> (5 - log2 R)], so each value's total sits in a group of
 * 32 / R consecutive lanes. R - 1 + 5 - log2 R shuffles per lane; v is overwritten. */
template <int R>
static __device__ __forceinline__ float hw_transpose_sum(float (&v)[R], int lane) {
  static_assert(R >= 1 && R <= 32 && (R & (R - 1)) == 0, "R must be a power of two up to 32");
  constexpr int LOG2R = (R >= 2) + (R >= 4) + (R >= 8) + (R >= 16) + (R >= 32);
#pragma unroll
  for (int s = 0; s < 5; ++s) {
    const int o = 16 >> s;
    if (s < LOG2R) {
      const int half = R >> (s + 1);
      const bool upper = (lane & o) != 0;
#pragma unroll
      for (int i = 0; i < half; ++i) {
        const float lo = v[i], hi = v[i + half];
        const float send = upper ? lo : hi;
        const float keep = upper ? hi : lo;
        v[i] = keep + __shfl_xor_sync(0xffffffffu, send, o);
      }
    } else {
      v[0] += __shfl_xor_sync(0xffffffffu, v[0], o);
    }
  }
  return v[0];
}

/* Every warp's totals of v[0..R-1] (hw_transpose_sum) into part[warp][0..R-1], then
 * __syncthreads(): the block's total of value r is part[0][r] + ... + part[NWARPS-1][r].
 * part: __shared__ float[NWARPS][R]. Synchronizes (after writing part only: a caller that reuses
 * part must synchronize after reading it). v is overwritten. */
template <int R>
static __device__ __forceinline__ void hw_warp_sums_to_shared(float (&v)[R], float (*part)[R]) {
  constexpr int LOG2R = (R >= 2) + (R >= 4) + (R >= 8) + (R >= 16) + (R >= 32);
  const int lane = threadIdx.x & 31;
  const float mine = hw_transpose_sum(v, lane);
  if ((lane & ((32 >> LOG2R) - 1)) == 0) part[threadIdx.x >> 5][lane >> (5 - LOG2R)] = mine;
  __syncthreads();
}

/* ---- activations in shared memory ---- */

/* Index of 4-byte word e (an f32, or a bf16 pair) of a vector kept in shared memory with its
 * 16-byte chunks swizzled: chunk c stored at chunk c ^ ((c >> 3) & MASK), MASK 3 or 7. A lane
 * reading group j of G = MASK + 1 consecutive chunks reads its chunk k at G j + (k ^ s),
 * s = ((G j) >> 3) & MASK; 8 lanes with consecutive j (from a multiple of 8) reading the same k
 * then hit 8 different 16-byte bank positions. */
template <int MASK>
static __device__ __forceinline__ int hw_swz16(int e) {
  const int c = e >> 2;
  return ((c ^ ((c >> 3) & MASK)) << 2) | (e & 3);
}

/* Elements 16j .. 16j+15 of an f32 vector stored by hw_swz16<3>, as four float4:
 * xv[k] holds elements 16j + 4k .. 16j + 4k + 3. */
static __device__ __forceinline__ void hw_swz16_load4(const float4* xs4, int j, float4 (&xv)[4]) {
  const int s = (j >> 1) & 3;
#pragma unroll
  for (int k = 0; k < 4; ++k) xv[k] = xs4[4 * j + (k ^ s)];
}

/* ---- f8e4m3 (weights and block scales) ---- */

/* The table hw_f8x4 needs below sm_89: without HW_F8_CVT, a __shared__ float[256] of its own with
 * table[c] = hw_f8e4m3_to_float(c), filled by the NT threads of the block (blockDim.x == NT) and
 * readable after the block's next __syncthreads(); with HW_F8_CVT, a null pointer (no table). */
template <int NT>
static __device__ __forceinline__ const float* hw_f8_table() {
#if HW_F8_CVT
  return 0;
#else
  __shared__ float table[256];
  for (int c = threadIdx.x; c < 256; c += NT) table[c] = hw_f8e4m3_to_float((uint8_t)c);
  return table;
#endif
}

/* The four f8e4m3 codes of w (byte k is element k) as f32, exact, NaN codes NaN: with HW_F8_CVT
 * by cvt.rn.f16x2.e4m3x2 and cvt.f32.f16 (table unused), else table[code] (hw_f8_table). */
static __device__ __forceinline__ void hw_f8x4(unsigned w, const float* table, float& f0, float& f1,
                                               float& f2, float& f3) {
#if HW_F8_CVT
  (void)table;
  unsigned lo, hi;
  asm("{\n\t.reg .b16 a, b;\n\tmov.b32 {a, b}, %2;\n\t"
      "cvt.rn.f16x2.e4m3x2 %0, a;\n\tcvt.rn.f16x2.e4m3x2 %1, b;\n\t}"
      : "=r"(lo), "=r"(hi)
      : "r"(w));
  asm("{\n\t.reg .b16 a, b, c, d;\n\tmov.b32 {a, b}, %4;\n\tmov.b32 {c, d}, %5;\n\t"
      "cvt.f32.f16 %0, a;\n\tcvt.f32.f16 %1, b;\n\tcvt.f32.f16 %2, c;\n\tcvt.f32.f16 %3, d;\n\t}"
      : "=f"(f0), "=f"(f1), "=f"(f2), "=f"(f3)
      : "r"(lo), "r"(hi));
#else
  f0 = table[w & 0xffu];
  f1 = table[(w >> 8) & 0xffu];
  f2 = table[(w >> 16) & 0xffu];
  f3 = table[w >> 24];
#endif
}

/* The 16 codes of w (byte k of word q, in x y z w order, is element 4q + k) times x (x[q] holds
 * elements 4q .. 4q+3), decoded by hw_f8x4 and accumulated in element order with fmaf: even
 * elements into acc[0], odd ones into acc[1]. */
static __device__ __forceinline__ void hw_f8x4_fma16(const uint4& w, const float4 (&x)[4],
                                                     const float* table, float (&acc)[2]) {
  const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    float f0, f1, f2, f3;
    hw_f8x4(words[q], table, f0, f1, f2, f3);
    acc[0] = fmaf(f0, x[q].x, acc[0]);
    acc[1] = fmaf(f1, x[q].y, acc[1]);
    acc[0] = fmaf(f2, x[q].z, acc[0]);
    acc[1] = fmaf(f3, x[q].w, acc[1]);
  }
}

/* The two f8e4m3 codes in the low 16 bits of v (low byte first) as f32, exact, NaN codes NaN:
 * with HW_F8_CVT by cvt.rn.f16x2.e4m3x2 and cvt.f32.f16, else by hw_f8e4m3_to_float. */
static __device__ __forceinline__ void hw_f8x2(unsigned v, float& s0, float& s1) {
#if HW_F8_CVT
  unsigned h2;
  const unsigned short c = (unsigned short)v;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(c));
  asm("{\n\t.reg .b16 a, b;\n\tmov.b32 {a, b}, %2;\n\tcvt.f32.f16 %0, a;\n\tcvt.f32.f16 %1, b;\n\t}"
      : "=f"(s0), "=f"(s1)
      : "r"(h2));
#else
  s0 = hw_f8e4m3_to_float((uint8_t)(v & 0xffu));
  s1 = hw_f8e4m3_to_float((uint8_t)((v >> 8) & 0xffu));
#endif
}

/* ---- shift/AND decoders: the weight times a power of two, no converts, no tables ---- */

/* a * b + c rounded once (fma.rn.f32 without .ftz whatever the build flags, so the subnormal f32
 * the shift decoders produce survive a -ftz build); fmaf on the host. */
static __device__ __forceinline__ float hw_fma_keep(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  float d;
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
  return d;
#else
  return fmaf(a, b, c);
#endif
}

/* The f8e4m3 code in byte K of w as f32: its value times 2^-120, exact (subnormal codes become
 * f32 subnormals). NaN codes (0x7f, 0xff) give a finite value, not NaN. */
template <int K>
static __device__ __forceinline__ float hw_f8_shift(unsigned w) {
  const int t = (int)(w << (24 - 8 * K));
  return __int_as_float((t >> 4) & (int)0x87F00000);
}

/* Sum over the 16 codes of w (byte k of word q, in x y z w order, is element 4q + k) of
 * hw_f8_shift(code) * x[element]: two accumulators (elements 4q and 4q+2, elements 4q+1 and
 * 4q+3), each in element order by hw_fma_keep, added at the end. */
static __device__ __forceinline__ float hw_f8_shift_dot16(const uint4& w, const float (&x)[16]) {
  const unsigned words[4] = {w.x, w.y, w.z, w.w};
  float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    s0 = hw_fma_keep(hw_f8_shift<0>(words[q]), x[4 * q + 0], s0);
    s1 = hw_fma_keep(hw_f8_shift<1>(words[q]), x[4 * q + 1], s1);
    s0 = hw_fma_keep(hw_f8_shift<2>(words[q]), x[4 * q + 2], s0);
    s1 = hw_fma_keep(hw_f8_shift<3>(words[q]), x[4 * q + 3], s1);
  }
  return s0 + s1;
}

/* The e2m1 code in nibble K of w (element K of the word) as f32: its value times 2^-126, exact
 * (0.5 becomes an f32 subnormal). */
template <int K>
static __device__ __forceinline__ float hw_e2m1_shift(unsigned w) {
  const int t = (int)(K == 7 ? w : w << (28 - 4 * K));
  return __int_as_float((t >> 6) & (int)0x81C00000);
}

/* acc plus the 8 codes of w (nibble k is element k) times x[0..7] (hw_e2m1_shift, so value * x *
 * 2^-126), accumulated in element order by hw_fma_keep. */
static __device__ __forceinline__ float hw_e2m1_fma8(unsigned w, const float* x, float acc) {
  acc = hw_fma_keep(hw_e2m1_shift<0>(w), x[0], acc);
  acc = hw_fma_keep(hw_e2m1_shift<1>(w), x[1], acc);
  acc = hw_fma_keep(hw_e2m1_shift<2>(w), x[2], acc);
  acc = hw_fma_keep(hw_e2m1_shift<3>(w), x[3], acc);
  acc = hw_fma_keep(hw_e2m1_shift<4>(w), x[4], acc);
  acc = hw_fma_keep(hw_e2m1_shift<5>(w), x[5], acc);
  acc = hw_fma_keep(hw_e2m1_shift<6>(w), x[6], acc);
  acc = hw_fma_keep(hw_e2m1_shift<7>(w), x[7], acc);
  return acc;
}

/* ---- ordering between blocks ---- */

/* The calling block's arrival at counter (a u32 in scratch, zero at the start of the call), after
 * the block's global writes; synchronizes. Returns true, in every thread, in the block whose
 * arrival is number `arrivals` (the count reaches arrivals), after a fence: that block then reads
 * what the blocks before it wrote with ld.global.cg (__ldcg). Elsewhere false. Uses a __shared__
 * int of its own. */
static __device__ __forceinline__ bool hw_last_block(unsigned* counter, unsigned arrivals) {
  __shared__ int last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(counter, 1u) == arrivals - 1u;
  }
  __syncthreads();
  if (!last) return false;
  __threadfence();
  return true;
}

/* ---- RMSNorm ---- */

/* out[j] = bf16(x[j] * inv * weight[j]) as f32 for j < HW_H, inv = 1 / sqrtf(mean(x^2) + HW_EPS),
 * by one block of NT threads (blockDim.x == NT): thread t sums the squares of elements t, t + NT,
 * ... in that order, then hw_block_sum. red as for hw_block_sum; synchronizes. */
template <int NT>
static __device__ __forceinline__ void hw_rms_norm_to_f32(const hw_bf16* x, const hw_bf16* weight,
                                                          float* out, float* red) {
  float ss = 0.0f;
  for (int j = threadIdx.x; j < HW_H; j += blockDim.x) {
    const float v = hw_bf16_to_float(x[j]);
    ss += v * v;
  }
  const float inv = 1.0f / sqrtf(hw_block_sum<NT / 32>(ss, red) / (float)HW_H + HW_EPS);
  for (int j = threadIdx.x; j < HW_H; j += blockDim.x) {
    const float v = hw_bf16_to_float(x[j]);
    out[j] = hw_round_bf16(v * inv * hw_bf16_to_float(weight[j]));
  }
}

/* RMSNorm of a vector held in slices. */

/* Thread t (blockDim.x == 32 * NWARPS) holds elements [N t, N t + N) of x (HW_H bf16 values,
 * 16-byte aligned; threads at or past HW_H / N hold none): xs[k] = bf16(x * inv * weight) * 2^64
 * for its elements, zeros for a thread holding none, inv = 1 / sqrtf(mean(x^2) + HW_EPS) (each
 * thread's squares summed in element order, then hw_block_sum). N a multiple of 8; red as for
 * hw_block_sum; synchronizes. */
template <int N, int NWARPS>
static __device__ __forceinline__ void hw_rms_norm_slice_x64(const hw_bf16* x,
                                                             const hw_bf16* weight, float (&xs)[N],
                                                             float* red) {
  const int tid = threadIdx.x;
  const bool active = tid < HW_H / N;
  float ss = 0.0f;
  float t[N];
  if (active) {
    const uint4* x4 = (const uint4*)(x + N * tid);
    uint4 v[N / 8];
#pragma unroll
    for (int k = 0; k < N / 8; ++k) v[k] = x4[k];
#pragma unroll
    for (int k = 0; k < N / 8; ++k) hw_bf16x8_to_float(v[k], t + 8 * k);
#pragma unroll
    for (int k = 0; k < N; ++k) ss += t[k] * t[k];
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) t[k] = 0.0f;
  }
#pragma unroll
  for (int k = 0; k < N; ++k) xs[k] = t[k];
  const float inv = 1.0f / sqrtf(hw_block_sum<NWARPS>(ss, red) / (float)HW_H + HW_EPS);
  if (active) {
    const uint4* w4 = (const uint4*)(weight + N * tid);
    unsigned g[N / 2];
#pragma unroll
    for (int k = 0; k < N / 8; ++k) {
      const uint4 v = w4[k];
      g[4 * k] = v.x, g[4 * k + 1] = v.y, g[4 * k + 2] = v.z, g[4 * k + 3] = v.w;
    }
#pragma unroll
    for (int k = 0; k < N / 2; ++k) {
      xs[2 * k] = hw_round_bf16(xs[2 * k] * inv * __uint_as_float(g[k] << 16)) * 0x1p64f;
      xs[2 * k + 1] =
          hw_round_bf16(xs[2 * k + 1] * inv * __uint_as_float(g[k] & 0xffff0000u)) * 0x1p64f;
    }
  }
}

/* ---- steps of the contract's kernels (NT: the block's threads, blockDim.x == NT) ---- */

/* The q, k or v matrix holding row `row` of the 8192 stacked qkv rows (q rows, then k, then v):
 * its codes w, its row scales and the row's index mrow inside it. */
static __device__ __forceinline__ void hw_qkv_matrix(const hw_qkv_args& a, int row,
                                                     const uint8_t*& w, const hw_bf16*& scale,
                                                     int& mrow) {
  if (row < HW_QS) {
    w = a.q_weight, scale = a.q_scale, mrow = row;
  } else if (row < HW_QS + HW_PS) {
    w = a.k_weight, scale = a.k_scale, mrow = row - HW_QS;
  } else {
    w = a.v_weight, scale = a.v_scale, mrow = row - HW_QS - HW_PS;
  }
}

/* qkv head `head` (0..15 q, 16..23 k, 24..31 v) from its HW_DS pre-norm values pre[head * HW_DS
 * + d] (bf16 values as f32, written by other blocks: read with ld.global.cg): RMSNorm (times
 * q_rms_weight or k_rms_weight for q and k heads), RoPE for q and k, each output rounded to bf16
 * once, into q_out or slot kv_slot of the k or v cache. NT divides HW_DS; thread t handles
 * d = t, t + NT, ... vals: __shared__ float[HW_DS]; red as for hw_block_sum; synchronizes. */
template <int NT>
static __device__ __forceinline__ void hw_qkv_finish_head(const hw_qkv_args& a, const float* pre,
                                                          int head, float* vals, float* red) {
  static_assert(HW_DS % NT == 0, "NT must divide HW_DS");
  constexpr int PER_THREAD = HW_DS / NT;
  const size_t slot = (size_t)a.kv_slot * HW_NS * HW_DS;
  const hw_bf16* weight;
  hw_bf16* out;
  bool rotate;
  if (head < HW_QS / HW_DS) {
    weight = a.q_rms_weight, out = a.q_out + head * HW_DS, rotate = true;
  } else if (head < (HW_QS + HW_PS) / HW_DS) {
    weight = a.k_rms_weight, out = a.k_cache + slot + (head - HW_QS / HW_DS) * HW_DS, rotate = true;
  } else {
    weight = 0, out = a.v_cache + slot + (head - (HW_QS + HW_PS) / HW_DS) * HW_DS, rotate = false;
  }
  /* every input load before the block sum, so that their latency overlaps it */
  float v[PER_THREAD], w[PER_THREAD], wp[PER_THREAD], c[PER_THREAD], sn[PER_THREAD];
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i) {
    const int d = threadIdx.x + i * NT;
    const int p = d < HW_DS / 2 ? d + HW_DS / 2 : d - HW_DS / 2;
    v[i] = __ldcg(pre + head * HW_DS + d);
    vals[d] = v[i];
    w[i] = weight ? hw_bf16_to_float(weight[d]) : 1.0f;
    wp[i] = rotate ? hw_bf16_to_float(weight[p]) : 0.0f;
    c[i] = rotate ? hw_bf16_to_float(a.cos[d]) : 0.0f;
    sn[i] = rotate ? hw_bf16_to_float(a.sin[d]) : 0.0f;
  }
  float ss = v[0] * v[0];
#pragma unroll
  for (int i = 1; i < PER_THREAD; ++i) ss += v[i] * v[i];
  const float inv =
      1.0f / sqrtf(hw_block_sum<NT / 32>(ss, red) / (float)HW_DS + HW_EPS); /* syncs vals */
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i) {
    const int d = threadIdx.x + i * NT;
    const float n = v[i] * inv * w[i];
    float o = n;
    if (rotate) {
      const int p = d < HW_DS / 2 ? d + HW_DS / 2 : d - HW_DS / 2;
      const float np = vals[p] * inv * wp[i];
      const float rotated = d < HW_DS / 2 ? -np : np;
      o = n * c[i] + rotated * sn[i];
    }
    out[d] = hw_float_to_bf16(o);
  }
}

/* The last block's RMSNorm + residual, from v (HW_H f32 values written by other blocks: read with
 * ld.global.cg): residual = bf16((residual + v * inv * weight) * scalar), inv = 1 /
 * sqrtf(mean(v^2) + HW_EPS). Every thread issues all its loads before its first store (a store
 * into residual could alias a later load, so the compiler would not move that load above it: one
 * memory latency per element). red as for hw_block_sum; synchronizes. */
template <int NT>
static __device__ __forceinline__ void hw_rms_residual_finish(const float* v, const hw_bf16* weight,
                                                              hw_bf16* residual, float scalar,
                                                              float* red) {
  constexpr int PER = (HW_H + NT - 1) / NT;
  float vv[PER], wv[PER], rv[PER];
  float ss = 0.0f;
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    const int i = threadIdx.x + k * NT;
    vv[k] = i < HW_H ? __ldcg(v + i) : 0.0f;
    wv[k] = i < HW_H ? hw_bf16_to_float(weight[i]) : 0.0f;
    rv[k] = i < HW_H ? hw_bf16_to_float(residual[i]) : 0.0f;
    ss += vv[k] * vv[k];
  }
  const float inv = 1.0f / sqrtf(hw_block_sum<NT / 32>(ss, red) / (float)HW_H + HW_EPS);
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    const int i = threadIdx.x + k * NT;
    const float normed = vv[k] * inv * wv[k];
    if (i < HW_H) residual[i] = hw_float_to_bf16((rv[k] + normed) * scalar);
  }
}

/* attn_out's finish from y (bf16 values as f32): residual = bf16(residual + y * inv *
 * post_attn_rms_weight), as hw_rms_residual_finish. */
template <int NT>
static __device__ __forceinline__ void hw_attn_out_finish(const hw_attn_out_args& a, const float* y,
                                                          float* red) {
  hw_rms_residual_finish<NT>(y, a.post_attn_rms_weight, a.residual, 1.0f, red);
}

/* ffn's finish from d: residual = bf16((residual + d * inv * post_ff_rms_weight) * layer_scalar),
 * as hw_rms_residual_finish. */
template <int NT>
static __device__ __forceinline__ void hw_ffn_finish(const hw_ffn_args& a, const float* d,
                                                     float* red) {
  hw_rms_residual_finish<NT>(d, a.post_ff_rms_weight, a.residual, hw_bf16_to_float(a.layer_scalar),
                             red);
}

#endif /* __CUDACC__ */

#endif /* HEADWAY_CUDA_SUPPORT_H */
