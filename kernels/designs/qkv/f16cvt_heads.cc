// headway-design: f16cvt_heads
// summary: f8 rebuilt as f16 bit patterns by 16-bit shifts and one AND, widened exactly by the F16C converter (vcvtph2ps; no f32 subnormals); threads take whole heads from one atomic counter and finish each head (RMSNorm + RoPE) right after its 256 rows
// param P_ROWS 1 2 4 default 2
// param P_THREADS 1 2 4 default 2
// param P_PREFETCH 0 1 2 4 default 1
//
// Decode: for a 16-bit word holding codes c_even (low byte) and c_odd (high byte), an arithmetic
// shift right by 1 and AND 0xBF80 leave sign | (c_odd & 0x7f) << 7: the f16 of c_odd's value times
// 2^-8; the even byte first moves up by 8. vcvtph2ps widens 8 f16 at a time, exactly, subnormal codes
// included, so no f32 subnormal ever reaches an FMA. Per 32 codes: 5 integer ops, 2 extracts, 4
// converts, 4 FMAs; the activations are stored once per call in the matching even/odd order.
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
#define P_ROWS 2
#endif
#ifndef P_THREADS
#define P_THREADS 2
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

constexpr float kXScale = 1.0f;
constexpr float kOutScale = 256.0f;  // decoded weights are value * 2^-8

#if HW_SIMD
// R consecutive rows starting at w, dotted with the permuted activations.
template <int R>
inline void dot_rows(const uint8_t* w, const float* xp, float* out) {
  constexpr int A = R == 1 ? 4 : 2;  // accumulators per row (FMA latency 4, 2 per cycle)
  const __m256i M = _mm256_set1_epi16(static_cast<short>(0xBF80));
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
      const __m256i odd = _mm256_and_si256(_mm256_srai_epi16(v, 1), M);                         // f16 of codes 2i+1
      const __m256i even = _mm256_and_si256(_mm256_srai_epi16(_mm256_slli_epi16(v, 8), 1), M);  // codes 2i
      const __m256 f0 = _mm256_cvtph_ps(_mm256_castsi256_si128(even));
      const __m256 f1 = _mm256_cvtph_ps(_mm256_extracti128_si256(even, 1));
      const __m256 f2 = _mm256_cvtph_ps(_mm256_castsi256_si128(odd));
      const __m256 f3 = _mm256_cvtph_ps(_mm256_extracti128_si256(odd, 1));
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

// Per 32: xp = x[0,2,..,14], x[16,..,30], x[1,..,15], x[17,..,31].
inline void store_x(const float* x, float* xp) {
  for (int j = 0; j < kCols; j += 32)
    for (int i = 0; i < 8; ++i) {
      xp[j + i] = x[j + 2 * i] * kXScale;
      xp[j + 8 + i] = x[j + 16 + 2 * i] * kXScale;
      xp[j + 16 + i] = x[j + 2 * i + 1] * kXScale;
      xp[j + 24 + i] = x[j + 17 + 2 * i] * kXScale;
    }
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
  std::atomic<int> next_head{0};
};

// Each thread prepares its own copy of the activations, then takes whole heads from one counter.
void work(void* p, int) {
  Ctx& c = *static_cast<Ctx*>(p);
  alignas(64) float xp[kCols];
  prepare_x(c.a, xp);
  for (int head; (head = c.next_head.fetch_add(1, std::memory_order_relaxed)) < kHeads;) {
    project_rows(c.a, xp, head * HW_DS, (head + 1) * HW_DS, c.pre);
    finish(c.a, c.pre, head);
  }
}

}  // namespace

extern "C" void hw_qkv(const hw_qkv_args* a) {
  static Ctx* ctx = new Ctx;  // scratch, rebuilt from the inputs on every call
  Ctx& c = *ctx;
  c.a = a;
  c.next_head.store(0, std::memory_order_relaxed);
  pool().run(work, &c);
}
