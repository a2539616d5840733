/* headway kernel rows: a persistent thread pool, row scheduling and the parts of the three
 * kernels that every design shares (C++ only). Included by a candidate as "headway_rows.h".
 *
 * A design supplies what makes it different (how it stores the activations, how it decodes and
 * dots a group of rows) as a struct D, and calls the kernel's driver:
 *   extern "C" void hw_attn_out(const hw_attn_out_args* a) { hw::attn_out_rows<D>(a); }
 * The contracts of D for each driver are stated above the driver. Nothing here keeps state that
 * depends on a kernel's inputs: the scratch each driver keeps is rebuilt on every call. */
#ifndef HEADWAY_KERNEL_ROWS_H
#define HEADWAY_KERNEL_ROWS_H
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "headway_kernel.h"
#include "headway_support.h"

#if defined(__AVX__)
#include <immintrin.h>
#endif
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace hw {

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

#if defined(__linux__)
/* Restricts `n` threads to every CPU of `allowed` but the calling thread's, unless the caller is
 * still on *off_cpu; *off_cpu becomes the caller's CPU. Nothing changes when the caller runs on a
 * CPU outside `allowed` or sched_getcpu fails. */
inline void keep_threads_off_caller(const pthread_t* threads, int n, const cpu_set_t& allowed,
                                    int* off_cpu) {
  const int cpu = sched_getcpu();
  if (cpu < 0 || cpu == *off_cpu || !CPU_ISSET(cpu, &allowed)) return;
  cpu_set_t others = allowed;
  CPU_CLR(cpu, &others);
  for (int t = 0; t < n; ++t) pthread_setaffinity_np(threads[t], sizeof others, &others);
  *off_cpu = cpu;
}
#endif

/* A persistent pool: the caller is thread 0. Where the harness offers its threads for as many
 * threads as asked (hw_parallel_run, headway_kernel.h; headway's cpu runner does, and keeps them
 * spinning through a timed request), the pool runs its jobs on them and has no workers of its
 * own; defining HW_OWN_POOL before including this file keeps the pool's own workers. Its own
 * workers spin briefly after a job (kWorkerSpins pauses, and then for spin_us microseconds of
 * wall time shared out among them), then sleep on a futex (std::atomic::wait); the caller waits
 * for them the same way. A longer spin keeps workers
 * ready for the next call where a sleeping thread wakes late (under a hypervisor whose host has
 * given an idle vCPU away, milliseconds: docs/PERFORMANCE.md), at the price of CPU between calls;
 * headway's timing allows a process 20 milliseconds to fall idle after a call and 50 milliseconds
 * of CPU in its life beyond its calls' wall time times the cores.
 * With place_away (the default; Linux), the workers may run on every CPU of the process but the
 * one the caller is on when it posts a job: a guest kernel may queue a woken thread behind its
 * busy waker on the waker's vCPU for a time slice instead of waking it on an idle one
 * (docs/PERFORMANCE.md, "Keeping the pool's workers off the caller's CPU"). The workers' CPUs are
 * set again only when the caller has moved, and never when the process has a single CPU. */
class Pool {
 public:
  static constexpr int kMaxThreads = 64;
  /* threads in [1, kMaxThreads]. */
  explicit Pool(int threads, int spin_us = 0, bool place_away = true)
      : workers_(threads - 1), spin_us_(threads > 1 ? spin_us / (threads - 1) : 0) {
#if !defined(HW_OWN_POOL)
    if (threads > 1 && hw_parallel_run && hw_parallel_threads && threads <= hw_parallel_threads()) {
      harness_ = true;
      return;
    }
#endif
#if defined(__linux__)
    place_away_ = place_away && sched_getaffinity(0, sizeof allowed_, &allowed_) == 0 &&
                  CPU_COUNT(&allowed_) > 1;
#else
    (void)place_away;
#endif
    for (int t = 1; t < threads; ++t) {
      std::thread worker([this, t] { loop(t); });
      handles_[t - 1] = worker.native_handle();  // valid while it runs: workers never exit
      worker.detach();
    }
  }
  int threads() const { return workers_ + 1; }
  /* fn(ctx, tid) on the caller (tid 0) and on every worker; returns when all have finished. */
  void run(void (*fn)(void*, int), void* ctx) {
    if (harness_) {
      hw_parallel_run(workers_ + 1, fn, ctx);
      return;
    }
    if (place_away_) keep_workers_off_caller();
    fn_ = fn;
    ctx_ = ctx;
    pending_.store(workers_, std::memory_order_relaxed);
    gen_.fetch_add(1, std::memory_order_release);
    gen_.notify_all();  // cheap when no worker sleeps (the library counts waiters)
    fn(ctx, 0);
    // Spin briefly, then sleep: a spinning caller would steal the core of a descheduled worker.
    for (int spins = 0; spins < kCallerSpins && pending_.load(std::memory_order_acquire) != 0;
         ++spins)
      relax();
    for (int left; (left = pending_.load(std::memory_order_acquire)) != 0;)
      pending_.wait(left, std::memory_order_acquire);
  }

 private:
  static constexpr int kCallerSpins = 1000;  // a pause is ~30-80 ns (more under a hypervisor)
  static constexpr int kWorkerSpins = 2000;
  void keep_workers_off_caller() {
#if defined(__linux__)
    keep_threads_off_caller(handles_, workers_, allowed_, &off_cpu_);
#endif
  }
  void loop(int tid) {
    uint32_t seen =
        0;  // the generation at construction: a job posted before this thread ran counts
    for (;;) {
      uint32_t g;
      const auto spin_end = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us_);
      for (int spins = 0; (g = gen_.load(std::memory_order_acquire)) == seen; ++spins) {
        if (spins < kWorkerSpins || (spin_us_ > 0 && std::chrono::steady_clock::now() < spin_end)) {
          relax();
        } else {
          gen_.wait(seen, std::memory_order_acquire);
          spins = 0;
        }
      }
      seen = g;
      fn_(ctx_, tid);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_all();
    }
  }
  std::atomic<uint32_t> gen_{0};
  std::atomic<int> pending_{0};
  void (*fn_)(void*, int) = nullptr;
  void* ctx_ = nullptr;
  int workers_;
  int spin_us_;  // per worker
  std::thread::native_handle_type handles_[kMaxThreads - 1] = {};
  bool place_away_ = false;
  bool harness_ = false;  // the harness's threads run the jobs (no workers of its own)
#if defined(__linux__)
  cpu_set_t allowed_{};
  int off_cpu_ = -1;  // the CPU the workers are kept off, -1 none yet
#endif
};

