// ffn baseline for the cuda target: the plain, correct first version. Four launches:
//   ffn_x        1 block: x = bf16(RMSNorm(residual) * pre_ff_rms_weight) -> scratch (f32)
//   ffn_gate_up  one block per 8 rows (a warp per gate+up row pair): byte loads, e2m1 codes through
//                a 16-entry table and block scales through a 256-entry f8 table (shared memory),
//                f32 accumulation per 16-element block; h = bf16(gelu_tanh(g) * u) -> scratch (f32)
//   ffn_down     one block per 8 rows (a warp per row), h read from scratch: d (f32) -> scratch
//   ffn_norm     1 block: residual = bf16((residual + RMSNorm(d) * post_ff_rms_weight) * layer_scalar)
// Rounding points as kernels/baselines/ffn.cc.
#include "headway_cuda_support.h"

#define ROWS_PER_BLOCK 8
#define THREADS 256
#define NORM_THREADS 1024 /* the one-block norm launches */

/* scratch layout */
#define X_OFFSET 0                   /* f32 [H], each a bf16 value */
#define H_OFFSET (HW_H * 4)          /* f32 [L], each a bf16 value */
#define D_OFFSET (H_OFFSET + HW_L * 4) /* f32 [H] */
#define SCRATCH_BYTES (D_OFFSET + HW_H * 4)

/* One NVFP4 row of n elements dotted with x (no global scale); this lane's share of the blocks. */
static __device__ float dot_row_part(const uint8_t* codes, const uint8_t* block_scales,
                                     const float* x, int n, const float* e2m1, const float* f8) {
  float total = 0.0f;
  for (int b = threadIdx.x & 31; b < n / HW_FP4_BLOCK; b += 32) {
    float block = 0.0f;
    for (int k = 0; k < HW_FP4_BLOCK / 2; ++k) {
      const uint8_t byte = codes[b * 8 + k];
      block += e2m1[byte & 0xf] * x[b * 16 + 2 * k] + e2m1[byte >> 4] * x[b * 16 + 2 * k + 1];
    }
    total += block * f8[block_scales[b]];
  }
  return total;
}

extern "C" __global__ void ffn_x(hw_ffn_args a, unsigned char* scratch) {
  __shared__ float red[32];
  hw_rms_norm_to_f32<NORM_THREADS>(a.residual, a.pre_ff_rms_weight, (float*)(scratch + X_OFFSET),
                                   red);
}

extern "C" __global__ void ffn_gate_up(hw_ffn_args a, unsigned char* scratch) {
  __shared__ float f8[256];
  __shared__ float e2m1[16];
  __shared__ float x[HW_H];
  const float* x_global = (const float*)(scratch + X_OFFSET);
  float* h = (float*)(scratch + H_OFFSET);

  for (int c = threadIdx.x; c < 256; c += blockDim.x) f8[c] = hw_f8e4m3_to_float((uint8_t)c);
  if (threadIdx.x < 16) e2m1[threadIdx.x] = hw_e2m1_to_float(threadIdx.x);
  for (int j = threadIdx.x; j < HW_H; j += blockDim.x) x[j] = x_global[j];
  __syncthreads();

  const int r = blockIdx.x * ROWS_PER_BLOCK + (threadIdx.x >> 5);
  const size_t codes = (size_t)r * (HW_H / 2), blocks = (size_t)r * (HW_H / HW_FP4_BLOCK);
  float g = dot_row_part(a.gate_weight + codes, a.gate_block_scale + blocks, x, HW_H, e2m1, f8);
  float u = dot_row_part(a.up_weight + codes, a.up_block_scale + blocks, x, HW_H, e2m1, f8);
  g = hw_warp_sum(g) * a.gate_global_scale;
  u = hw_warp_sum(u) * a.up_global_scale;
  if ((threadIdx.x & 31) == 0) h[r] = hw_round_bf16(hw_gelu_tanh(g) * u);
}

extern "C" __global__ void ffn_down(hw_ffn_args a, unsigned char* scratch) {
  __shared__ float f8[256];
  __shared__ float e2m1[16];
  const float* h = (const float*)(scratch + H_OFFSET);
  float* d = (float*)(scratch + D_OFFSET);

  for (int c = threadIdx.x; c < 256; c += blockDim.x) f8[c] = hw_f8e4m3_to_float((uint8_t)c);
  if (threadIdx.x < 16) e2m1[threadIdx.x] = hw_e2m1_to_float(threadIdx.x);
  __syncthreads();

  const int r = blockIdx.x * ROWS_PER_BLOCK + (threadIdx.x >> 5);
  const size_t codes = (size_t)r * (HW_L / 2), blocks = (size_t)r * (HW_L / HW_FP4_BLOCK);
  float v = dot_row_part(a.down_weight + codes, a.down_block_scale + blocks, h, HW_L, e2m1, f8);
  v = hw_warp_sum(v);
  if ((threadIdx.x & 31) == 0) d[r] = v * a.down_global_scale;
}

extern "C" __global__ void ffn_norm(hw_ffn_args a, unsigned char* scratch) {
  __shared__ float red[32];
  hw_ffn_finish<NORM_THREADS>(a, (const float*)(scratch + D_OFFSET), red);
}

extern "C" __device__ const hw_cuda_plan hw_plan = {
    {{"ffn_x", 1, NORM_THREADS, 0},
     {"ffn_gate_up", HW_L / ROWS_PER_BLOCK, THREADS, 0},
     {"ffn_down", HW_H / ROWS_PER_BLOCK, THREADS, 0},
     {"ffn_norm", 1, NORM_THREADS, 0}},
    SCRATCH_BYTES};
