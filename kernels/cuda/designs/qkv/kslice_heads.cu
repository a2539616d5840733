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
#include "headway_cuda.h"

#ifndef P_ROWS
#define P_ROWS 16
#endif

#define QKV_ROWS (HW_QS + 2 * HW_PS) /* 8192 */
#define NT 256
#define NWARPS (NT / 32)
#define NBLOCKS (QKV_ROWS / P_ROWS)
#define BLOCKS_PER_HEAD (HW_DS / P_ROWS)
#define ROW_U4 (HW_H / 16) /* 240 */

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
#define PRE_OFFSET 0               /* f32 [8192], each a bf16 value */
#define COUNT_OFFSET (QKV_ROWS * 4) /* u32 [32], one per head */
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
  const int d = threadIdx.x; /* NT == HW_DS */
  const float v = __ldcg(pre + head * HW_DS + d);
  vals[d] = v;
  const float inv = 1.0f / sqrtf(block_sum(v * v, red) / (float)HW_DS + HW_EPS); /* syncs vals */
  const float n = v * inv * (weight ? hw_bf16_to_float(weight[d]) : 1.0f);
  float o = n;
  if (rotate) {
    const int p = d < HW_DS / 2 ? d + HW_DS / 2 : d - HW_DS / 2;
    const float np = vals[p] * inv * hw_bf16_to_float(weight[p]);
    const float rotated = d < HW_DS / 2 ? -np : np;
    o = n * hw_bf16_to_float(a.cos[d]) + rotated * hw_bf16_to_float(a.sin[d]);
  }
  out[d] = hw_float_to_bf16(o);
}

extern "C" __global__ void __launch_bounds__(NT) qkv_kslice_heads(hw_qkv_args a, unsigned char* scratch) {
  __shared__ float red[32];
  __shared__ float part[NWARPS][P_ROWS];
  __shared__ float vals[HW_DS];
  __shared__ int last;
  float* pre = (float*)(scratch + PRE_OFFSET);
  unsigned* head_count = (unsigned*)(scratch + COUNT_OFFSET);

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const bool active = tid < ROW_U4;
  const int row0 = blockIdx.x * P_ROWS;
  const int head = row0 / HW_DS;
  const uint8_t* w;
  const hw_bf16* scale;
  int mrow0;
  if (row0 < HW_QS) {
    w = a.q_weight, scale = a.q_scale, mrow0 = row0;
  } else if (row0 < HW_QS + HW_PS) {
    w = a.k_weight, scale = a.k_scale, mrow0 = row0 - HW_QS;
  } else {
    w = a.v_weight, scale = a.v_scale, mrow0 = row0 - HW_QS - HW_PS;
  }

  /* 1. this thread's uint4 of every row of the block in flight */
  uint4 wv[P_ROWS];
#pragma unroll
  for (int p = 0; p < P_ROWS; ++p) {
    const uint4* row = (const uint4*)(w + (size_t)(mrow0 + p) * HW_H);
    wv[p] = active ? __ldg(row + tid) : make_uint4(0u, 0u, 0u, 0u);
  }

  /* 2. xn slice in registers, times 2^64 */
  float xs[16];
  float ss = 0.0f;
  if (active) {
    const uint4* x4 = (const uint4*)(a.x + 16 * tid);
    const uint4 x0 = x4[0], x1 = x4[1];
    const unsigned xw[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      xs[2 * k] = __uint_as_float(xw[k] << 16);
      xs[2 * k + 1] = __uint_as_float(xw[k] & 0xffff0000u);
    }
#pragma unroll
    for (int k = 0; k < 16; ++k) ss += xs[k] * xs[k];
  } else {
#pragma unroll
    for (int k = 0; k < 16; ++k) xs[k] = 0.0f;
  }
  const float inv = 1.0f / sqrtf(block_sum(ss, red) / (float)HW_H + HW_EPS);
  if (active) {
    const uint4* g4 = (const uint4*)(a.input_rms_weight + 16 * tid);
    const uint4 g0 = g4[0], g1 = g4[1];
    const unsigned gw[8] = {g0.x, g0.y, g0.z, g0.w, g1.x, g1.y, g1.z, g1.w};
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      xs[2 * k] = round_bf16(xs[2 * k] * inv * __uint_as_float(gw[k] << 16)) * 0x1p64f;
      xs[2 * k + 1] = round_bf16(xs[2 * k + 1] * inv * __uint_as_float(gw[k] & 0xffff0000u)) * 0x1p64f;
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
    pre[row0 + tid] = round_bf16(dot * hw_bf16_to_float(scale[mrow0 + tid]));
  }

  /* 5. the last block of the head finishes it */
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

extern "C" __device__ const hw_cuda_plan hw_plan = {{{"qkv_kslice_heads", NBLOCKS, NT, 0}},
                                                    SCRATCH_BYTES};
