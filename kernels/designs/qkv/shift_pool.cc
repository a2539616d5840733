// headway-design: shift_pool
// summary: f8 decoded to f32 bits by 16-bit shifts and one AND (no tables, no converts), activations pre-permuted to match, P_ROWS rows share each activation load; rows streamed by a persistent pool (one contiguous region per thread, stealing at the end); each head's RMSNorm+RoPE runs as soon as its 256 rows are in
// param P_ROWS 1 2 4 default 4
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 4 8 16 32 default 8
// param P_PREFETCH 0 1 2 4 default 1
//
// Decode: an f8e4m3fn code s.eeee.mmm in the top byte of a 32-bit lane, shifted right
// arithmetically by 4, becomes s.ssss.eeee.mmm...; AND 0x87F00000 leaves the f32 whose exponent field
// is eeee and whose mantissa starts with mmm: the code's value times 2^-120 (subnormal codes become
// f32 subnormals, still exact; NaN codes are not decoded as NaN). One 16-bit shift serves the odd
// bytes of all words at once, the even bytes first move up by 8: 9 integer ops and 4 FMAs per 32
// codes. Lane i of decoded vector k holds code 4i+k, so the activations are stored in that order
// (times 2^32, so that products stay normal) once per call.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>

#include "headway_kernel.h"
#include "headway_support.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
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

constexpr int kCols = HW_H;               // 3840 codes per row
constexpr int kRows = HW_QS + 2 * HW_PS;  // q, k, v rows as one list of 8192
constexpr int kHeads = kRows / HW_DS;     // 32 heads of 256 rows

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
inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
#endif

constexpr float kXScale = 0x1p32f;    // activations are stored times 2^32 ...
constexpr float kOutScale = 0x1p88f;  // ... and decoded weights are value * 2^-120

#if HW_SIMD
// R consecutive rows starting at w, dotted with the permuted activations.
template <int R>
inline void dot_rows(const uint8_t* w, const float* xp, float* out) {
  constexpr int A = R == 1 ? 4 : 2;  // accumulators per row (FMA latency 4, 2 per cycle)
  const __m256i M = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
  __m256 acc[R][A];
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < A; ++k) acc[r][k] = _mm256_setzero_ps();
  for (int j = 0; j < kCols; j += 32) {
    const __m256 x0 = _mm256_load_ps(xp + j), x1 = _mm256_load_ps(xp + j + 8);
    const __m256 x2 = _mm256_load_ps(xp + j + 16), x3 = _mm256_load_ps(xp + j + 24);
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = w + static_cast<size_t>(r) * kCols + j;
#if P_PREFETCH > 0
      // the same line of this row P_PREFETCH groups of R rows ahead (crosses 4 KiB pages, which
      // the hardware stream prefetchers do not)
      if ((j & 63) == 0) _mm_prefetch(reinterpret_cast<const char*>(p + size_t{P_PREFETCH} * R * kCols), _MM_HINT_T0);
#endif
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      const __m256i t = _mm256_srai_epi16(v, 4);                          // odd bytes: s.ssss.eeee.mmm
      const __m256i u = _mm256_srai_epi16(_mm256_slli_epi16(v, 8), 4);    // even bytes
      const __m256 f3 = _mm256_castsi256_ps(_mm256_and_si256(t, M));      // codes 4i+3
      const __m256 f1 = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(t, 16), M));  // 4i+1
      const __m256 f2 = _mm256_castsi256_ps(_mm256_and_si256(u, M));      // codes 4i+2
      const __m256 f0 = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(u, 16), M));  // 4i
      acc[r][0 % A] = _mm256_fmadd_ps(f0, x0, acc[r][0 % A]);
      acc[r][1 % A] = _mm256_fmadd_ps(f1, x1, acc[r][1 % A]);
      acc[r][2 % A] = _mm256_fmadd_ps(f2, x2, acc[r][2 % A]);
      acc[r][3 % A] = _mm256_fmadd_ps(f3, x3, acc[r][3 % A]);
    }
  }
  for (int r = 0; r < R; ++r) {
    __m256 s = acc[r][0];
    for (int k = 1; k < A; ++k) s = _mm256_add_ps(s, acc[r][k]);
    out[r] = hsum(s) * kOutScale;
  }
}

// xp[j + 8k + i] = x[j + 4i + k] * 2^32 for every block of 32.
inline void store_x(const float* x, float* xp) {
  for (int j = 0; j < kCols; j += 32)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 8; ++i) xp[j + 8 * k + i] = x[j + 4 * i + k] * kXScale;
}
#else
const hw::F8Table kF8;
template <int R>
inline void dot_rows(const uint8_t* w, const float* xp, float* out) {
  for (int r = 0; r < R; ++r) {
    const uint8_t* row = w + static_cast<size_t>(r) * kCols;
    float acc[4] = {0, 0, 0, 0};
    for (int j = 0; j < kCols; j += 4)
      for (int k = 0; k < 4; ++k) acc[k] += kF8.v[row[j + k]] * xp[j + k];
    out[r] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) * kOutScale;
  }
}
inline void store_x(const float* x, float* xp) {
  for (int j = 0; j < kCols; ++j) xp[j] = x[j] / kOutScale;
}
#endif

