// headway-design: queue_fused
// summary: one launch; persistent blocks take items from an atomic queue in scratch: first gate+up items (a warp per gate/up row pair, x staged once per block as swizzled f32), then down items (a warp per P_DN rows) whose weights are loaded before the block waits for all of h; e2m1 decoded by shift/AND bit tricks, block scales by the hardware f8 convert; the block that completes the last down item does RMSNorm + residual
// param P_WARPS 8 16 default 8
// param P_DN 1 2 default 1
// param P_BPS 1 2 default 2
//
// Grid: 132 * P_BPS blocks (132 SMs on the H200; any grid is correct). Items 0..NGU-1 are
// gate/up items of P_WARPS rows (warp w of item i: gate row and up row i*P_WARPS+w), items
// NGU..NGU+NDN-1 are down items of P_WARPS*P_DN rows. A block claims its next item (atomicAdd on
// a queue counter in scratch) right after issuing the loads of the current one, so the claim's
// latency is hidden. Claims are made in increasing order, so when a block holds a down item every
// gate/up item is already held by a running block that will finish it without waiting: the wait
// for h cannot deadlock, whatever the grid and residency.
// Gate/up: a row is 1920 code bytes = 120 uint4 (lane l: uint4 l+32i, i < 4, the 4th for l < 24)
// plus 2 block-scale bytes per uint4 (one u16 load). x = bf16(RMSNorm(residual) * pre_ff) * 2^64
// is staged once per block in shared memory as f32, 16-byte chunks XOR-swizzled
// (chunk c at c ^ ((c >> 3) & 7)) so the 8 lanes of a quarter warp, each reading 8 float4 of its
// 32 elements, hit 8 bank groups. h = bf16(gelu_tanh(g) * u) is written to scratch by lane 0;
// thread 0 fences and bumps a gate/up counter after the next item's loads are out.
// Down: a row is 7680 code bytes = 480 uint4 = 15 per lane, loaded before the wait; at its first
// down item a block waits (thread 0 polls the counter) until all NGU gate/up items are in, then
// stages h * 2^64 from scratch as bf16 in shared memory (30 KB, 16-byte chunks swizzled by
// c ^ ((c >> 3) & 3)); bf16 pairs widen by a shift and an AND. d = dot * down_global_scale (f32)
// goes to scratch; the block whose atomicAdd on the down counter returns NDN-1 reads d back
// (ld.global.cg) and writes residual = bf16((residual + RMSNorm(d) * post_ff) * layer_scalar).
// Decode: nibble k of a word moved to the top (shift left by 28-4k), shifted right arithmetically
// by 6 and ANDed with 0x81C00000 is the f32 of the e2m1 value times 2^-126 (0.5 becomes an f32
// subnormal, exact; the FMAs are written as fma.rn.f32, no .ftz, so a -ftz build keeps it).
// Products are value * x * 2^-62; each 16-element block sum times its f8 scale (cvt.rn.f16x2.e4m3x2
// on sm_89+, the formula below) is accumulated, and the row's sum is multiplied back by 2^62.
#include "headway_cuda.h"

#ifndef P_WARPS
#define P_WARPS 8
#endif
#ifndef P_DN
#define P_DN 1
#endif
#ifndef P_BPS
#define P_BPS 2
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define HW_F8_CVT 1
#else
#define HW_F8_CVT 0
#endif

#define NT (32 * P_WARPS)
#define GU_ROWS P_WARPS
#define NGU (HW_L / GU_ROWS)
#define DN_ROWS (P_WARPS * P_DN)
#define NDN (HW_H / DN_ROWS)
#define NITEMS (NGU + NDN)
#define GRID (132 * P_BPS)
#define GU_U4 (HW_H / 2 / 16) /* 120 uint4 per gate/up row */
#define DN_STEPS (HW_L / 2 / 16 / 32) /* 15 uint4 per lane per down row */

/* scratch layout */
#define H_OFFSET 0                      /* bf16 [L] */
#define D_OFFSET (HW_L * 2)             /* f32 [H] */
#define QUEUE_OFFSET (D_OFFSET + HW_H * 4) /* u32 counters, one per 128-byte line */
#define GU_DONE_OFFSET (QUEUE_OFFSET + 128)
#define DN_DONE_OFFSET (QUEUE_OFFSET + 256)
#define SCRATCH_BYTES (QUEUE_OFFSET + 384)