/* The candidate's pool of `threads` threads (0 or less: one per hardware thread; at most
 * Pool::kMaxThreads) whose workers spin `spin_us` together after a job (Pool), created on first
 * use and never destroyed (workers may still be asleep in it at exit). The first call's values
 * hold for the life of the process. */
inline Pool& pool(int threads, int spin_us = 0) {
  static Pool* p = [threads, spin_us] {
    int t = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
    return new Pool(t < 1 ? 1 : (t > Pool::kMaxThreads ? Pool::kMaxThreads : t),
                    spin_us < 0 ? 0 : spin_us);
  }();
  return *p;
}

/* Row scheduling: thread t owns a contiguous region of rows (boundaries multiples of `align`)
 * and walks it in chunks; when its region is exhausted it takes chunks from the other regions. */
struct Regions {
  static constexpr int kMax = 64;
  struct alignas(64) Counter {
    std::atomic<int> next{0};
    int end = 0;
  };
  Counter c[kMax];
  int n = 0;
  int chunk = 1;
  void init(int rows, int parts, int chunk_rows, int align) {
    n = parts;
    chunk = chunk_rows;
    const int units = rows / align;
    for (int t = 0; t < parts; ++t) {
      c[t].next.store(units * t / parts * align, std::memory_order_relaxed);
      c[t].end = units * (t + 1) / parts * align;
    }
  }
  bool next(int tid, int* begin, int* end) {
    for (int k = 0; k < n; ++k) {
      Counter& r = c[(tid + k) % n];
      if (r.next.load(std::memory_order_relaxed) >= r.end) continue;
      const int b = r.next.fetch_add(chunk, std::memory_order_relaxed);
      if (b >= r.end) continue;
      *begin = b;
      *end = b + chunk < r.end ? b + chunk : r.end;
      return true;
    }
    return false;
  }
};

/* out[t] = row t (n e2m1 codes at codes[t], two per byte, low nibble first; one f8e4m3 scale per
 * HW_FP4_BLOCK codes at scales[t]) dotted with the activations x(e), decoded by table, without
 * the global scale: the scalar fallback of the ffn designs. */
