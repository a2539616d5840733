// Host emulation of the CUDA subset headway's cuda kernels use, so that a kernel file builds with
// g++ into a module for the stand-in driver (fake_libcuda.cc) and runs on the CPU: tests, and
// the cuda target's emulated toolchain (targets/cuda/emulation.h), check the real baselines and
// designs against the contract without a GPU. Included before the kernel file (g++ -include);
// HW_EMULATION_LAUNCHER(args type) after it defines the module's launcher.
//
// Blocks run one at a time on the launching host thread, each CUDA thread of a block a fiber
// (its own stack, switched in user space): __syncthreads and the warp shuffles are barriers at
// which a fiber waits until every thread of its block (or warp) has arrived, __nanosleep lets the
// others run. __shared__ variables are static storage, shared by the block's threads (and reused
// by the next block, as shared memory is not zeroed on a GPU either). Not emulated: blocks
// running concurrently (a block that waits for a later one never ends), inline PTX (kernels keep
// it under __CUDA_ARCH__), a GPU's timing.
#pragma once
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

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
// Set by the scheduler for the fiber it runs.
inline hw_emulated_dim threadIdx, blockIdx, blockDim, gridDim;

// A fiber's saved context: its stack pointer (x86-64, callee-saved registers on the stack), or a
// ucontext elsewhere.
#if defined(__x86_64__)
struct hw_emulated_context {
  void* sp = nullptr;
};
// Saves the callee-saved registers and the FPU control words on the current stack, stores its
// pointer in *from, and continues on to's stack.
extern "C" void hw_emulated_switch(void** from, void* to);
asm(R"(
  .text
  .globl hw_emulated_switch
  .hidden hw_emulated_switch
  .type hw_emulated_switch,@function
hw_emulated_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size hw_emulated_switch, .-hw_emulated_switch
)");
inline void hw_emulated_swap(hw_emulated_context& from, hw_emulated_context& to) {
  hw_emulated_switch(&from.sp, to.sp);
}
// A context that enters entry() on the stack [base, base + size) when switched to.
inline void hw_emulated_make(hw_emulated_context& c, char* base, size_t size, void (*entry)()) {
  auto* top = reinterpret_cast<uintptr_t*>((reinterpret_cast<uintptr_t>(base) + size) & ~15ul);
  *--top = 0;  // entry's frame is as after a call: the return slot 16-byte aligned
  *--top = reinterpret_cast<uintptr_t>(entry);
  for (int i = 0; i < 6; ++i) *--top = 0;  // rbp rbx r12 r13 r14 r15
  *--top = 0x037F'00001F80ull;             // the default x87 control word and MXCSR
  c.sp = top;
}
#else
struct hw_emulated_context {
  ucontext_t uc;
};
inline void hw_emulated_swap(hw_emulated_context& from, hw_emulated_context& to) {
  swapcontext(&from.uc, &to.uc);
}
inline void hw_emulated_make(hw_emulated_context& c, char* base, size_t size, void (*entry)()) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = base;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, entry, 0);
}
#endif

// A barrier of `expected` fibers; a generation ends when the last arrives.
struct hw_emulated_barrier {
  unsigned expected = 0, arrived = 0, generation = 0;
};
struct hw_emulated_fiber {
  hw_emulated_context context;
  const hw_emulated_barrier* waits_on = nullptr;  // until its generation moves past waits_for
  unsigned waits_for = 0;
  bool done = false;
};
struct hw_emulated_block {
  hw_emulated_context scheduler;
  std::vector<hw_emulated_fiber> fibers;
  hw_emulated_fiber* current = nullptr;
  hw_emulated_barrier block;
  std::vector<hw_emulated_barrier> warps;
  std::vector<uint32_t> exchange;             // one word per thread, for the shuffles
  void (*run)(const void* launch) = nullptr;  // runs the kernel for the current thread
  const void* launch = nullptr;
};
inline hw_emulated_block* hw_current_block;

// The fibers' stacks, kept for the module's life: 256 KiB each (reserved, not committed), below a
// guard page, so that a kernel whose locals outgrow it crashes rather than writes another's.
inline constexpr size_t hw_emulated_stack_bytes = 256 << 10;
inline char* hw_emulated_stack(unsigned thread) {
  constexpr size_t kStack = hw_emulated_stack_bytes, kGuard = 4 << 10;
  static std::vector<char*> stacks;
  while (stacks.size() <= thread) {
    void* p = mmap(nullptr, kStack + kGuard, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      std::fputs("cuda emulation: cannot map a thread's stack\n", stderr);
      std::abort();
    }
    mprotect(p, kGuard, PROT_NONE);
    stacks.push_back(static_cast<char*>(p) + kGuard);
  }
  return stacks[thread];
}

