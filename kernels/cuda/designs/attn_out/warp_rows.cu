// headway-design: warp_rows
// summary: one launch; a warp per P_ROWS rows with all 8 of each row's 16-byte loads per lane issued first, attn staged as swizzled f32 in shared memory, f8 decoded by the hardware e4m3x2->f16x2 convert (sm_89+; 256-entry shared table below); y to scratch and the last block to finish does RMSNorm + residual
// param P_ROWS 1 2 4 default 2
// param P_WARPS 4 8 default 8
//
// Rows: block b owns rows [b*RB, (b+1)*RB), RB = P_ROWS*P_WARPS (3840/RB blocks). A row is 4096
// codes = 256 uint4; lane l loads uint4 l + 32i (i < 8) of each of its rows into registers before
// anything else, so 8*P_ROWS 16-byte loads per lane are in flight while the block stages attn.
// Activations: attn as f32 in shared memory; a lane reads the 16 values of its uint4 as four float4,
// the 16-byte chunks XOR-swizzled (chunk c stored at c ^ ((c >> 3) & 3)) so the 8 lanes of a
// quarter warp hit 8 different bank groups.
// Decode: cvt.rn.f16x2.e4m3x2 (two codes to two f16, exact, NaN kept) and cvt.f32.f16; f32 FMAs,
// two accumulators per row; warp shuffle sum; y = bf16(dot * o_scale) to scratch.
// Finish: __syncthreads, thread 0 fences and bumps a counter in scratch; the block that sees
// gridDim.x-1 reads y back (ld.global.cg), sums the squares and writes
// residual = bf16(residual + y * inv * post_attn_rms_weight).
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

#define NT (32 * P_WARPS)
#define RB (P_ROWS * P_WARPS)
#define NBLOCKS (HW_H / RB)
#define STEPS (HW_QS / 16 / 32) /* 8 uint4 per lane per row */

/* scratch layout */
#define Y_OFFSET 0                /* f32 [H], each a bf16 value */
#define COUNT_OFFSET (HW_H * 4)   /* u32 */
#define SCRATCH_BYTES (COUNT_OFFSET + 256)

#if (HW_H % RB) != 0
#error "P_ROWS * P_WARPS must divide 3840"
#endif

static __device__ __forceinline__ float round_bf16(float v) {
  return hw_bf16_to_float(hw_float_to_bf16(v));
}

static __device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o >= 1; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

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

extern "C" __global__ void __launch_bounds__(NT) attn_warp_rows(hw_attn_out_args a, unsigned char* scratch) {
  __shared__ __align__(16) float xs[HW_QS];
  __shared__ float red[32];
  __shared__ int last;
#if HW_F8_CVT
  const float* table = 0;
#else
  __shared__ float table[256];
  for (int c = threadIdx.x; c < 256; c += NT) table[c] = hw_f8e4m3_to_float((uint8_t)c);
#endif
  float* y = (float*)(scratch + Y_OFFSET);
  unsigned* count = (unsigned*)(scratch + COUNT_OFFSET);

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int row0 = blockIdx.x * RB + warp * P_ROWS;

  /* 1. every weight byte of this warp's rows in flight */
  uint4 wv[P_ROWS][STEPS];
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) {
    const uint4* row = (const uint4*)(a.o_weight + (size_t)(row0 + p) * HW_QS);
#pragma unroll
    for (int i = 0; i < STEPS; ++i) wv[p][i] = __ldg(row + lane + 32 * i);
  }

  /* 2. attn into shared memory (swizzled f32) */
  for (int e2 = tid; e2 < HW_QS / 2; e2 += NT) {
    const unsigned v = ((const unsigned*)a.attn)[e2];
    xs[swz16(2 * e2)] = __uint_as_float(v << 16);
    xs[swz16(2 * e2 + 1)] = __uint_as_float(v & 0xffff0000u);
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
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) {
    const float dot = warp_sum(acc[p][0] + acc[p][1]);
    if (lane == p) y[row0 + p] = round_bf16(dot * hw_bf16_to_float(a.o_scale[row0 + p]));
  }

  /* 4. the last block to finish does RMSNorm + residual */
  __syncthreads();
  if (tid == 0) {
    __threadfence();
    last = atomicAdd(count, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  float ss = 0.0f;
  for (int i = tid; i < HW_H; i += NT) {
    const float v = __ldcg(y + i);
    ss += v * v;
  }
  const float inv = 1.0f / sqrtf(block_sum(ss, red) / (float)HW_H + HW_EPS);
  for (int i = tid; i < HW_H; i += NT) {
    const float normed = __ldcg(y + i) * inv * hw_bf16_to_float(a.post_attn_rms_weight[i]);
    a.residual[i] = hw_float_to_bf16(hw_bf16_to_float(a.residual[i]) + normed);
  }
}

extern "C" __device__ const hw_cuda_plan hw_plan = {{{"attn_warp_rows", NBLOCKS, NT, 0}},
                                                    SCRATCH_BYTES};