template <int T, class X>
inline void nvfp4_dot_table(const uint8_t* const* codes, const uint8_t* const* scales, int n,
                            float* out, X x) {
  static const F8Table f8;
  static const E2m1Table fp4;
  for (int t = 0; t < T; ++t) {
    float total = 0.0f;
    for (int b = 0; b < n / HW_FP4_BLOCK; ++b) {
      float block = 0.0f;
      for (int k = 0; k < HW_FP4_BLOCK / 2; ++k) {
        const uint8_t byte = codes[t][b * (HW_FP4_BLOCK / 2) + k];
        const int e = b * HW_FP4_BLOCK + 2 * k;
        block += fp4.v[byte & 0xf] * x(e) + fp4.v[byte >> 4] * x(e + 1);
      }
      total += block * f8.v[scales[t][b]];
    }
    out[t] = total;
  }
}

/* How the threads of a driver divide the rows:
 *   kStealChunks  each thread owns a contiguous region and walks it in chunks of D::kChunk rows,
 *                 then steals chunks from the others (Regions);
 *   kStaticParts  thread t owns part t of T equal contiguous parts: no atomics at all;
 *   kSharedHeads  (qkv) threads take whole heads from one shared counter. */
enum class Schedule { kStealChunks, kStaticParts, kSharedHeads };

/* Rows [begin, end) in groups: D::dot<D::kGroupRows> on whole groups, D::dot<1> on the rest;
 * emit(r, dot) receives every row's dot product. */
template <class D, class RowPtr, class Emit>
inline void row_groups(const typename D::Store* xp, int begin, int end, RowPtr row_ptr, Emit emit) {
  int r = begin;
  for (; r + D::kGroupRows <= end; r += D::kGroupRows) {
    float d[D::kGroupRows];
    D::template dot<D::kGroupRows>(row_ptr(r), xp, d);
    for (int k = 0; k < D::kGroupRows; ++k) emit(r + k, d[k]);
  }
  for (; r < end; ++r) {
    float d[1];
    D::template dot<1>(row_ptr(r), xp, d);
    emit(r, d[0]);
  }
}

/* ---- attn_out.
 * D: using Store (the activations' element type); kGroupRows, kChunk, kThreads, kSchedule
 * (kStealChunks or kStaticParts; kChunk only with kStealChunks); static void store(const float* x,
 * Store* xp): the HW_QS bf16-valued activations in the decoder's layout; template <int R> static
 * void dot(const uint8_t* w, const Store* xp, float* out): out[r] = row r of the R consecutive rows
 * at w (HW_QS f8 codes each) dotted with the activations. */
template <class D>
struct AttnOutRows {
  static_assert(D::kSchedule != Schedule::kSharedHeads, "attn_out has no heads to share");
  const hw_attn_out_args* a;
  alignas(64) float y[HW_H];
  Regions regions;
  int threads = 1;

  void project(const typename D::Store* xp, int begin, int end) {
    row_groups<D>(
        xp, begin, end, [this](int r) { return a->o_weight + static_cast<size_t>(r) * HW_QS; },
        [this](int r, float d) { y[r] = round_bf16(d * bf16_to_f32(a->o_scale[r])); });
  }
  // Each thread prepares its own copy of the activations (no serial prologue), then its rows.
  static void work(void* p, int tid) {
    AttnOutRows& c = *static_cast<AttnOutRows*>(p);
    alignas(64) typename D::Store xp[HW_QS];
    {
      float x[HW_QS];
      for (int j = 0; j < HW_QS; ++j) x[j] = bf16_to_f32(c.a->attn[j]);
      D::store(x, xp);
    }
    if constexpr (D::kSchedule == Schedule::kStealChunks) {
      int begin, end;
      while (c.regions.next(tid, &begin, &end)) c.project(xp, begin, end);
    } else {
      const int units = HW_H / D::kGroupRows;
      c.project(xp, units * tid / c.threads * D::kGroupRows,
                units * (tid + 1) / c.threads * D::kGroupRows);
    }
  }
  // residual = bf16(residual + RMSNorm(y) * post_attn_rms_weight)
  void finish() {
    const float inv = rms_inv8(y, HW_H);
    for (int r = 0; r < HW_H; ++r) {
      const float normed = y[r] * inv * bf16_to_f32(a->post_attn_rms_weight[r]);
      a->residual[r] = f32_to_bf16(bf16_to_f32(a->residual[r]) + normed);
    }
  }
};

