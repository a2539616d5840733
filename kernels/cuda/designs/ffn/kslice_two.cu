// headway-design: kslice_two
// summary: two launches of persistent blocks that span whole rows, one uint4 of codes per thread, with each thread's slice of x (gate/up) or h (down) held in registers as f32 (no shared-memory activations); P rows per step with the next step's loads issued before the current step is reduced (register double buffer); transposing warp-shuffle reduction; e2m1 by shift/AND bit tricks; the last down block does RMSNorm + residual
// param P_GU_ROWS 2 4 default 4
// param P_DN_ROWS 2 4 default 4
// param P_GU_BPS 2 3 4 default 3
//
// ffn_gu_kslice: 132*P_GU_BPS blocks of 128 threads (132 SMs on the H200; any grid is correct).
// A gate/up row is 1920 code bytes = 120 uint4: thread t < 120 owns elements [32t, 32t+32) and
// holds x = bf16(RMSNorm(residual) * pre_ff) * 2^64 for them in 32 registers (each block computes
// the norm once: its threads read their 32 residual values and the block sums the squares).
// Steps of P_GU_ROWS rows, step s of block b being rows of chunk b + s*gridDim.x: per row, one
// uint4 of gate codes, one of up codes and one u16 (the two block scales of the uint4) of each;
// the next step's loads are issued before this step's reduction. The 2*P_GU_ROWS partial sums
// (gate rows, then up rows) go through a transposing butterfly (lane holds index
// lane >> (5 - log2(2*P_GU_ROWS))), the 4 warps meet in shared memory, and threads
// 0..P_GU_ROWS-1 write h = bf16(gelu_tanh(g) * u) to scratch.
// ffn_down_kslice: 132 blocks of 480 threads: a down row is 7680 code bytes = 480 uint4, thread t
// owns h elements [32t, 32t+32) (h * 2^64 as f32 in 32 registers, read once from scratch);
// steps of P_DN_ROWS rows as above; d = dot * down_global_scale (f32) to scratch. After its last
// step each block's thread 0 fences and bumps a counter; the block that sees gridDim.x-1 reads d
// back (ld.global.cg) and writes residual = bf16((residual + RMSNorm(d) * post_ff) * layer_scalar).
// Decode: nibble k of a word moved to the top (shift left by 28-4k), shifted right arithmetically
// by 6 and ANDed with 0x81C00000 is the f32 of the e2m1 value times 2^-126 (0.5 becomes an f32
// subnormal, exact; the FMAs are fma.rn.f32, no .ftz, so a -ftz build keeps it). Products are
// value * act * 2^-62; each 16-element block sum times its f8 scale (cvt.rn.f16x2.e4m3x2 on
// sm_89+, the formula below) is accumulated; the sum is multiplied back by 2^62.
#include "headway_cuda.h"

#ifndef P_GU_ROWS
#define P_GU_ROWS 4
#endif
#ifndef P_DN_ROWS
#define P_DN_ROWS 4
#endif
#ifndef P_GU_BPS
#define P_GU_BPS 3
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define HW_F8_CVT 1
#else
#define HW_F8_CVT 0
#endif

#define GU_NT 128
#define GU_WARPS (GU_NT / 32)
#define GU_U4 (HW_H / 2 / 16)  /* 120 uint4 per gate/up row */
#define GU_STEPS (HW_L / P_GU_ROWS)
#define GU_GRID (132 * P_GU_BPS)
#define DN_NT 480                /* HW_L / 2 / 16: one uint4 of each down row per thread */
#define DN_WARPS (DN_NT / 32)
#define DN_STEPS (HW_H / P_DN_ROWS)
#define DN_GRID 132

#if P_GU_ROWS == 2
#define LOG2_GU_VALS 2
#elif P_GU_ROWS == 4
#define LOG2_GU_VALS 3
#else
#error "P_GU_ROWS must be 2 or 4"
#endif
#if P_DN_ROWS == 2
#define LOG2_DN_ROWS 1
#elif P_DN_ROWS == 4
#define LOG2_DN_ROWS 2
#else
#error "P_DN_ROWS must be 2 or 4"
#endif

