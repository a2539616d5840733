// qkv baseline for the cuda target: the plain, correct first version. Three launches:
//   qkv_xn     1 block:            xn = bf16(RMSNorm(x) * input_rms_weight) -> scratch (f32)
//   qkv_rows   one block per 8 rows (a warp per row): byte loads, f8 decoded through a 256-entry
//              table in shared memory, f32 accumulation; pre = bf16(dot * row_scale) -> scratch
//   qkv_heads  one block per head (16 q, 8 k, 8 v heads): RMSNorm of the head (weight for q and
//              k), RoPE for q and k, rounded to bf16 once into q_out / slot kv_slot of the caches.
// Rounding points as kernels/baselines/qkv.cc.
#include "headway_cuda_support.h"

#define QKV_ROWS (HW_QS + 2 * HW_PS) /* 8192: q rows, then k rows, then v rows */
#define ROWS_PER_BLOCK 8
#define THREADS 256
#define NORM_THREADS 1024 /* the one-block norm launches */

/* scratch layout */
#define XN_OFFSET 0                         /* f32 [H] */
#define PRE_OFFSET (HW_H * 4)               /* f32 [QKV_ROWS], each a bf16 value */
#define SCRATCH_BYTES (PRE_OFFSET + QKV_ROWS * 4)

extern "C" __global__ void qkv_xn(hw_qkv_args a, unsigned char* scratch) {
  __shared__ float red[32];
  hw_rms_norm_to_f32<NORM_THREADS>(a.x, a.input_rms_weight, (float*)(scratch + XN_OFFSET), red);
}

extern "C" __global__ void qkv_rows(hw_qkv_args a, unsigned char* scratch) {
  __shared__ float table[256];
  __shared__ float xn[HW_H];
  const float* xn_global = (const float*)(scratch + XN_OFFSET);
  float* pre = (float*)(scratch + PRE_OFFSET);

  for (int c = threadIdx.x; c < 256; c += blockDim.x) table[c] = hw_f8e4m3_to_float((uint8_t)c);
  for (int j = threadIdx.x; j < HW_H; j += blockDim.x) xn[j] = xn_global[j];
  __syncthreads();

  const int lane = threadIdx.x & 31;
  const int r = blockIdx.x * ROWS_PER_BLOCK + (threadIdx.x >> 5); /* 0 .. QKV_ROWS-1 */
  const uint8_t* w;
  const hw_bf16* scale;
  int row;
  hw_qkv_matrix(a, r, w, scale, row);
  const uint8_t* codes = w + (size_t)row * HW_H;
  float acc = 0.0f;
  for (int j = lane; j < HW_H; j += 32) acc += table[codes[j]] * xn[j];
  acc = hw_warp_sum(acc);
  if (lane == 0) pre[r] = hw_round_bf16(acc * hw_bf16_to_float(scale[row]));
}

extern "C" __global__ void qkv_heads(hw_qkv_args a, unsigned char* scratch) {
  __shared__ float red[32];
  __shared__ float vals[HW_DS];
  hw_qkv_finish_head<HW_DS>(a, (const float*)(scratch + PRE_OFFSET), blockIdx.x, vals, red);
}

extern "C" __device__ const hw_cuda_plan hw_plan = {
    {{"qkv_xn", 1, NORM_THREADS, 0},
     {"qkv_rows", QKV_ROWS / ROWS_PER_BLOCK, THREADS, 0},
     {"qkv_heads", QKV_ROWS / HW_DS, HW_DS, 0}},
    SCRATCH_BYTES};