// xn = bf16(RMSNorm(x) * input_rms_weight), stored in the decoder's activation layout.
void prepare_x(const hw_qkv_args* a, float* xp) {
  float x[HW_H];
  for (int j = 0; j < HW_H; ++j) x[j] = hw::bf16_to_f32(a->x[j]);
  const float inv = rms_inv8(x, HW_H);
  for (int j = 0; j < HW_H; ++j) x[j] = round_bf16(x[j] * inv * hw::bf16_to_f32(a->input_rms_weight[j]));
  store_x(x, xp);
}

inline const uint8_t* row_ptr(const hw_qkv_args* a, int r) {
  if (r < HW_QS) return a->q_weight + static_cast<size_t>(r) * kCols;
  if (r < HW_QS + HW_PS) return a->k_weight + static_cast<size_t>(r - HW_QS) * kCols;
  return a->v_weight + static_cast<size_t>(r - HW_QS - HW_PS) * kCols;
}

inline float row_scale(const hw_qkv_args* a, int r) {
  if (r < HW_QS) return hw::bf16_to_f32(a->q_scale[r]);
  if (r < HW_QS + HW_PS) return hw::bf16_to_f32(a->k_scale[r - HW_QS]);
  return hw::bf16_to_f32(a->v_scale[r - HW_QS - HW_PS]);
}

// pre[r] = bf16(row r . xn * row_scale) for rows [begin, end) of one matrix (end - begin rows).
void project_rows(const hw_qkv_args* a, const float* xp, int begin, int end, float* pre) {
  int r = begin;
  for (; r + P_ROWS <= end; r += P_ROWS) {
    float d[P_ROWS];
    dot_rows<P_ROWS>(row_ptr(a, r), xp, d);
    for (int k = 0; k < P_ROWS; ++k) pre[r + k] = round_bf16(d[k] * row_scale(a, r + k));
  }
  for (; r < end; ++r) {
    float d[1];
    dot_rows<1>(row_ptr(a, r), xp, d);
    pre[r] = round_bf16(d[0] * row_scale(a, r));
  }
}

// Per-head RMSNorm (weight optional) and RoPE (optional) of 256 pre-norm values; bf16 out.
void finish_head(const float* pre, const hw_bf16* weight, bool rope, const hw_qkv_args* a, hw_bf16* out) {
  const float inv = rms_inv8(pre, HW_DS);
  float normed[HW_DS];
  for (int d = 0; d < HW_DS; ++d) normed[d] = pre[d] * inv * (weight ? hw::bf16_to_f32(weight[d]) : 1.0f);
  for (int d = 0; d < HW_DS; ++d) {
    float v = normed[d];
    if (rope) {
      const float rotated = d < HW_DS / 2 ? -normed[d + HW_DS / 2] : normed[d - HW_DS / 2];
      v = normed[d] * hw::bf16_to_f32(a->cos[d]) + rotated * hw::bf16_to_f32(a->sin[d]);
    }
    out[d] = hw::f32_to_bf16(v);
  }
}

// Head h of the 32 (16 q, 8 k, 8 v) from its 256 pre-norm values.
void finish(const hw_qkv_args* a, const float* all_pre, int head) {
  const float* pre = all_pre + head * HW_DS;
  const size_t slot = static_cast<size_t>(a->kv_slot) * HW_NS * HW_DS;
  constexpr int kQ = HW_QS / HW_DS, kK = HW_PS / HW_DS;
  if (head < kQ) finish_head(pre, a->q_rms_weight, true, a, a->q_out + head * HW_DS);
  else if (head < kQ + kK) finish_head(pre, a->k_rms_weight, true, a, a->k_cache + slot + (head - kQ) * HW_DS);
  else finish_head(pre, nullptr, false, a, a->v_cache + slot + (head - kQ - kK) * HW_DS);
}

struct Ctx {
  const hw_qkv_args* a;
  alignas(64) float pre[kRows];
  Regions regions;
  std::atomic<int> head_done[kHeads];
};

// Each thread prepares its own copy of the activations (no serial prologue), streams chunks of
// rows, and finishes a head as soon as its 256th row is in.
void work(void* p, int tid) {
  Ctx& c = *static_cast<Ctx*>(p);
  alignas(64) float xp[kCols];
  prepare_x(c.a, xp);
  int begin, end;
  while (c.regions.next(tid, &begin, &end)) {  // a chunk never crosses a head
    project_rows(c.a, xp, begin, end, c.pre);
    const int head = begin / HW_DS;
    if (c.head_done[head].fetch_add(end - begin, std::memory_order_acq_rel) + (end - begin) == HW_DS) finish(c.a, c.pre, head);
  }
}

}  // namespace

extern "C" void hw_qkv(const hw_qkv_args* a) {
  static Ctx* ctx = new Ctx;  // scratch, rebuilt from the inputs on every call
  Ctx& c = *ctx;
  c.a = a;
  for (auto& h : c.head_done) h.store(0, std::memory_order_relaxed);
  Pool& p = pool();
  c.regions.init(kRows, p.threads(), P_CHUNK, HW_DS);
  p.run(work, &c);
}