/* scratch layout */
#define H_OFFSET 0                 /* bf16 [L] */
#define D_OFFSET (HW_L * 2)        /* f32 [H] */
#define COUNT_OFFSET (D_OFFSET + HW_H * 4) /* u32 */
#define SCRATCH_BYTES (COUNT_OFFSET + 256)

static __device__ __forceinline__ float round_bf16(float v) {
  return hw_bf16_to_float(hw_float_to_bf16(v));
}

static __device__ __forceinline__ float gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

/* fma.rn.f32 without .ftz whatever the build flags: decoded subnormals must survive. */
static __device__ __forceinline__ float fma_keep(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  float d;
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
  return d;
#else
  return fmaf(a, b, c);
#endif
}

/* Nibble K of w (element K of the word) as f32: e2m1 value * 2^-126. */
template <int K>
static __device__ __forceinline__ float e2m1_shift(unsigned w) {
  const int t = (int)(K == 7 ? w : w << (28 - 4 * K));
  return __int_as_float((t >> 6) & (int)0x81C00000);
}

/* The two f8e4m3 block scales in the low 16 bits of v (low byte first) as f32. */
static __device__ __forceinline__ void f8x2(unsigned v, float& s0, float& s1) {
#if HW_F8_CVT
  unsigned h2;
  const unsigned short c = (unsigned short)v;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(c));
  asm("{\n\t.reg .b16 a, b;\n\tmov.b32 {a, b}, %2;\n\tcvt.f32.f16 %0, a;\n\tcvt.f32.f16 %1, b;\n\t}"
      : "=f"(s0), "=f"(s1)
      : "r"(h2));
#else
  s0 = hw_f8e4m3_to_float((uint8_t)(v & 0xffu));
  s1 = hw_f8e4m3_to_float((uint8_t)((v >> 8) & 0xffu));
#endif
}

/* 32 codes (one uint4) dotted with 32 activations, per 16-element block, times the block scales. */
static __device__ __forceinline__ float dot32(const uint4& w, unsigned scales, const float (&x)[32]) {
  const unsigned words[4] = {w.x, w.y, w.z, w.w};
  float b[2] = {0.0f, 0.0f};
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    float& s = b[q >> 1];
    s = fma_keep(e2m1_shift<0>(words[q]), x[8 * q + 0], s);
    s = fma_keep(e2m1_shift<1>(words[q]), x[8 * q + 1], s);
    s = fma_keep(e2m1_shift<2>(words[q]), x[8 * q + 2], s);
    s = fma_keep(e2m1_shift<3>(words[q]), x[8 * q + 3], s);
    s = fma_keep(e2m1_shift<4>(words[q]), x[8 * q + 4], s);
    s = fma_keep(e2m1_shift<5>(words[q]), x[8 * q + 5], s);
    s = fma_keep(e2m1_shift<6>(words[q]), x[8 * q + 6], s);
    s = fma_keep(e2m1_shift<7>(words[q]), x[8 * q + 7], s);
  }
  float s0, s1;
  f8x2(scales, s0, s1);
  return fmaf(b[1], s1, b[0] * s0);
}

static __device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o >= 1; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <int NWARPS>
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

/* ---------------- gate/up ---------------- */

struct GuBuf {
  uint4 g[P_GU_ROWS], u[P_GU_ROWS];
  unsigned gs[P_GU_ROWS], us[P_GU_ROWS];
};

static __device__ __forceinline__ void gu_load(GuBuf& b, const hw_ffn_args& a, int step, bool active) {
#pragma unroll
  for (int p = 0; p < P_GU_ROWS; ++p) {
    const size_t r = (size_t)step * P_GU_ROWS + p;
    if (active) {
      b.g[p] = __ldg((const uint4*)(a.gate_weight + r * (HW_H / 2)) + threadIdx.x);
      b.u[p] = __ldg((const uint4*)(a.up_weight + r * (HW_H / 2)) + threadIdx.x);
      b.gs[p] = __ldg((const unsigned short*)(a.gate_block_scale + r * (HW_H / 16)) + threadIdx.x);
      b.us[p] = __ldg((const unsigned short*)(a.up_block_scale + r * (HW_H / 16)) + threadIdx.x);
    } else {
      b.g[p] = b.u[p] = make_uint4(0u, 0u, 0u, 0u);
      b.gs[p] = b.us[p] = 0u;
    }
  }
}

