// headway-design: perm_bf16
// summary: AVX-512: f8 decoded exactly to bf16 by two vpermi2b table lookups (high and low byte, 128 entries each) and dotted with the bf16 activations by vdpbf16ps, 64 codes per step, P_ROWS rows share each activation load; rows streamed by a persistent pool, one contiguous region per thread with stealing at the end
// requires: avx512bw avx512vbmi avx512bf16
// param P_ROWS 1 2 4 default 4
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 4 8 16 32 default 8
// param P_PREFETCH 0 1 2 4 default 1
//
// Decode: the code's 7-bit magnitude indexes two 128-byte tables (the high and the low byte of
// its bf16 value) with vpermi2b; the sign bit is ORed into the high byte; vpunpck{l,h}bw
// interleave the bytes into bf16 words. The activations are already bf16 by the contract, so
// vdpbf16ps multiplies exactly (8-bit by 8-bit significands) and accumulates in f32. The
// interleaves work within 128-bit lanes, so the activations are stored once per call in the
// order the words come out. Without AVX-512 BW/VBMI/BF16 (the proposer never offers it there:
// `requires:`) the file still builds, with a scalar table decode.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>

#include "headway_kernel.h"
#include "headway_support.h"

#if defined(__AVX512BW__) && defined(__AVX512VBMI__) && defined(__AVX512BF16__)
#include <immintrin.h>
#define HW_SIMD 1
#else
#define HW_SIMD 0
#endif

#ifndef P_ROWS
#define P_ROWS 4
#endif
#ifndef P_THREADS
#define P_THREADS 2
#endif
#ifndef P_CHUNK
#define P_CHUNK 8
#endif
#ifndef P_PREFETCH
#define P_PREFETCH 1
#endif