#if (HW_L % GU_ROWS) != 0 || (HW_H % DN_ROWS) != 0
#error "P_WARPS and P_DN must divide the row counts"
#endif

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
  for (int w = 0; w < P_WARPS; ++w) total += red[w];
  return total;
}

/* A bf16 value times 2^64, as bf16 (exact). */
static __device__ __forceinline__ unsigned bf16_up64(unsigned b) {
  return hw_float_to_bf16(hw_bf16_to_float((hw_bf16)b) * 0x1p64f);
}

extern "C" __global__ void __launch_bounds__(NT) ffn_queue_fused(hw_ffn_args a, unsigned char* scratch) {
  __shared__ __align__(16) unsigned char smem[HW_L * 2]; /* x: f32 [H], later h: bf16 [L] */
  __shared__ float red[32];
  __shared__ unsigned s_next[3];
  __shared__ int s_last;
  float* xs = (float*)smem;
  const float4* xs4 = (const float4*)smem;
  unsigned* hs = (unsigned*)smem;
  const uint4* hs4 = (const uint4*)smem;
  hw_bf16* hglobal = (hw_bf16*)(scratch + H_OFFSET);
  float* dglobal = (float*)(scratch + D_OFFSET);
  unsigned* queue = (unsigned*)(scratch + QUEUE_OFFSET);
  unsigned* gu_done = (unsigned*)(scratch + GU_DONE_OFFSET);
  unsigned* dn_done = (unsigned*)(scratch + DN_DONE_OFFSET);

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  bool x_ready = false, h_ready = false, signal_gu = false;

  if (tid == 0) s_next[2] = atomicAdd(queue, 1u);
  __syncthreads();
  unsigned item = s_next[2];
  int parity = 0;

  while (item < NITEMS) {
    if (item < NGU) {
      /* ---- gate/up item: warp's rows in flight ---- */
      const int r = item * GU_ROWS + warp;
      const uint4* g4 = (const uint4*)(a.gate_weight + (size_t)r * (HW_H / 2));
      const uint4* u4 = (const uint4*)(a.up_weight + (size_t)r * (HW_H / 2));
      const unsigned short* gs = (const unsigned short*)(a.gate_block_scale + (size_t)r * (HW_H / 16));
      const unsigned short* us = (const unsigned short*)(a.up_block_scale + (size_t)r * (HW_H / 16));
      uint4 gw[4], uw[4];
      unsigned gsc[4], usc[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int j = lane + 32 * i;
        if (i < 3 || j < GU_U4) {
          gw[i] = __ldg(g4 + j), uw[i] = __ldg(u4 + j);
          gsc[i] = __ldg(gs + j), usc[i] = __ldg(us + j);
        } else {
          gw[i] = uw[i] = make_uint4(0u, 0u, 0u, 0u);
          gsc[i] = usc[i] = 0u;
        }
      }
      if (tid == 0) {
        s_next[parity] = atomicAdd(queue, 1u);
        if (signal_gu) {
          __threadfence();
          atomicAdd(gu_done, 1u);
        }
      }
      signal_gu = false;

      if (!x_ready) { /* x = bf16(RMSNorm(residual) * pre_ff_rms_weight) * 2^64, swizzled */
        float ss = 0.0f;
        for (int e = tid; e < HW_H; e += NT) {
          const float v = hw_bf16_to_float(a.residual[e]);
          ss += v * v;
        }
        const float inv = 1.0f / sqrtf(block_sum(ss, red) / (float)HW_H + HW_EPS);
        for (int e = tid; e < HW_H; e += NT) {
          const float v = hw_bf16_to_float(a.residual[e]);
          const int c = e >> 2;
          xs[((c ^ ((c >> 3) & 7)) << 2) | (e & 3)] =
              round_bf16(v * inv * hw_bf16_to_float(a.pre_ff_rms_weight[e])) * 0x1p64f;
        }
        __syncthreads();
        x_ready = true;
      }

      float g = 0.0f, u = 0.0f;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int j = lane + 32 * i;
        if (i < 3 || j < GU_U4) {
          const int s = j & 7;
          const unsigned gwords[4] = {gw[i].x, gw[i].y, gw[i].z, gw[i].w};
          const unsigned uwords[4] = {uw[i].x, uw[i].y, uw[i].z, uw[i].w};
          float gb[2] = {0.0f, 0.0f}, ub[2] = {0.0f, 0.0f};
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const float4 x0 = xs4[8 * j + ((2 * q) ^ s)], x1 = xs4[8 * j + ((2 * q + 1) ^ s)];
            const unsigned gq = gwords[q], uq = uwords[q];
            float& gbq = gb[q >> 1];
            float& ubq = ub[q >> 1];
            gbq = fma_keep(e2m1_shift<0>(gq), x0.x, gbq);
            ubq = fma_keep(e2m1_shift<0>(uq), x0.x, ubq);
            gbq = fma_keep(e2m1_shift<1>(gq), x0.y, gbq);
            ubq = fma_keep(e2m1_shift<1>(uq), x0.y, ubq);
            gbq = fma_keep(e2m1_shift<2>(gq), x0.z, gbq);
            ubq = fma_keep(e2m1_shift<2>(uq), x0.z, ubq);
            gbq = fma_keep(e2m1_shift<3>(gq), x0.w, gbq);
            ubq = fma_keep(e2m1_shift<3>(uq), x0.w, ubq);
            gbq = fma_keep(e2m1_shift<4>(gq), x1.x, gbq);
            ubq = fma_keep(e2m1_shift<4>(uq), x1.x, ubq);
            gbq = fma_keep(e2m1_shift<5>(gq), x1.y, gbq);
            ubq = fma_keep(e2m1_shift<5>(uq), x1.y, ubq);
            gbq = fma_keep(e2m1_shift<6>(gq), x1.z, gbq);
            ubq = fma_keep(e2m1_shift<6>(uq), x1.z, ubq);
            gbq = fma_keep(e2m1_shift<7>(gq), x1.w, gbq);
            ubq = fma_keep(e2m1_shift<7>(uq), x1.w, ubq);
          }
          float sg0, sg1, su0, su1;
          f8x2(gsc[i], sg0, sg1);
          f8x2(usc[i], su0, su1);
          g = fmaf(gb[0], sg0, g);
          g = fmaf(gb[1], sg1, g);
          u = fmaf(ub[0], su0, u);
          u = fmaf(ub[1], su1, u);
        }
      }
      g = warp_sum(g);
      u = warp_sum(u);
      if (lane == 0) {
        const float gg = g * 0x1p62f * a.gate_global_scale;
        const float uu = u * 0x1p62f * a.up_global_scale;
        hglobal[r] = hw_float_to_bf16(gelu_tanh(gg) * uu);
      }
      signal_gu = true; /* sent by thread 0 after the next item's loads (or after the loop) */
    } else {
      /* ---- down item: warp's rows in flight before the wait ---- */
      const int r0 = (item - NGU) * DN_ROWS + warp * P_DN;
      uint4 dw[P_DN][DN_STEPS];
      unsigned dsc[P_DN][DN_STEPS];
#pragma unroll
      for (int p = 0; p < P_DN; ++p) {
        const uint4* d4 = (const uint4*)(a.down_weight + (size_t)(r0 + p) * (HW_L / 2));
        const unsigned short* ds = (const unsigned short*)(a.down_block_scale + (size_t)(r0 + p) * (HW_L / 16));
#pragma unroll
        for (int i = 0; i < DN_STEPS; ++i) {
          dw[p][i] = __ldg(d4 + lane + 32 * i);
          dsc[p][i] = __ldg(ds + lane + 32 * i);
        }
      }
      if (tid == 0) {
        s_next[parity] = atomicAdd(queue, 1u);
        if (signal_gu) {
          __threadfence();
          atomicAdd(gu_done, 1u);
        }
      }
      signal_gu = false;

      if (!h_ready) { /* wait for every gate/up item, then h * 2^64 into shared memory */
        if (tid == 0) {
          while (*(volatile unsigned*)gu_done < NGU) __nanosleep(128);
          __threadfence();
        }
        __syncthreads();
        const unsigned* hsrc = (const unsigned*)hglobal;
        for (int e2 = tid; e2 < HW_L / 2; e2 += NT) {
          const unsigned v = __ldcg(hsrc + e2);
          const int c = e2 >> 2;
          hs[((c ^ ((c >> 3) & 3)) << 2) | (e2 & 3)] = bf16_up64(v & 0xffffu) | (bf16_up64(v >> 16) << 16);
        }
        __syncthreads();
        h_ready = true;
      }

      float acc[P_DN];
#pragma unroll
      for (int p = 0; p < P_DN; ++p) acc[p] = 0.0f;
#pragma unroll
      for (int i = 0; i < DN_STEPS; ++i) {
        const int j = lane + 32 * i;
        const int s = (j >> 1) & 3;
        float bs[P_DN][2];
#pragma unroll
        for (int p = 0; p < P_DN; ++p) bs[p][0] = bs[p][1] = 0.0f;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const uint4 hv = hs4[4 * j + (q ^ s)]; /* elements 32j + 8q .. +7 */
          const float h0 = __uint_as_float(hv.x << 16), h1 = __uint_as_float(hv.x & 0xffff0000u);
          const float h2 = __uint_as_float(hv.y << 16), h3 = __uint_as_float(hv.y & 0xffff0000u);
          const float h4 = __uint_as_float(hv.z << 16), h5 = __uint_as_float(hv.z & 0xffff0000u);
          const float h6 = __uint_as_float(hv.w << 16), h7 = __uint_as_float(hv.w & 0xffff0000u);
#pragma unroll
          for (int p = 0; p < P_DN; ++p) {
            const unsigned wq = q == 0 ? dw[p][i].x : q == 1 ? dw[p][i].y : q == 2 ? dw[p][i].z : dw[p][i].w;
            float& b = bs[p][q >> 1];
            b = fma_keep(e2m1_shift<0>(wq), h0, b);
            b = fma_keep(e2m1_shift<1>(wq), h1, b);
            b = fma_keep(e2m1_shift<2>(wq), h2, b);
            b = fma_keep(e2m1_shift<3>(wq), h3, b);
            b = fma_keep(e2m1_shift<4>(wq), h4, b);
            b = fma_keep(e2m1_shift<5>(wq), h5, b);
            b = fma_keep(e2m1_shift<6>(wq), h6, b);
            b = fma_keep(e2m1_shift<7>(wq), h7, b);
          }
        }
#pragma unroll
        for (int p = 0; p < P_DN; ++p) {
          float s0, s1;
          f8x2(dsc[p][i], s0, s1);
          acc[p] = fmaf(bs[p][0], s0, acc[p]);
          acc[p] = fmaf(bs[p][1], s1, acc[p]);
        }
      }