static __device__ __forceinline__ void gu_step(const GuBuf& b, const hw_ffn_args& a, int step,
                                               const float (&x)[32], float (*part)[2 * P_GU_ROWS],
                                               hw_bf16* h) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float v[2 * P_GU_ROWS];
#pragma unroll
  for (int p = 0; p < P_GU_ROWS; ++p) {
    v[p] = dot32(b.g[p], b.gs[p], x);
    v[P_GU_ROWS + p] = dot32(b.u[p], b.us[p], x);
  }
  const float mine = transpose_sum<2 * P_GU_ROWS, LOG2_GU_VALS>(v, lane);
  if ((lane & ((32 >> LOG2_GU_VALS) - 1)) == 0) part[warp][lane >> (5 - LOG2_GU_VALS)] = mine;
  __syncthreads();
  if (threadIdx.x < P_GU_ROWS) {
    float g = 0.0f, u = 0.0f;
#pragma unroll
    for (int w = 0; w < GU_WARPS; ++w) g += part[w][threadIdx.x], u += part[w][P_GU_ROWS + threadIdx.x];
    g = g * 0x1p62f * a.gate_global_scale;
    u = u * 0x1p62f * a.up_global_scale;
    h[step * P_GU_ROWS + threadIdx.x] = hw_float_to_bf16(gelu_tanh(g) * u);
  }
  __syncthreads();
}

extern "C" __global__ void __launch_bounds__(GU_NT) ffn_gu_kslice(hw_ffn_args a, unsigned char* scratch) {
  __shared__ float red[32];
  __shared__ float part[GU_WARPS][2 * P_GU_ROWS];
  hw_bf16* h = (hw_bf16*)(scratch + H_OFFSET);
  const int tid = threadIdx.x;
  const bool active = tid < GU_U4;

  GuBuf A, B;
  int step = blockIdx.x;
  if (step < GU_STEPS) gu_load(A, a, step, active);

  /* x slice: bf16(RMSNorm(residual) * pre_ff_rms_weight) * 2^64 for elements [32t, 32t+32) */
  float x[32];
  float ss = 0.0f;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const uint4 rv = active ? ((const uint4*)(a.residual + 32 * tid))[k] : make_uint4(0u, 0u, 0u, 0u);
    const unsigned rw[4] = {rv.x, rv.y, rv.z, rv.w};
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      x[8 * k + 2 * m] = __uint_as_float(rw[m] << 16);
      x[8 * k + 2 * m + 1] = __uint_as_float(rw[m] & 0xffff0000u);
    }
  }
#pragma unroll
  for (int k = 0; k < 32; ++k) ss += x[k] * x[k];
  const float inv = 1.0f / sqrtf(block_sum<GU_WARPS>(ss, red) / (float)HW_H + HW_EPS);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const uint4 wv = active ? ((const uint4*)(a.pre_ff_rms_weight + 32 * tid))[k] : make_uint4(0u, 0u, 0u, 0u);
    const unsigned ww[4] = {wv.x, wv.y, wv.z, wv.w};
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      x[8 * k + 2 * m] = round_bf16(x[8 * k + 2 * m] * inv * __uint_as_float(ww[m] << 16)) * 0x1p64f;
      x[8 * k + 2 * m + 1] = round_bf16(x[8 * k + 2 * m + 1] * inv * __uint_as_float(ww[m] & 0xffff0000u)) * 0x1p64f;
    }
  }

  while (step < GU_STEPS) {
    const int s1 = step + gridDim.x;
    if (s1 < GU_STEPS) gu_load(B, a, s1, active);
    gu_step(A, a, step, x, part, h);
    if (s1 >= GU_STEPS) break;
    const int s2 = s1 + gridDim.x;
    if (s2 < GU_STEPS) gu_load(A, a, s2, active);
    gu_step(B, a, s1, x, part, h);
    step = s2;
  }
}

/* ---------------- down ---------------- */

struct DnBuf {
  uint4 w[P_DN_ROWS];
  unsigned s[P_DN_ROWS];
};

