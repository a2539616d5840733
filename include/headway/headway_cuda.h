/* headway CUDA kernel ABI: what a candidate for the cuda target implements.
 *
 * A candidate is one CUDA source file that includes "headway_cuda.h" (this file). It defines:
 *   - one or more kernels with C linkage, each taking the kernel's argument struct of
 *     "headway_kernel.h" by value (its pointers are device pointers) and the scratch memory:
 *
 *       extern "C" __global__ void my_rows(hw_attn_out_args a, unsigned char* scratch);
 *
 *   - its launch plan, a device constant named hw_plan:
 *
 *       extern "C" __device__ const hw_cuda_plan hw_plan = {
 *           {{"my_rows", 960, 256, 0}, {"my_norm", 1, 1024, 0}}, 3840 * 4};
 *
 * The runner launches the plan's entries in order on one stream (a launch with an empty entry
 * name ends the plan) and times the whole plan; nothing else of the candidate runs on the host.
 * Scratch is plan.scratch_bytes of device memory (at most HW_CUDA_MAX_SCRATCH), 256-byte aligned
 * and zeroed before every call. Contract rules (as on the cpu target): write every element of
 * every output and nothing else (in the K/V caches only slot kv_slot), keep nothing across calls
 * that depends on the inputs (a later call may bring different weights at the same addresses),
 * and leave no work running when the last launch of the plan ends.
 */
#ifndef HEADWAY_CUDA_KERNEL_H
#define HEADWAY_CUDA_KERNEL_H
#include <stdint.h>

#include "headway_kernel.h"

#define HW_CUDA_MAX_LAUNCHES 8
#define HW_CUDA_ENTRY_CHARS 64
#define HW_CUDA_MAX_SCRATCH (256ull << 20)

typedef struct hw_cuda_launch {
  char entry[HW_CUDA_ENTRY_CHARS]; /* an extern "C" __global__ of this source; "" ends the plan */
  unsigned int grid;               /* thread blocks (x) */
  unsigned int block;              /* threads per block (x), at most 1024 */
  unsigned int shared_bytes;       /* dynamic shared memory per block */
} hw_cuda_launch;

typedef struct hw_cuda_plan {
  hw_cuda_launch launches[HW_CUDA_MAX_LAUNCHES];
  unsigned long long scratch_bytes;
} hw_cuda_plan;

#ifdef __CUDACC__
/* Exact conversions, as the contract's numerics define them (round to nearest even). */
static __device__ __forceinline__ float hw_bf16_to_float(hw_bf16 v) {
  return __uint_as_float(((unsigned int)v) << 16);
}
static __device__ __forceinline__ hw_bf16 hw_float_to_bf16(float f) {
  unsigned int u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (hw_bf16)((u >> 16) | 0x40u); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1u);
  return (hw_bf16)(u >> 16);
}
/* f8e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits; 0x7f and 0xff are NaN. */
static __device__ __forceinline__ float hw_f8e4m3_to_float(uint8_t code) {
  const unsigned int e = (code >> 3) & 0xfu, m = code & 0x7u;
  float v;
  if ((code & 0x7fu) == 0x7fu) return __uint_as_float(0x7fc00000u);
  if (e == 0)
    v = (float)m * 0.001953125f; /* m * 2^-9 */
  else
    v = __uint_as_float(((e + 120u) << 23) | (m << 20));
  return (code & 0x80u) ? -v : v;
}
/* e2m1: 1 sign, 2 exponent, 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6. */
static __device__ __forceinline__ float hw_e2m1_to_float(unsigned int nibble) {
  const float magnitude[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float v = magnitude[nibble & 7u];
  return (nibble & 8u) ? -v : v;
}
#endif

#endif /* HEADWAY_CUDA_KERNEL_H */
