// headway-design: kslice_rows
// summary: one launch; a 256-thread block spans a whole row (one uint4 per thread) and keeps each thread's 16 attn values in registers for all P_ROWS rows of the block (no shared-memory activations), partial sums reduced by a transposing warp shuffle and one pass through shared memory; f8 decoded by shift/AND bit tricks; y to scratch and the last block to finish does RMSNorm + residual
// param P_ROWS 8 16 32 default 16
//
// Rows: block b owns rows [b*P_ROWS, (b+1)*P_ROWS) (3840/P_ROWS blocks). Thread t owns columns
// [16t, 16t+16) and loads uint4 t of each of the block's rows first: P_ROWS 16-byte loads in flight
// per thread, 4 KB contiguous per row per block. attn: the thread's 16 values, times 2^64, in
// registers. __launch_bounds__ asks for 4/2/1 resident blocks per SM (P_ROWS 8/16/32), so the
// whole grid fits one wave on 132 SMs.
// Decode: code byte k of a word moved to the top byte (shift left by 24-8k), shifted right
// arithmetically by 4 and ANDed with 0x87F00000 is the f32 of the code's value times 2^-120
// (subnormal codes become exact f32 subnormals; NaN codes are not NaN; the generators make none).
// The FMAs are written as fma.rn.f32 (no .ftz) so a -ftz build keeps the subnormal codes; the
// row's sum is multiplied back by 2^56 (exact).
// Reduction: a transposing butterfly over the P_ROWS partial sums leaves row
// (lane >> (5 - log2 P_ROWS)) in each lane; the 8 warps meet in shared memory; threads
// 0..P_ROWS-1 write y = bf16(dot * o_scale) to scratch.
// Finish: __syncthreads, thread 0 fences and bumps a counter; the block that sees gridDim.x-1
// reads y back (ld.global.cg) and writes residual = bf16(residual + y * inv * post_attn_rms_weight).
#include "headway_cuda_support.h"

#ifndef P_ROWS
#define P_ROWS 16
#endif

#define NT 256
#define NWARPS (NT / 32)
#define NBLOCKS (HW_H / P_ROWS)
/* resident blocks per SM for 3840/P_ROWS blocks to fit one wave on 132 SMs (caps the registers) */
#define MIN_BLOCKS (P_ROWS == 8 ? 4 : P_ROWS == 16 ? 2 : 1)

#if P_ROWS != 8 && P_ROWS != 16 && P_ROWS != 32
#error "P_ROWS must be 8, 16 or 32"
#endif

/* scratch layout */
#define Y_OFFSET 0              /* f32 [H], each a bf16 value */
#define COUNT_OFFSET (HW_H * 4) /* u32 */
#define SCRATCH_BYTES (COUNT_OFFSET + 256)

extern "C" __global__ void __launch_bounds__(NT, MIN_BLOCKS) attn_kslice_rows(hw_attn_out_args a, unsigned char* scratch) {
  __shared__ float red[32];
  __shared__ float part[NWARPS][P_ROWS];
  float* y = (float*)(scratch + Y_OFFSET);
  unsigned* count = (unsigned*)(scratch + COUNT_OFFSET);

  const int tid = threadIdx.x;
  const int row0 = blockIdx.x * P_ROWS;

  /* 1. this thread's uint4 of every row of the block in flight */
  uint4 wv[P_ROWS];
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) {
    const uint4* row = (const uint4*)(a.o_weight + (size_t)(row0 + p) * HW_QS);
    wv[p] = __ldg(row + tid);
  }

  /* 2. attn slice in registers, times 2^64 */
  float xs[16];
  {
    const uint4* x4 = (const uint4*)(a.attn + 16 * tid);
    hw_bf16x8_to_float(x4[0], xs);
    hw_bf16x8_to_float(x4[1], xs + 8);
#pragma unroll
    for (int k = 0; k < 16; ++k) xs[k] *= 0x1p64f;
  }

  /* 3. partial dots */
  float acc[P_ROWS];
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) acc[p] = hw_f8_shift_dot16(wv[p], xs);

  /* 4. block reduction */
  hw_warp_sums_to_shared(acc, part);
  if (tid < P_ROWS) {
    float dot = 0.0f;
#pragma unroll
    for (int k = 0; k < NWARPS; ++k) dot += part[k][tid];
    dot *= 0x1p56f; /* undo 2^-120 * 2^64 */
    y[row0 + tid] = hw_round_bf16(dot * hw_bf16_to_float(a.o_scale[row0 + tid]));
  }

  /* 5. the last block to finish does RMSNorm + residual */
  if (hw_last_block(count, gridDim.x)) hw_attn_out_finish<NT>(a, y, red);
}

extern "C" __device__ const hw_cuda_plan hw_plan = {{{"attn_kslice_rows", NBLOCKS, NT, 0}},
                                                    SCRATCH_BYTES};