template <class D>
void attn_out_rows(const hw_attn_out_args* a) {
  static AttnOutRows<D>* ctx =
      new AttnOutRows<D>;  // scratch, rebuilt from the inputs on every call
  AttnOutRows<D>& c = *ctx;
  c.a = a;
  Pool& p = pool(D::kThreads);
  c.threads = p.threads();
  if constexpr (D::kSchedule == Schedule::kStealChunks)
    c.regions.init(HW_H, p.threads(), D::kChunk, D::kGroupRows);
  p.run(AttnOutRows<D>::work, &c);
  c.finish();
}

/* ---- qkv: the rows of q, k and v as one matrix of HW_QS + 2 * HW_PS rows of HW_H codes.
 * D: as for attn_out (rows of HW_H codes), kSchedule any of the three (with kStealChunks, kChunk
 * divides HW_DS: a chunk never crosses a head). */
template <class D>
struct QkvRows {
  static constexpr int kRowsAll = HW_QS + 2 * HW_PS;
  static constexpr int kHeads = kRowsAll / HW_DS;
  const hw_qkv_args* a;
  alignas(64) float pre[kRowsAll];
  Regions regions;
  int threads = 1;
  std::atomic<int> head_done[kHeads];  // kStealChunks: rows of each head in
  std::atomic<int> next_head{0};       // kSharedHeads

  const uint8_t* row_ptr(int r) const {
    if (r < HW_QS) return a->q_weight + static_cast<size_t>(r) * HW_H;
    if (r < HW_QS + HW_PS) return a->k_weight + static_cast<size_t>(r - HW_QS) * HW_H;
    return a->v_weight + static_cast<size_t>(r - HW_QS - HW_PS) * HW_H;
  }
  float row_scale(int r) const {
    if (r < HW_QS) return bf16_to_f32(a->q_scale[r]);
    if (r < HW_QS + HW_PS) return bf16_to_f32(a->k_scale[r - HW_QS]);
    return bf16_to_f32(a->v_scale[r - HW_QS - HW_PS]);
  }
  // pre[r] = bf16(row r . xn * row_scale) for rows [begin, end).
  void project(const typename D::Store* xp, int begin, int end) {
    row_groups<D>(
        xp, begin, end, [this](int r) { return row_ptr(r); },
        [this](int r, float d) { pre[r] = round_bf16(d * row_scale(r)); });
  }
  // Per-head RMSNorm (weight optional) and RoPE (optional) of HW_DS pre-norm values; bf16 out.
  void finish_head(const float* p, const hw_bf16* weight, bool rope, hw_bf16* out) const {
    const float inv = rms_inv8(p, HW_DS);
    float normed[HW_DS];
    for (int d = 0; d < HW_DS; ++d)
      normed[d] = p[d] * inv * (weight ? bf16_to_f32(weight[d]) : 1.0f);
    for (int d = 0; d < HW_DS; ++d) {
      float v = normed[d];
      if (rope) {
        const float rotated = d < HW_DS / 2 ? -normed[d + HW_DS / 2] : normed[d - HW_DS / 2];
        v = normed[d] * bf16_to_f32(a->cos[d]) + rotated * bf16_to_f32(a->sin[d]);
      }
      out[d] = f32_to_bf16(v);
    }
  }
  // Head h (q heads, then k, then v) from its HW_DS pre-norm values.
  void finish(int head) const {
    const float* p = pre + head * HW_DS;
    const size_t slot = static_cast<size_t>(a->kv_slot) * HW_NS * HW_DS;
    constexpr int kQ = HW_QS / HW_DS, kK = HW_PS / HW_DS;
    if (head < kQ)
      finish_head(p, a->q_rms_weight, true, a->q_out + head * HW_DS);
    else if (head < kQ + kK)
      finish_head(p, a->k_rms_weight, true, a->k_cache + slot + (head - kQ) * HW_DS);
    else
      finish_head(p, nullptr, false, a->v_cache + slot + (head - kQ - kK) * HW_DS);
  }
  // Each thread prepares its own copy of the normed activations, then its rows; a head is
  // finished by the thread that completes its last row.
  static void work(void* p, int tid) {
    QkvRows& c = *static_cast<QkvRows*>(p);
    alignas(64) typename D::Store xp[HW_H];
    {
      float x[HW_H];
      for (int j = 0; j < HW_H; ++j) x[j] = bf16_to_f32(c.a->x[j]);
      const float inv = rms_inv8(x, HW_H);
      for (int j = 0; j < HW_H; ++j)
        x[j] = round_bf16(x[j] * inv * bf16_to_f32(c.a->input_rms_weight[j]));
      D::store(x, xp);
    }
    if constexpr (D::kSchedule == Schedule::kStealChunks) {
      int begin, end;
      while (c.regions.next(tid, &begin, &end)) {
        c.project(xp, begin, end);
        const int head = begin / HW_DS;
        if (c.head_done[head].fetch_add(end - begin, std::memory_order_acq_rel) + (end - begin) ==
            HW_DS)
          c.finish(head);
      }
    } else if constexpr (D::kSchedule == Schedule::kSharedHeads) {
      for (int head; (head = c.next_head.fetch_add(1, std::memory_order_relaxed)) < kHeads;) {
        c.project(xp, head * HW_DS, (head + 1) * HW_DS);
        c.finish(head);
      }
    } else {
      for (int head = kHeads * tid / c.threads; head < kHeads * (tid + 1) / c.threads; ++head) {
        c.project(xp, head * HW_DS, (head + 1) * HW_DS);
        c.finish(head);
      }
    }
  }
};

