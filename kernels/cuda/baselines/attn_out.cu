// attn_out baseline for the cuda target: the plain, correct first version. Two launches:
//   attn_rows  one block per 8 rows (a warp per row): byte loads, f8 decoded through a 256-entry
//              table in shared memory, f32 accumulation; y = bf16(dot * o_scale) -> scratch (f32)
//   attn_norm  1 block: residual = bf16(residual + RMSNorm(y) * post_attn_rms_weight).
// Rounding points as kernels/baselines/attn_out.cc.
#include "headway_cuda_support.h"

#define ROWS_PER_BLOCK 8
#define THREADS 256
#define NORM_THREADS 1024 /* the one-block norm launches */

/* scratch layout */
#define Y_OFFSET 0 /* f32 [H], each a bf16 value */
#define SCRATCH_BYTES (HW_H * 4)

extern "C" __global__ void attn_rows(hw_attn_out_args a, unsigned char* scratch) {
  __shared__ float table[256];
  __shared__ float attn[HW_QS];
  float* y = (float*)(scratch + Y_OFFSET);

  for (int c = threadIdx.x; c < 256; c += blockDim.x) table[c] = hw_f8e4m3_to_float((uint8_t)c);
  for (int j = threadIdx.x; j < HW_QS; j += blockDim.x) attn[j] = hw_bf16_to_float(a.attn[j]);
  __syncthreads();

  const int lane = threadIdx.x & 31;
  const int r = blockIdx.x * ROWS_PER_BLOCK + (threadIdx.x >> 5);
  const uint8_t* codes = a.o_weight + (size_t)r * HW_QS;
  float acc = 0.0f;
  for (int j = lane; j < HW_QS; j += 32) acc += table[codes[j]] * attn[j];
  acc = hw_warp_sum(acc);
  if (lane == 0) y[r] = hw_round_bf16(acc * hw_bf16_to_float(a.o_scale[r]));
}

extern "C" __global__ void attn_norm(hw_attn_out_args a, unsigned char* scratch) {
  __shared__ float red[32];
  hw_attn_out_finish<NORM_THREADS>(a, (const float*)(scratch + Y_OFFSET), red);
}

extern "C" __device__ const hw_cuda_plan hw_plan = {
    {{"attn_rows", HW_H / ROWS_PER_BLOCK, THREADS, 0}, {"attn_norm", 1, NORM_THREADS, 0}},
    SCRATCH_BYTES};