static __device__ __forceinline__ void dn_load(DnBuf& b, const hw_ffn_args& a, int step) {
#pragma unroll
  for (int p = 0; p < P_DN_ROWS; ++p) {
    const size_t r = (size_t)step * P_DN_ROWS + p;
    b.w[p] = __ldg((const uint4*)(a.down_weight + r * (HW_L / 2)) + threadIdx.x);
    b.s[p] = __ldg((const unsigned short*)(a.down_block_scale + r * (HW_L / 16)) + threadIdx.x);
  }
}

static __device__ __forceinline__ void dn_step(const DnBuf& b, const hw_ffn_args& a, int step,
                                               const float (&hx)[32], float (*part)[P_DN_ROWS], float* d) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float v[P_DN_ROWS];
#pragma unroll
  for (int p = 0; p < P_DN_ROWS; ++p) v[p] = dot32(b.w[p], b.s[p], hx);
  const float mine = transpose_sum<P_DN_ROWS, LOG2_DN_ROWS>(v, lane);
  if ((lane & ((32 >> LOG2_DN_ROWS) - 1)) == 0) part[warp][lane >> (5 - LOG2_DN_ROWS)] = mine;
  __syncthreads();
  if (threadIdx.x < P_DN_ROWS) {
    float dot = 0.0f;
#pragma unroll
    for (int w = 0; w < DN_WARPS; ++w) dot += part[w][threadIdx.x];
    d[step * P_DN_ROWS + threadIdx.x] = dot * 0x1p62f * a.down_global_scale;
  }
  __syncthreads();
}

extern "C" __global__ void __launch_bounds__(DN_NT) ffn_down_kslice(hw_ffn_args a, unsigned char* scratch) {
  __shared__ float red[32];
  __shared__ float part[DN_WARPS][P_DN_ROWS];
  __shared__ int last;
  const hw_bf16* h = (const hw_bf16*)(scratch + H_OFFSET);
  float* d = (float*)(scratch + D_OFFSET);
  unsigned* count = (unsigned*)(scratch + COUNT_OFFSET);
  const int tid = threadIdx.x;

  DnBuf A, B;
  int step = blockIdx.x;
  if (step < DN_STEPS) dn_load(A, a, step);

  /* h slice times 2^64 for elements [32t, 32t+32) */
  float hx[32];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const uint4 hv = __ldcg((const uint4*)(h + 32 * tid) + k);
    const unsigned hw[4] = {hv.x, hv.y, hv.z, hv.w};
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      hx[8 * k + 2 * m] = __uint_as_float(hw[m] << 16) * 0x1p64f;
      hx[8 * k + 2 * m + 1] = __uint_as_float(hw[m] & 0xffff0000u) * 0x1p64f;
    }
  }

  while (step < DN_STEPS) {
    const int s1 = step + gridDim.x;
    if (s1 < DN_STEPS) dn_load(B, a, s1);
    dn_step(A, a, step, hx, part, d);
    if (s1 >= DN_STEPS) break;
    const int s2 = s1 + gridDim.x;
    if (s2 < DN_STEPS) dn_load(A, a, s2);
    dn_step(B, a, s1, hx, part, d);
    step = s2;
  }

  /* the last block to finish does RMSNorm + residual */
  __syncthreads();
  if (tid == 0) {
    __threadfence();
    last = atomicAdd(count, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  float ss = 0.0f;
  for (int i = tid; i < HW_H; i += DN_NT) {
    const float v = __ldcg(d + i);
    ss += v * v;
  }
  const float inv = 1.0f / sqrtf(block_sum<DN_WARPS>(ss, red) / (float)HW_H + HW_EPS);
  const float layer_scalar = hw_bf16_to_float(a.layer_scalar);
  for (int i = tid; i < HW_H; i += DN_NT) {
    const float normed = __ldcg(d + i) * inv * hw_bf16_to_float(a.post_ff_rms_weight[i]);
    a.residual[i] = hw_float_to_bf16((hw_bf16_to_float(a.residual[i]) + normed) * layer_scalar);
  }
}

extern "C" __device__ const hw_cuda_plan hw_plan = {
    {{"ffn_gu_kslice", GU_GRID, GU_NT, 0}, {"ffn_down_kslice", DN_GRID, DN_NT, 0}},
    SCRATCH_BYTES};
