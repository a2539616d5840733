// headway-design: warp_heads
// summary: one launch; a warp per P_ROWS rows, 16-byte weight loads all issued before the block computes xn (swizzled f32 in shared memory); f8 decoded by the hardware e4m3x2->f16x2 convert (sm_89+; 256-entry shared table below); each head's RMSNorm+RoPE done by the last of its blocks to finish (per-head counters in scratch)
// param P_ROWS 1 2 4 default 2
// param P_WARPS 4 8 default 8
//
// Rows: the 8192 rows (q, then k, then v) are cut into blocks of P_ROWS*P_WARPS rows, which
// divides 256, so every block lies inside one head and one matrix. A row is 3840 codes = 240
// uint4; lane l loads uint4 j = l + 32i (i < 8; the 8th only for l < 16) of each of its rows into
// registers at the start, so all of the warp's weight bytes are in flight while the block computes
// xn = bf16(RMSNorm(x) * input_rms_weight) (each block does this itself: 15 KB from L2).
// Activations: xn as f32 in shared memory; a lane reads the 16 values of its uint4 as four float4,
// and the 16-byte chunks are XOR-swizzled (chunk c stored at c ^ ((c >> 3) & 3)) so that the 8
// lanes of a quarter warp hit 8 different bank groups.
// Decode: cvt.rn.f16x2.e4m3x2 turns two codes into two f16 (exact; NaN codes stay NaN), cvt.f32.f16
// widens them; f32 FMAs, two accumulators per row; warp shuffle sum; pre = bf16(dot * row_scale)
// into scratch. Then __syncthreads, thread 0 fences and bumps the head's counter; the block that
// brings it to 256/(P_ROWS*P_WARPS) reads the head's 256 pre values back (ld.global.cg) and writes
// RMSNorm (* q/k weight) and RoPE, rounded to bf16 once, into q_out or slot kv_slot of the cache.
#include "headway_cuda.h"

#ifndef P_ROWS
#define P_ROWS 2
#endif
#ifndef P_WARPS
#define P_WARPS 8
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define HW_F8_CVT 1
#else
#define HW_F8_CVT 0
#endif

#define QKV_ROWS (HW_QS + 2 * HW_PS) /* 8192 */
#define NT (32 * P_WARPS)              /* threads per block */
#define RB (P_ROWS * P_WARPS)          /* rows per block */
#define NBLOCKS (QKV_ROWS / RB)
#define BLOCKS_PER_HEAD (HW_DS / RB)
#define NHEADS (QKV_ROWS / HW_DS) /* 32 */
#define ROW_U4 (HW_H / 16)       /* 240 uint4 per row */
#define STEPS 8                  /* ceil(240 / 32) */

/* scratch layout */
#define PRE_OFFSET 0                       /* f32 [8192], each a bf16 value */
#define COUNT_OFFSET (QKV_ROWS * 4)         /* u32 [32], one per head */
#define SCRATCH_BYTES (COUNT_OFFSET + 256)

#if (HW_DS % RB) != 0
#error "P_ROWS * P_WARPS must divide 256"
#endif

static __device__ __forceinline__ float round_bf16(float v) {
  return hw_bf16_to_float(hw_float_to_bf16(v));
}

static __device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o >= 1; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/* Sum over the block; every thread gets the same total. */
static __device__ __forceinline__ float block_sum(float v, float* red) {
  v = warp_sum(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < P_WARPS; ++w) total += red[w];
  return total;
}

/* Index of element e of a 16-per-uint4 activation vector in the swizzled shared copy. */
static __device__ __forceinline__ int swz16(int e) {
  const int c = e >> 2;
  return ((c ^ ((c >> 3) & 3)) << 2) | (e & 3);
}