// Back to the scheduler; the fiber runs again when it is ready.
inline void hw_emulated_yield() {
  hw_emulated_block& b = *hw_current_block;
  hw_emulated_swap(b.current->context, b.scheduler);
}
// Arrives at `barrier`: the last to arrive goes on, the others wait for it.
inline void hw_emulated_arrive(hw_emulated_barrier& barrier) {
  if (++barrier.arrived == barrier.expected) {
    barrier.arrived = 0;
    ++barrier.generation;
    return;
  }
  hw_current_block->current->waits_on = &barrier;
  hw_current_block->current->waits_for = barrier.generation;
  hw_emulated_yield();
}
inline void hw_emulated_fiber_main() {
  hw_emulated_block& b = *hw_current_block;
  b.run(b.launch);
  b.current->done = true;
  hw_emulated_yield();  // never resumed
}

inline void __syncthreads() { hw_emulated_arrive(hw_current_block->block); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __nanosleep(unsigned) { hw_emulated_yield(); }
inline unsigned hw_emulated_shfl_xor(unsigned v, int lane_mask) {
  hw_emulated_block& b = *hw_current_block;
  const unsigned t = threadIdx.x, warp = t / 32;
  b.exchange[t] = v;
  hw_emulated_arrive(b.warps[warp]);
  const unsigned r = b.exchange[warp * 32 + ((t % 32) ^ static_cast<unsigned>(lane_mask))];
  hw_emulated_arrive(b.warps[warp]);
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

// Runs one block of `threads` fibers, each calling state.run, to its end. A block whose fibers
// all wait on barriers that none of them can reach ends the process (a GPU would hang).
inline void hw_emulated_run_block(hw_emulated_block& state, unsigned threads) {
  state.fibers.assign(threads, {});
  for (unsigned t = 0; t < threads; ++t) {
    hw_emulated_make(state.fibers[t].context, hw_emulated_stack(t), hw_emulated_stack_bytes,
                     hw_emulated_fiber_main);
  }
  for (;;) {
    bool ran = false, left = false;
    for (unsigned t = 0; t < threads; ++t) {
      hw_emulated_fiber& f = state.fibers[t];
      if (f.done) continue;
      left = true;
      if (f.waits_on && f.waits_on->generation == f.waits_for) continue;
      f.waits_on = nullptr;
      threadIdx = {t, 0, 0};
      state.current = &f;
      hw_emulated_swap(state.scheduler, f.context);
      ran = true;
    }
    if (!left) return;
    if (!ran) {
      std::fprintf(stderr, "cuda emulation: block %u's threads wait at barriers none reaches\n",
                   blockIdx.x);
      std::abort();
    }
  }
}

// Runs kernel `fn` (void(Args, unsigned char*)) over the grid with the launch's parameters.
template <class Args>
void hw_emulated_launch(void* fn, unsigned grid, unsigned block, void** params) {
  struct Launch {
    void (*kernel)(Args, unsigned char*);
    Args args;
    unsigned char* scratch;
  };
  const Launch launch{reinterpret_cast<void (*)(Args, unsigned char*)>(fn),
                      *static_cast<const Args*>(params[0]),
                      *static_cast<unsigned char**>(params[1])};
  gridDim = {grid, 1, 1};
  blockDim = {block, 1, 1};
  hw_emulated_block state;
  state.block.expected = block;
  for (unsigned w = 0; w < (block + 31) / 32; ++w)
    state.warps.push_back({std::min(32u, block - 32 * w), 0, 0});
  state.exchange.resize(block);
  state.launch = &launch;
  state.run = [](const void* p) {
    const Launch& l = *static_cast<const Launch*>(p);
    l.kernel(l.args, l.scratch);
  };
  hw_emulated_block* const outer = hw_current_block;
  hw_current_block = &state;
  for (unsigned b = 0; b < grid; ++b) {
    blockIdx = {b, 0, 0};
    hw_emulated_run_block(state, block);
  }
  hw_current_block = outer;
}

// The module's launcher, which the stand-in driver calls for every launch of its plan.
#define HW_EMULATION_LAUNCHER(ARGS)                                                \
  extern "C" void headway_emulated_launch(void* fn, unsigned grid, unsigned block, \
                                          void** params) {                         \
    hw_emulated_launch<ARGS>(fn, grid, block, params);                             \
  }
