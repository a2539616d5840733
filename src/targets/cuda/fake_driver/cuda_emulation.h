// Host emulation of the CUDA subset headway's cuda kernels use, so that a kernel file builds with
// g++ into a module for the stand-in driver (fake_libcuda.cc) and runs on the CPU: tests check
// the real baselines and designs against the contract without a GPU. Included before the kernel
// file (g++ -include); HW_EMULATION_LAUNCHER(args type) after it defines the module's launcher.
//
// Blocks run one at a time on blockDim.x host threads; __syncthreads and the warp
// shuffles are barriers; __shared__ variables are static storage, shared by the block's threads
// (and reused by the next block, as shared memory is not zeroed on a GPU either). Not emulated:
// blocks running concurrently, inline PTX (kernels keep it under __CUDA_ARCH__), timing.
#pragma once
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#define __CUDACC__ 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) uint2 {
  unsigned x, y;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
struct hw_emulated_dim {
  unsigned x, y, z;
};
inline thread_local hw_emulated_dim threadIdx, blockIdx;
inline hw_emulated_dim blockDim, gridDim;

struct hw_emulated_block {
  std::unique_ptr<std::barrier<>> block;
  std::vector<std::unique_ptr<std::barrier<>>> warps;
  std::vector<uint32_t> exchange;  // one word per thread, for the shuffles
};
inline hw_emulated_block* hw_current_block;

inline void __syncthreads() { hw_current_block->block->arrive_and_wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __nanosleep(unsigned) { std::this_thread::yield(); }
inline unsigned hw_emulated_shfl_xor(unsigned v, int lane_mask) {
  const unsigned t = threadIdx.x, warp = t / 32;
  hw_current_block->exchange[t] = v;
  hw_current_block->warps[warp]->arrive_and_wait();
  const unsigned r =
      hw_current_block->exchange[warp * 32 + ((t % 32) ^ static_cast<unsigned>(lane_mask))];
  hw_current_block->warps[warp]->arrive_and_wait();
  return r;
}
inline float __shfl_xor_sync(unsigned, float v, int lane_mask) {
  unsigned u;
  std::memcpy(&u, &v, 4);
  u = hw_emulated_shfl_xor(u, lane_mask);
  std::memcpy(&v, &u, 4);
  return v;
}
inline unsigned atomicAdd(unsigned* p, unsigned v) {
  return std::atomic_ref<unsigned>(*p).fetch_add(v);
}
inline float atomicAdd(float* p, float v) { return std::atomic_ref<float>(*p).fetch_add(v); }
template <class T>
inline T __ldg(const T* p) {
  return *p;
}
template <class T>
inline T __ldcg(const T* p) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  T v;
  std::memcpy(&v, static_cast<const void*>(p), sizeof(T));
  return v;
}
inline float __int_as_float(int i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
inline float __uint_as_float(unsigned i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
inline unsigned __float_as_uint(float f) {
  unsigned i;
  std::memcpy(&i, &f, 4);
  return i;
}
inline int __float_as_int(float f) {
  int i;
  std::memcpy(&i, &f, 4);
  return i;
}

// Runs kernel `fn` (void(Args, unsigned char*)) over the grid with the launch's parameters.
template <class Args>
void hw_emulated_launch(void* fn, unsigned grid, unsigned block, void** params) {
  auto kernel = reinterpret_cast<void (*)(Args, unsigned char*)>(fn);
  const Args args = *static_cast<const Args*>(params[0]);
  unsigned char* scratch = *static_cast<unsigned char**>(params[1]);
  gridDim = {grid, 1, 1};
  blockDim = {block, 1, 1};
  hw_emulated_block state;
  state.block = std::make_unique<std::barrier<>>(block);
  for (unsigned w = 0; w < (block + 31) / 32; ++w)
    state.warps.push_back(std::make_unique<std::barrier<>>(std::min(32u, block - 32 * w)));
  state.exchange.resize(block);
  hw_current_block = &state;
  // One host thread per thread of a block, walking the blocks in order; a block ends when all
  // its threads have returned.
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < block; ++t) {
    threads.emplace_back([&, t] {
      threadIdx = {t, 0, 0};
      for (unsigned b = 0; b < grid; ++b) {
        blockIdx = {b, 0, 0};
        kernel(args, scratch);
        state.block->arrive_and_wait();
      }
    });
  }
  for (auto& t : threads) t.join();
}

// The module's launcher, which the stand-in driver calls for every launch of its plan.
#define HW_EMULATION_LAUNCHER(ARGS)                                                \
  extern "C" void headway_emulated_launch(void* fn, unsigned grid, unsigned block, \
                                          void** params) {                         \
    hw_emulated_launch<ARGS>(fn, grid, block, params);                             \
  }