/* Four f8e4m3 codes (byte k of w is element k) to f32. */
static __device__ __forceinline__ void decode4(unsigned w, const float* table, float& f0, float& f1,
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

/* The last block of a head: RMSNorm (times the head weight for q and k), RoPE for q and k. */
static __device__ void finish_head(const hw_qkv_args& a, const float* pre, int head, float* vals,
                                   float* red) {
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
  float ss = 0.0f;
  for (int d = threadIdx.x; d < HW_DS; d += NT) {
    const float v = __ldcg(pre + head * HW_DS + d);
    vals[d] = v;
    ss += v * v;
  }
  const float inv = 1.0f / sqrtf(block_sum(ss, red) / (float)HW_DS + HW_EPS); /* syncs vals */
  for (int d = threadIdx.x; d < HW_DS; d += NT) {
    const float n = vals[d] * inv * (weight ? hw_bf16_to_float(weight[d]) : 1.0f);
    float o = n;
    if (rotate) {
      const int p = d < HW_DS / 2 ? d + HW_DS / 2 : d - HW_DS / 2;
      const float np = vals[p] * inv * hw_bf16_to_float(weight[p]);
      const float rotated = d < HW_DS / 2 ? -np : np;
      o = n * hw_bf16_to_float(a.cos[d]) + rotated * hw_bf16_to_float(a.sin[d]);
    }
    out[d] = hw_float_to_bf16(o);
  }
}

extern "C" __global__ void __launch_bounds__(NT) qkv_warp_heads(hw_qkv_args a, unsigned char* scratch) {
  __shared__ __align__(16) float xs[HW_H];
  __shared__ float red[32];
  __shared__ float vals[HW_DS];
  __shared__ int last;
#if HW_F8_CVT
  const float* table = 0;
#else
  __shared__ float table[256];
  for (int c = threadIdx.x; c < 256; c += NT) table[c] = hw_f8e4m3_to_float((uint8_t)c);
#endif
  float* pre = (float*)(scratch + PRE_OFFSET);
  unsigned* head_count = (unsigned*)(scratch + COUNT_OFFSET);

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int row0 = blockIdx.x * RB; /* first row of the block, 0..8191 */
  const int head = row0 / HW_DS;
  const uint8_t* w;
  const hw_bf16* scale;
  int mrow; /* first row of this warp inside its matrix */
  if (row0 < HW_QS) {
    w = a.q_weight, scale = a.q_scale, mrow = row0;
  } else if (row0 < HW_QS + HW_PS) {
    w = a.k_weight, scale = a.k_scale, mrow = row0 - HW_QS;
  } else {
    w = a.v_weight, scale = a.v_scale, mrow = row0 - HW_QS - HW_PS;
  }
  mrow += warp * P_ROWS;

  /* 1. every weight byte of this warp's rows in flight */
  uint4 wv[P_ROWS][STEPS];
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) {
    const uint4* row = (const uint4*)(w + (size_t)(mrow + p) * HW_H);
#pragma unroll
    for (int i = 0; i < STEPS; ++i) {
      const int j = lane + 32 * i;
      wv[p][i] = (j < ROW_U4) ? __ldg(row + j) : make_uint4(0u, 0u, 0u, 0u);
    }
  }

  /* 2. xn into shared memory (swizzled) */
  float ss = 0.0f;
  for (int e = tid; e < HW_H; e += NT) {
    const float v = hw_bf16_to_float(a.x[e]);
    ss += v * v;
  }
  const float inv = 1.0f / sqrtf(block_sum(ss, red) / (float)HW_H + HW_EPS);
  for (int e = tid; e < HW_H; e += NT) {
    const float v = hw_bf16_to_float(a.x[e]);
    xs[swz16(e)] = round_bf16(v * inv * hw_bf16_to_float(a.input_rms_weight[e]));
  }
  __syncthreads();

  /* 3. dots */
  float acc[P_ROWS][2];
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) acc[p][0] = acc[p][1] = 0.0f;
  const float4* xs4 = (const float4*)xs;
#pragma unroll
  for (int i = 0; i < STEPS; ++i) {
    const int j = lane + 32 * i;
    if (i < STEPS - 1 || j < ROW_U4) {
      const int s = (j >> 1) & 3;
      float4 xv[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) xv[k] = xs4[4 * j + (k ^ s)];
#pragma unroll
      for (int p = 0; p < P_ROWS; ++p) {
        const unsigned words[4] = {wv[p][i].x, wv[p][i].y, wv[p][i].z, wv[p][i].w};
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          float f0, f1, f2, f3;
          decode4(words[q], table, f0, f1, f2, f3);
          acc[p][0] = fmaf(f0, xv[q].x, acc[p][0]);
          acc[p][1] = fmaf(f1, xv[q].y, acc[p][1]);
          acc[p][0] = fmaf(f2, xv[q].z, acc[p][0]);
          acc[p][1] = fmaf(f3, xv[q].w, acc[p][1]);
        }
      }
    }
  }
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) {
    const float dot = warp_sum(acc[p][0] + acc[p][1]);
    if (lane == p) pre[row0 + warp * P_ROWS + p] = round_bf16(dot * hw_bf16_to_float(scale[mrow + p]));
  }

  /* 4. the last block of the head finishes it */
  __syncthreads();
  if (tid == 0) {
    __threadfence();
    last = atomicAdd(head_count + head, 1u) == BLOCKS_PER_HEAD - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  finish_head(a, pre, head, vals, red);
}

extern "C" __device__ const hw_cuda_plan hw_plan = {{{"qkv_warp_heads", NBLOCKS, NT, 0}},
                                                    SCRATCH_BYTES};