namespace {

// ---- persistent pool: the caller is thread 0; workers spin briefly after a job, then sleep on a
// futex (std::atomic::wait); the caller waits for them the same way. Created on first use and
// never destroyed (workers may still be asleep in it at exit); it holds nothing derived from a
// kernel's inputs.
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class Pool {
 public:
  explicit Pool(int threads) : workers_(threads - 1) {
    for (int t = 1; t < threads; ++t) std::thread([this, t] { loop(t); }).detach();
  }
  int threads() const { return workers_ + 1; }
  // fn(ctx, tid) on the caller (tid 0) and on every worker; returns when all have finished.
  void run(void (*fn)(void*, int), void* ctx) {
    fn_ = fn;
    ctx_ = ctx;
    pending_.store(workers_, std::memory_order_relaxed);
    gen_.fetch_add(1, std::memory_order_release);
    gen_.notify_all();  // cheap when no worker sleeps (the library counts waiters)
    fn(ctx, 0);
    // Spin briefly, then sleep: a spinning caller would steal the core of a descheduled worker.
    for (int spins = 0; spins < kCallerSpins && pending_.load(std::memory_order_acquire) != 0; ++spins) relax();
    for (int left; (left = pending_.load(std::memory_order_acquire)) != 0;) pending_.wait(left, std::memory_order_acquire);
  }

 private:
  static constexpr int kCallerSpins = 1000;  // a pause is ~30-80 ns (more under a hypervisor)
  static constexpr int kWorkerSpins = 2000;
  void loop(int tid) {
    uint32_t seen = 0;  // the generation at construction: a job posted before this thread ran counts
    for (;;) {
      uint32_t g;
      for (int spins = 0; (g = gen_.load(std::memory_order_acquire)) == seen; ++spins) {
        if (spins < kWorkerSpins) {
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
};

Pool& pool() {
  static Pool* p = [] {
    int t = P_THREADS;
    if (t <= 0) t = static_cast<int>(std::thread::hardware_concurrency());
    return new Pool(t < 1 ? 1 : (t > 64 ? 64 : t));
  }();
  return *p;
}

// ---- row scheduling: thread t owns a contiguous region of rows (boundaries multiples of `align`)
// and walks it in chunks; when its region is exhausted it takes chunks from the other regions.
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

constexpr int kCols = HW_QS;  // 4096 codes per row

// 1/sqrt(mean(v^2) + eps) with 8 partial sums (the single-accumulator loop is latency bound).
inline float rms_inv8(const float* v, int n) {
  float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < n; i += 8)
    for (int k = 0; k < 8; ++k) s[k] += v[i + k] * v[i + k];
  const float sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  return 1.0f / std::sqrt(sum / static_cast<float>(n) + HW_EPS);
}

inline float round_bf16(float v) { return hw::bf16_to_f32(hw::f32_to_bf16(v)); }


#if HW_SIMD
using XStore = uint16_t;  // activations as bf16 bits, in the decoder's order

// bf16 bits of every f8e4m3fn magnitude (codes 0..127), as a table of high bytes and a table of
// low bytes for vpermi2b (a 7-bit index picks one of 128 bytes from two registers). Every f8
// value, subnormals included, is a normal bf16: the decode is exact. Constant: derived from
// nothing but the format.
struct Bf16Tables {
  alignas(64) uint8_t hi[128];
  alignas(64) uint8_t lo[128];
  Bf16Tables() {
    for (int c = 0; c < 128; ++c) {
      const hw_bf16 b = hw::f32_to_bf16(hw::f8e4m3_to_f32(static_cast<uint8_t>(c)));
      hi[c] = static_cast<uint8_t>(b >> 8);
      lo[c] = static_cast<uint8_t>(b & 0xff);
    }
  }
};
const Bf16Tables kTables;

// The sum of 16 lanes (through memory: GCC 12's own reductions warn under -Wall).
inline float hsum(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  float s[4] = {0, 0, 0, 0};
  for (int i = 0; i < 16; ++i) s[i % 4] += t[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// R consecutive rows starting at w, dotted with the permuted bf16 activations. Per 64 codes: two
// vpermi2b (high and low bf16 bytes of the magnitude), one vpternlogd (OR in the code's sign
// bit), two byte interleaves into bf16 words and two vdpbf16ps. The interleaves work within
// 128-bit lanes: word vector a holds codes 16L+0..7 of lane L, b codes 16L+8..15.
template <int R>
inline void dot_rows(const uint8_t* w, const XStore* xp, float* out) {
  constexpr int A = R == 1 ? 4 : 2;  // accumulators per row
  const __m512i hi0 = _mm512_load_si512(kTables.hi), hi1 = _mm512_load_si512(kTables.hi + 64);
  const __m512i lo0 = _mm512_load_si512(kTables.lo), lo1 = _mm512_load_si512(kTables.lo + 64);
  const __m512i sign = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512 acc[R][A];
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < A; ++k) acc[r][k] = _mm512_setzero_ps();
  for (int j = 0; j < kCols; j += 64) {
    const __m512bh xa = (__m512bh)_mm512_load_si512(xp + j);
    const __m512bh xb = (__m512bh)_mm512_load_si512(xp + j + 32);
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = w + static_cast<size_t>(r) * kCols + j;
#if P_PREFETCH > 0
      // the same line of this row P_PREFETCH groups of R rows ahead (crosses 4 KiB pages, which
      // the hardware stream prefetchers do not)
      _mm_prefetch(reinterpret_cast<const char*>(p + size_t{P_PREFETCH} * R * kCols), _MM_HINT_T0);
#endif
      const __m512i v = _mm512_loadu_si512(p);
      // high byte: the magnitude's, OR the code's sign bit (a | (b & c) = 0xF8)
      const __m512i h = _mm512_ternarylogic_epi32(_mm512_permutex2var_epi8(hi0, v, hi1), v, sign, 0xF8);
      const __m512i l = _mm512_permutex2var_epi8(lo0, v, lo1);
      const __m512bh wa = (__m512bh)_mm512_unpacklo_epi8(l, h);
      const __m512bh wb = (__m512bh)_mm512_unpackhi_epi8(l, h);
      acc[r][(2 * (j / 64)) % A] = _mm512_dpbf16_ps(acc[r][(2 * (j / 64)) % A], wa, xa);
      acc[r][(2 * (j / 64) + 1) % A] = _mm512_dpbf16_ps(acc[r][(2 * (j / 64) + 1) % A], wb, xb);
    }
  }
  for (int r = 0; r < R; ++r) {
    __m512 s = acc[r][0];
    for (int k = 1; k < A; ++k) s = _mm512_add_ps(s, acc[r][k]);
    out[r] = hsum(s);
  }
}

// For every block of 64: xp[j + 8L + i] = x[j + 16L + i], xp[j + 32 + 8L + i] = x[j + 16L + 8 + i]
// (L = 0..3, i = 0..7), as bf16 (x is already bf16-rounded, so this is exact).
inline void store_x(const float* x, XStore* xp) {
  for (int j = 0; j < kCols; j += 64)
    for (int L = 0; L < 4; ++L)
      for (int i = 0; i < 8; ++i) {
        xp[j + 8 * L + i] = hw::f32_to_bf16(x[j + 16 * L + i]);
        xp[j + 32 + 8 * L + i] = hw::f32_to_bf16(x[j + 16 * L + 8 + i]);
      }
}
#else
using XStore = float;
const hw::F8Table kF8;
template <int R>
inline void dot_rows(const uint8_t* w, const XStore* xp, float* out) {
  for (int r = 0; r < R; ++r) {
    const uint8_t* row = w + static_cast<size_t>(r) * kCols;
    float acc[4] = {0, 0, 0, 0};
    for (int j = 0; j < kCols; j += 4)
      for (int k = 0; k < 4; ++k) acc[k] += kF8.v[row[j + k]] * xp[j + k];
    out[r] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }
}
inline void store_x(const float* x, XStore* xp) {
  for (int j = 0; j < kCols; ++j) xp[j] = x[j];
}
#endif

void prepare_x(const hw_attn_out_args* a, XStore* xp) {
  float x[kCols];
  for (int j = 0; j < kCols; ++j) x[j] = hw::bf16_to_f32(a->attn[j]);
  store_x(x, xp);
}

// y[r] = bf16(row r . attn * o_scale[r]) for rows [begin, end).
void project_rows(const hw_attn_out_args* a, const XStore* xp, int begin, int end, float* y) {
  int r = begin;
  for (; r + P_ROWS <= end; r += P_ROWS) {
    float d[P_ROWS];
    dot_rows<P_ROWS>(a->o_weight + static_cast<size_t>(r) * kCols, xp, d);
    for (int k = 0; k < P_ROWS; ++k) y[r + k] = round_bf16(d[k] * hw::bf16_to_f32(a->o_scale[r + k]));
  }
  for (; r < end; ++r) {
    float d[1];
    dot_rows<1>(a->o_weight + static_cast<size_t>(r) * kCols, xp, d);
    y[r] = round_bf16(d[0] * hw::bf16_to_f32(a->o_scale[r]));
  }
}

// residual = bf16(residual + RMSNorm(y) * post_attn_rms_weight)
void finish(const hw_attn_out_args* a, const float* y) {
  const float inv = rms_inv8(y, HW_H);
  for (int r = 0; r < HW_H; ++r) {
    const float normed = y[r] * inv * hw::bf16_to_f32(a->post_attn_rms_weight[r]);
    a->residual[r] = hw::f32_to_bf16(hw::bf16_to_f32(a->residual[r]) + normed);
  }
}

struct Ctx {
  const hw_attn_out_args* a;
  alignas(64) float y[HW_H];
  Regions regions;
};

// Each thread prepares its own copy of the activations (no serial prologue), then streams chunks.
void work(void* p, int tid) {
  Ctx& c = *static_cast<Ctx*>(p);
  alignas(64) XStore xp[kCols];
  prepare_x(c.a, xp);
  int begin, end;
  while (c.regions.next(tid, &begin, &end)) project_rows(c.a, xp, begin, end, c.y);
}

}  // namespace

extern "C" void hw_attn_out(const hw_attn_out_args* a) {
  static Ctx* ctx = new Ctx;  // scratch, rebuilt from the inputs on every call
  Ctx& c = *ctx;
  c.a = a;
  Pool& p = pool();
  c.regions.init(HW_H, p.threads(), P_CHUNK, P_ROWS);
  p.run(work, &c);
  finish(a, c.y);
}