template <class D>
void qkv_rows(const hw_qkv_args* a) {
  static QkvRows<D>* ctx = new QkvRows<D>;  // scratch, rebuilt from the inputs on every call
  QkvRows<D>& c = *ctx;
  c.a = a;
  for (auto& h : c.head_done) h.store(0, std::memory_order_relaxed);
  c.next_head.store(0, std::memory_order_relaxed);
  Pool& p = pool(D::kThreads);
  c.threads = p.threads();
  if constexpr (D::kSchedule == Schedule::kStealChunks) {
    static_assert(HW_DS % D::kChunk == 0, "a chunk must not cross a head");
    c.regions.init(QkvRows<D>::kRowsAll, p.threads(), D::kChunk, HW_DS);
  }
  p.run(QkvRows<D>::work, &c);
}

/* ---- ffn: phase 1 h = bf16(gelu_tanh(gate . x) * (up . x)), phase 2 d = down . h, then the
 * norm and residual. Both phases use kStealChunks.
 * D: using Store; kGroupRows (gate rows, decoded with the same up rows), kDownGroupRows, kChunk
 * (phase 1; phase 2 takes a quarter of it, at least kDownGroupRows), kThreads, kPrefetch (row
 * groups ahead); static int pos(int e): where activation e is stored; static Store stored(float v):
 * an activation as stored; template <int T> static void dot(const uint8_t* const* codes, const
 * uint8_t* const* scales, const Store* xp, int n, float* out, size_t ahead_codes, size_t
 * ahead_scales): out[t] = row t (n e2m1 codes at codes[t], block scales at scales[t]) dotted with
 * the activations, without the global scale; ahead_*: how far ahead to prefetch. */
template <class D>
struct FfnRows {
  using Store = typename D::Store;
  const hw_ffn_args* a;
  alignas(64) Store hp[HW_L];  // h in the decoder's activation layout
  alignas(64) float d[HW_H];
  Regions regions;

