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
#include "headway_cuda_support.h"

#ifndef P_GU_ROWS
#define P_GU_ROWS 4
#endif
#ifndef P_DN_ROWS
#define P_DN_ROWS 4
#endif
#ifndef P_GU_BPS
#define P_GU_BPS 3
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

#if P_GU_ROWS != 2 && P_GU_ROWS != 4
#error "P_GU_ROWS must be 2 or 4"
#endif
#if P_DN_ROWS != 2 && P_DN_ROWS != 4
#error "P_DN_ROWS must be 2 or 4"
#endif

/* scratch layout */
#define H_OFFSET 0                 /* bf16 [L] */
#define D_OFFSET (HW_L * 2)        /* f32 [H] */
#define COUNT_OFFSET (D_OFFSET + HW_H * 4) /* u32 */
#define SCRATCH_BYTES (COUNT_OFFSET + 256)

/* 32 codes (one uint4) dotted with 32 activations, per 16-element block, times the block scales. */
static __device__ __forceinline__ float dot32(const uint4& w, unsigned scales, const float (&x)[32]) {
  const unsigned words[4] = {w.x, w.y, w.z, w.w};
  float b[2] = {0.0f, 0.0f};
#pragma unroll
  for (int q = 0; q < 4; ++q) b[q >> 1] = hw_e2m1_fma8(words[q], x + 8 * q, b[q >> 1]);
  float s0, s1;
  hw_f8x2(scales, s0, s1);
  return fmaf(b[1], s1, b[0] * s0);
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
  float v[2 * P_GU_ROWS];
#pragma unroll
  for (int p = 0; p < P_GU_ROWS; ++p) {
    v[p] = dot32(b.g[p], b.gs[p], x);
    v[P_GU_ROWS + p] = dot32(b.u[p], b.us[p], x);
  }
  hw_warp_sums_to_shared(v, part);
  if (threadIdx.x < P_GU_ROWS) {
    float g = 0.0f, u = 0.0f;
#pragma unroll
    for (int w = 0; w < GU_WARPS; ++w) g += part[w][threadIdx.x], u += part[w][P_GU_ROWS + threadIdx.x];
    g = g * 0x1p62f * a.gate_global_scale;
    u = u * 0x1p62f * a.up_global_scale;
    h[step * P_GU_ROWS + threadIdx.x] = hw_float_to_bf16(hw_gelu_tanh(g) * u);
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
  hw_rms_norm_slice_x64<32, GU_WARPS>(a.residual, a.pre_ff_rms_weight, x, red);

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
  float v[P_DN_ROWS];
#pragma unroll
  for (int p = 0; p < P_DN_ROWS; ++p) v[p] = dot32(b.w[p], b.s[p], hx);
  hw_warp_sums_to_shared(v, part);
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
  for (int k = 0; k < 4; ++k) hw_bf16x8_to_float(__ldcg((const uint4*)(h + 32 * tid) + k), hx + 8 * k);
#pragma unroll
  for (int k = 0; k < 32; ++k) hx[k] *= 0x1p64f;

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
  if (hw_last_block(count, gridDim.x)) hw_ffn_finish<DN_NT>(a, d, red);
}

extern "C" __device__ const hw_cuda_plan hw_plan = {
    {{"ffn_gu_kslice", GU_GRID, GU_NT, 0}, {"ffn_down_kslice", DN_GRID, DN_NT, 0}},
    SCRATCH_BYTES};
