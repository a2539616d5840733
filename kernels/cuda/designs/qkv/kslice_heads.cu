// headway-design: kslice_heads
// summary: one launch; a 256-thread block spans a whole row (one uint4 per thread), each thread keeps its 16 xn values in registers for all P_ROWS rows of the block (no shared-memory activations), partial sums reduced by a transposing warp shuffle and one pass through shared memory; f8 decoded by shift/AND bit tricks (no converts, no tables); each head finished by the last of its blocks
// param P_ROWS 8 16 32 default 16
//
// Rows: block b owns rows [b*P_ROWS, (b+1)*P_ROWS) of the 8192 (q, k, v); P_ROWS divides 256 so a
// block lies inside one head. Thread t < 240 owns columns [16t, 16t+16) (threads 240..255 idle in
// the dot) and loads uint4 t of each of the block's rows at the start: P_ROWS 16-byte loads in
// flight per thread, 4 KB contiguous per row per block.
// xn: each thread reads its 16 x values, the block sums the squares, and the thread keeps
// bf16(x * inv * input_rms_weight) * 2^64 in registers.
// Decode: code byte k of a word moved to the top byte (shift left by 24-8k), shifted right
// arithmetically by 4 and ANDed with 0x87F00000 is the f32 of the code's value times 2^-120
// (subnormal codes become exact f32 subnormals; NaN codes are not NaN; the generators make none).
// The FMAs are written as fma.rn.f32 (no .ftz) so a -ftz build keeps the subnormal codes; products
// are value * xn * 2^-56 and the row's sum is multiplied back by 2^56 (exact).
// Reduction: thread t holds P_ROWS partial sums; a transposing butterfly (P_ROWS-1 + 5-log2(P_ROWS)
// shuffles) leaves row (lane >> (5 - log2 P_ROWS)) in each lane, the 8 warps' sums meet in shared
// memory, threads 0..P_ROWS-1 add them and write pre = bf16(dot * row_scale) into scratch.
// Head finish as in warp_heads: thread 0 fences and bumps the head's counter; the block that
// completes the head reads its 256 pre values (ld.global.cg), RMSNorm (* q/k weight), RoPE, bf16.
#include "headway_cuda_support.h"

#ifndef P_ROWS
#define P_ROWS 16
#endif

#define QKV_ROWS (HW_QS + 2 * HW_PS) /* 8192 */
#define NT 256
#define NWARPS (NT / 32)
#define NBLOCKS (QKV_ROWS / P_ROWS)
#define BLOCKS_PER_HEAD (HW_DS / P_ROWS)
#define ROW_U4 (HW_H / 16) /* 240 */

#if P_ROWS != 8 && P_ROWS != 16 && P_ROWS != 32
#error "P_ROWS must be 8, 16 or 32"
#endif

/* scratch layout */
#define PRE_OFFSET 0               /* f32 [8192], each a bf16 value */
#define COUNT_OFFSET (QKV_ROWS * 4) /* u32 [32], one per head */
#define SCRATCH_BYTES (COUNT_OFFSET + 256)

extern "C" __global__ void __launch_bounds__(NT) qkv_kslice_heads(hw_qkv_args a, unsigned char* scratch) {
  __shared__ float red[32];
  __shared__ float part[NWARPS][P_ROWS];
  __shared__ float vals[HW_DS];
  float* pre = (float*)(scratch + PRE_OFFSET);
  unsigned* head_count = (unsigned*)(scratch + COUNT_OFFSET);

  const int tid = threadIdx.x;
  const bool active = tid < ROW_U4;
  const int row0 = blockIdx.x * P_ROWS;
  const int head = row0 / HW_DS;
  const uint8_t* w;
  const hw_bf16* scale;
  int mrow0;
  hw_qkv_matrix(a, row0, w, scale, mrow0);

  /* 1. this thread's uint4 of every row of the block in flight */
  uint4 wv[P_ROWS];
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) {
    const uint4* row = (const uint4*)(w + (size_t)(mrow0 + p) * HW_H);
    wv[p] = active ? __ldg(row + tid) : make_uint4(0u, 0u, 0u, 0u);
  }

  /* 2. xn slice in registers, times 2^64 (zeros in threads 240..255) */
  float xs[16];
  hw_rms_norm_slice_x64<16, NWARPS>(a.x, a.input_rms_weight, xs, red);

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
    pre[row0 + tid] = hw_round_bf16(dot * hw_bf16_to_float(scale[mrow0 + tid]));
  }

  /* 5. the last block of the head finishes it */
  if (hw_last_block(head_count + head, BLOCKS_PER_HEAD)) hw_qkv_finish_head<NT>(a, pre, head, vals, red);
}

extern "C" __device__ const hw_cuda_plan hw_plan = {{{"qkv_kslice_heads", NBLOCKS, NT, 0}},
                                                    SCRATCH_BYTES};
