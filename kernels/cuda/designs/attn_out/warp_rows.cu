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
#include "headway_cuda_support.h"

#ifndef P_ROWS
#define P_ROWS 2
#endif
#ifndef P_WARPS
#define P_WARPS 8
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

extern "C" __global__ void __launch_bounds__(NT) attn_warp_rows(hw_attn_out_args a, unsigned char* scratch) {
  __shared__ __align__(16) float xs[HW_QS];
  __shared__ float red[32];
  const float* table = hw_f8_table<NT>();
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
    xs[hw_swz16<3>(2 * e2)] = __uint_as_float(v << 16);
    xs[hw_swz16<3>(2 * e2 + 1)] = __uint_as_float(v & 0xffff0000u);
  }
  __syncthreads();

  /* 3. dots */
  float acc[P_ROWS][2];
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) acc[p][0] = acc[p][1] = 0.0f;
  const float4* xs4 = (const float4*)xs;
#pragma unroll
  for (int i = 0; i < STEPS; ++i) {
    float4 xv[4];
    hw_swz16_load4(xs4, lane + 32 * i, xv);
#pragma unroll
    for (int p = 0; p < P_ROWS; ++p) hw_f8x4_fma16(wv[p][i], xv, table, acc[p]);
  }
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) {
    const float dot = hw_warp_sum(acc[p][0] + acc[p][1]);
    if (lane == p) y[row0 + p] = hw_round_bf16(dot * hw_bf16_to_float(a.o_scale[row0 + p]));
  }

  /* 4. the last block to finish does RMSNorm + residual */
  if (hw_last_block(count, gridDim.x)) hw_attn_out_finish<NT>(a, y, red);
}

extern "C" __device__ const hw_cuda_plan hw_plan = {{{"attn_warp_rows", NBLOCKS, NT, 0}},
                                                    SCRATCH_BYTES};