#pragma unroll
      for (int p = 0; p < P_DN; ++p) {
        const float dot = warp_sum(acc[p]);
        if (lane == p) dglobal[r0 + p] = dot * 0x1p62f * a.down_global_scale;
      }

      __syncthreads();
      if (tid == 0) {
        __threadfence();
        s_last = atomicAdd(dn_done, 1u) == NDN - 1;
      }
      __syncthreads();
      if (s_last) { /* every down row is in: RMSNorm(d) + residual */
        __threadfence();
        float ss = 0.0f;
        for (int i = tid; i < HW_H; i += NT) {
          const float v = __ldcg(dglobal + i);
          ss += v * v;
        }
        const float inv = 1.0f / sqrtf(block_sum(ss, red) / (float)HW_H + HW_EPS);
        const float layer_scalar = hw_bf16_to_float(a.layer_scalar);
        for (int i = tid; i < HW_H; i += NT) {
          const float normed = __ldcg(dglobal + i) * inv * hw_bf16_to_float(a.post_ff_rms_weight[i]);
          a.residual[i] = hw_float_to_bf16((hw_bf16_to_float(a.residual[i]) + normed) * layer_scalar);
        }
      }
    }
    __syncthreads(); /* the item's shared reads are done and s_next[parity] is written */
    item = s_next[parity];
    parity ^= 1;
  }
  if (signal_gu && tid == 0) {
    __threadfence();
    atomicAdd(gu_done, 1u);
  }
}

extern "C" __device__ const hw_cuda_plan hw_plan = {{{"ffn_queue_fused", GRID, NT, 0}},
                                                    SCRATCH_BYTES};
