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
#include "headway_cuda.h"

#ifndef P_ROWS
#define P_ROWS 16
#endif

#define NT 256
#define NWARPS (NT / 32)
#define NBLOCKS (HW_H / P_ROWS)
/* resident blocks per SM for 3840/P_ROWS blocks to fit one wave on 132 SMs (caps the registers) */
#define MIN_BLOCKS (P_ROWS == 8 ? 4 : P_ROWS == 16 ? 2 : 1)

#if P_ROWS == 8
#define LOG2_ROWS 3
#elif P_ROWS == 16
#define LOG2_ROWS 4
#elif P_ROWS == 32
#define LOG2_ROWS 5
#else
#error "P_ROWS must be 8, 16 or 32"
#endif

/* scratch layout */
#define Y_OFFSET 0              /* f32 [H], each a bf16 value */
#define COUNT_OFFSET (HW_H * 4) /* u32 */
#define SCRATCH_BYTES (COUNT_OFFSET + 256)

static __device__ __forceinline__ float round_bf16(float v) {
  return hw_bf16_to_float(hw_float_to_bf16(v));
}

/* fma.rn.f32 without .ftz whatever the build flags: decoded subnormal codes must survive. */
static __device__ __forceinline__ float fma_keep(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  float d;
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
  return d;
#else
  return fmaf(a, b, c);
#endif
}

/* Code byte K of w as f32: value * 2^-120. */
template <int K>
static __device__ __forceinline__ float f8_shift(unsigned w) {
  const int t = (int)(w << (24 - 8 * K));
  return __int_as_float((t >> 4) & (int)0x87F00000);
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
  for (int w = 0; w < NWARPS; ++w) total += red[w];
  return total;
}

/* v[R] per lane in, the warp's sum of v[lane >> (5 - log2 R)] out. */
template <int R, int LOG2R>
static __device__ __forceinline__ float transpose_sum(float (&v)[R], int lane) {
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

extern "C" __global__ void __launch_bounds__(NT, MIN_BLOCKS) attn_kslice_rows(hw_attn_out_args a, unsigned char* scratch) {
  __shared__ float red[32];
  __shared__ float part[NWARPS][P_ROWS];
  __shared__ int last;
  float* y = (float*)(scratch + Y_OFFSET);
  unsigned* count = (unsigned*)(scratch + COUNT_OFFSET);

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
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
    const uint4 x0 = x4[0], x1 = x4[1];
    const unsigned xw[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      xs[2 * k] = __uint_as_float(xw[k] << 16) * 0x1p64f;
      xs[2 * k + 1] = __uint_as_float(xw[k] & 0xffff0000u) * 0x1p64f;
    }
  }

  /* 3. partial dots */
  float acc[P_ROWS];
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) {
    const unsigned words[4] = {wv[p].x, wv[p].y, wv[p].z, wv[p].w};
    float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      s0 = fma_keep(f8_shift<0>(words[q]), xs[4 * q + 0], s0);
      s1 = fma_keep(f8_shift<1>(words[q]), xs[4 * q + 1], s1);
      s0 = fma_keep(f8_shift<2>(words[q]), xs[4 * q + 2], s0);
      s1 = fma_keep(f8_shift<3>(words[q]), xs[4 * q + 3], s1);
    }
    acc[p] = s0 + s1;
  }

  /* 4. block reduction */
  const float mine = transpose_sum<P_ROWS, LOG2_ROWS>(acc, lane);
  if ((lane & ((32 >> LOG2_ROWS) - 1)) == 0) part[warp][lane >> (5 - LOG2_ROWS)] = mine;
  __syncthreads();
  if (tid < P_ROWS) {
    float dot = 0.0f;
#pragma unroll
    for (int k = 0; k < NWARPS; ++k) dot += part[k][tid];
    dot *= 0x1p56f; /* undo 2^-120 * 2^64 */
    y[row0 + tid] = round_bf16(dot * hw_bf16_to_float(a.o_scale[row0 + tid]));
  }

  /* 5. the last block to finish does RMSNorm + residual */
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

extern "C" __device__ const hw_cuda_plan hw_plan = {{{"attn_kslice_rows", NBLOCKS, NT, 0}},
                                                    SCRATCH_BYTES};