  // x = bf16(RMSNorm(residual) * pre_ff_rms_weight), stored in the decoder's activation layout.
  static void prepare_x(const hw_ffn_args* a, Store* xp) {
    float x[HW_H];
    for (int j = 0; j < HW_H; ++j) x[j] = bf16_to_f32(a->residual[j]);
    const float inv = rms_inv8(x, HW_H);
    for (int j = 0; j < HW_H; ++j)
      xp[D::pos(j)] = D::stored(round_bf16(x[j] * inv * bf16_to_f32(a->pre_ff_rms_weight[j])));
  }
  // Phase 1: each thread prepares its own x, then streams chunks of rows, kGroupRows gate rows and
  // the same kGroupRows up rows decoded together.
  static void gate_up(void* p, int tid) {
    FfnRows& c = *static_cast<FfnRows*>(p);
    const hw_ffn_args* a = c.a;
    alignas(64) Store xp[HW_H];
    prepare_x(a, xp);
    int begin, end;
    while (c.regions.next(tid, &begin, &end)) {
      int r = begin;
      for (int rows; r < end; r += rows) {
        rows = end - r < D::kGroupRows ? 1 : D::kGroupRows;
        const uint8_t* codes[2 * D::kGroupRows];
        const uint8_t* scales[2 * D::kGroupRows];
        const size_t ahead = size_t{D::kPrefetch} * static_cast<size_t>(rows);
        for (int k = 0; k < rows; ++k) {
          codes[k] = a->gate_weight + static_cast<size_t>(r + k) * (HW_H / 2);
          scales[k] = a->gate_block_scale + static_cast<size_t>(r + k) * (HW_H / 16);
          codes[rows + k] = a->up_weight + static_cast<size_t>(r + k) * (HW_H / 2);
          scales[rows + k] = a->up_block_scale + static_cast<size_t>(r + k) * (HW_H / 16);
        }
        float out[2 * D::kGroupRows];
        if (rows == D::kGroupRows)
          D::template dot<2 * D::kGroupRows>(codes, scales, xp, HW_H, out, ahead * (HW_H / 2),
                                             ahead * (HW_H / 16));
        else
          D::template dot<2>(codes, scales, xp, HW_H, out, ahead * (HW_H / 2), ahead * (HW_H / 16));
        for (int k = 0; k < rows; ++k) {
          const float g = out[k] * a->gate_global_scale, u = out[rows + k] * a->up_global_scale;
          c.hp[D::pos(r + k)] = D::stored(round_bf16(gelu_tanh(g) * u));
        }
      }
    }
  }
  // Phase 2: d = down . h (f32), kDownGroupRows rows sharing each load of h.
  static void down(void* p, int tid) {
    FfnRows& c = *static_cast<FfnRows*>(p);
    const hw_ffn_args* a = c.a;
    int begin, end;
    while (c.regions.next(tid, &begin, &end)) {
      int r = begin;
      for (int rows; r < end; r += rows) {
        rows = end - r < D::kDownGroupRows ? 1 : D::kDownGroupRows;
        const uint8_t* codes[D::kDownGroupRows];
        const uint8_t* scales[D::kDownGroupRows];
        const size_t ahead = size_t{D::kPrefetch} * static_cast<size_t>(rows);
        for (int k = 0; k < rows; ++k) {
          codes[k] = a->down_weight + static_cast<size_t>(r + k) * (HW_L / 2);
          scales[k] = a->down_block_scale + static_cast<size_t>(r + k) * (HW_L / 16);
        }
        float out[D::kDownGroupRows];
        if (rows == D::kDownGroupRows)
          D::template dot<D::kDownGroupRows>(codes, scales, c.hp, HW_L, out, ahead * (HW_L / 2),
                                             ahead * (HW_L / 16));
        else
          D::template dot<1>(codes, scales, c.hp, HW_L, out, ahead * (HW_L / 2),
                             ahead * (HW_L / 16));
        for (int k = 0; k < rows; ++k) c.d[r + k] = out[k] * a->down_global_scale;
      }
    }
  }
  // residual = bf16((residual + RMSNorm(d) * post_ff_rms_weight) * layer_scalar)
  void finish() {
    const float inv_d = rms_inv8(d, HW_H);
    const float layer_scalar = bf16_to_f32(a->layer_scalar);
    for (int r = 0; r < HW_H; ++r) {
      const float normed = d[r] * inv_d * bf16_to_f32(a->post_ff_rms_weight[r]);
      a->residual[r] = f32_to_bf16((bf16_to_f32(a->residual[r]) + normed) * layer_scalar);
    }
  }
};

template <class D>
void ffn_rows(const hw_ffn_args* a) {
  static FfnRows<D>* ctx = new FfnRows<D>;  // scratch, rebuilt from the inputs on every call
  FfnRows<D>& c = *ctx;
  c.a = a;
  Pool& p = pool(D::kThreads);
  c.regions.init(HW_L, p.threads(), D::kChunk, D::kGroupRows);
  p.run(FfnRows<D>::gate_up, &c);
  constexpr int kDownChunk = D::kChunk / 4 > D::kDownGroupRows ? D::kChunk / 4 : D::kDownGroupRows;
  c.regions.init(HW_H, p.threads(), kDownChunk, D::kDownGroupRows);
  p.run(FfnRows<D>::down, &c);
  c.finish();
}

}  // namespace hw
#endif /* HEADWAY_KERNEL_ROWS_H */
