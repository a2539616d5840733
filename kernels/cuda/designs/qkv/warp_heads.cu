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
#include "headway_cuda_support.h"

#ifndef P_ROWS
#define P_ROWS 2
#endif
#ifndef P_WARPS
#define P_WARPS 8
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

extern "C" __global__ void __launch_bounds__(NT) qkv_warp_heads(hw_qkv_args a, unsigned char* scratch) {
  __shared__ __align__(16) float xs[HW_H];
  __shared__ float red[32];
  __shared__ float vals[HW_DS];
  const float* table = hw_f8_table<NT>();
  float* pre = (float*)(scratch + PRE_OFFSET);
  unsigned* head_count = (unsigned*)(scratch + COUNT_OFFSET);

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int row0 = blockIdx.x * RB; /* first row of the block, 0..8191 */
  const int head = row0 / HW_DS;
  const uint8_t* w;
  const hw_bf16* scale;
  int mrow; /* first row of this warp inside its matrix */
  hw_qkv_matrix(a, row0, w, scale, mrow);
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
  const float inv = 1.0f / sqrtf(hw_block_sum<P_WARPS>(ss, red) / (float)HW_H + HW_EPS);
  for (int e = tid; e < HW_H; e += NT) {
    const float v = hw_bf16_to_float(a.x[e]);
    xs[hw_swz16<3>(e)] = hw_round_bf16(v * inv * hw_bf16_to_float(a.input_rms_weight[e]));
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
      float4 xv[4];
      hw_swz16_load4(xs4, j, xv);
#pragma unroll
      for (int p = 0; p < P_ROWS; ++p) hw_f8x4_fma16(wv[p][i], xv, table, acc[p]);
    }
  }
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) {
    const float dot = hw_warp_sum(acc[p][0] + acc[p][1]);
    if (lane == p) pre[row0 + warp * P_ROWS + p] = hw_round_bf16(dot * hw_bf16_to_float(scale[mrow + p]));
  }

  /* 4. the last block of the head finishes it */
  if (hw_last_block(head_count + head, BLOCKS_PER_HEAD)) hw_qkv_finish_head<NT>(a, pre, head, vals, red);
}

extern "C" __device__ const hw_cuda_plan hw_plan = {{{"qkv_warp_heads", NBLOCKS, NT, 0}},
                                                    SCRATCH_BYTES};
