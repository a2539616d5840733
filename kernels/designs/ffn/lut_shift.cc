// headway-design: lut_shift
// summary: e2m1 mapped by one 16-entry vpshufb table to a byte s.E6.m whose 6-bit exponent keeps every value a normal f32 (no subnormals), then decoded like f8 by 16-bit shifts and one AND; the 8 decoded vectors of a 64-element chunk share one vector of 4 block scales; gate and up rows decoded together; persistent pool with per-thread regions and stealing
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 8 16 32 default 16
// param P_DOWN_ROWS 1 2 4 default 1
// param P_PREFETCH 0 1 2 4 default 0
//
// Decode: nibble c -> byte b = s<<7 | E<<1 | m with E = ee + 56 (0.5 -> E 56, m 0; 0 -> 0), so a
// byte at the top of a 16-bit word, shifted right arithmetically by 2 and ANDed with 0x9FC00000 (a
// low word first moves up by 16), is the f32 of the value times 2^-70. Per 32 nibbles of one parity the
// four decoded vectors hold lookup byte 4d+k in lane d, so every lane stays inside one 8-element half
// block and lanes 2b, 2b+1 share block b's scale. Activations are stored times 2^100 so that block sums
// times the raw (value * 2^-120) scales stay normal.
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

#ifndef P_THREADS
#define P_THREADS 2
#endif
#ifndef P_CHUNK
#define P_CHUNK 16
#endif
#ifndef P_DOWN_ROWS
#define P_DOWN_ROWS 1
#endif
#ifndef P_PREFETCH
#define P_PREFETCH 0
#endif

// One gate row and the same up row are decoded together (two rows of each, P_ROWS 2, spilled
// registers and ran slower on the 2-core EPYC VM).
#define P_ROWS 1

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

constexpr float kXScale = 0x1p100f;   // activations are stored times 2^100 ...
constexpr float kOutScale = 0x1p90f;  // ... weights decode to value * 2^-70, scales to value * 2^-120

// Position of element e in the permuted activation layout (chunks of 64): parity p, byte 4d+k of
// that parity's 32 nibbles -> vector p*4+k, lane d.
inline int perm_pos(int e) {
  const int j = e & ~63, q = e & 63, par = q & 1, byte = q >> 1, d = byte >> 2, k = byte & 3;
  return j + (par * 4 + k) * 8 + d;
}

#if HW_SIMD
// T rows (codes[t], scales[t]) of n elements dotted with the permuted activations (no global scale).
template <int T>
inline void dot_rows(const uint8_t* const* codes, const uint8_t* const* scales, const float* xp, int n, float* out,
                     size_t ahead_codes, size_t ahead_scales) {
  // e2m1 code -> s.E6.m with E = ee + 56 (0.5 -> E 56): a normal f32 exponent for every value
  const __m256i TB = _mm256_setr_epi8(0, 0x70, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, -128, -16, -14, -13, -12, -11, -10, -9,
                                      0, 0x70, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, -128, -16, -14, -13, -12, -11, -10, -9);
  const __m256i NM = _mm256_set1_epi8(0x0F);
  const __m256i M = _mm256_set1_epi32(static_cast<int>(0x9FC00000u));
  const __m256i SM = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
  constexpr int C = T >= 4 ? 2 : 4;  // block-sum chains per row (FMA latency 4, 2 per cycle)
  const __m256i spread = _mm256_setr_epi8(-1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1, 1, -1, -1, -1, 1,
                                          -1, -1, -1, 2, -1, -1, -1, 2, -1, -1, -1, 3, -1, -1, -1, 3);
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (int j = 0; j < n; j += 64) {
    const float* xv = xp + j;
    for (int t = 0; t < T; ++t) {
#if P_PREFETCH > 0
      // the same bytes of this row P_PREFETCH row groups ahead (crosses 4 KiB pages, which the
      // hardware stream prefetchers do not)
      if ((j & 127) == 0) _mm_prefetch(reinterpret_cast<const char*>(codes[t] + j / 2 + ahead_codes), _MM_HINT_T0);
      if ((j & 1023) == 0) _mm_prefetch(reinterpret_cast<const char*>(scales[t] + j / 16 + ahead_scales), _MM_HINT_T0);
#else
      (void)ahead_codes;
      (void)ahead_scales;
#endif
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes[t] + j / 2));
      const __m256i b[2] = {_mm256_shuffle_epi8(TB, _mm256_and_si256(v, NM)),
                            _mm256_shuffle_epi8(TB, _mm256_and_si256(_mm256_srli_epi16(v, 4), NM))};
      __m256 bs[C];
      for (int c = 0; c < C; ++c) bs[c] = _mm256_setzero_ps();
      for (int par = 0; par < 2; ++par) {
        const float* x = xv + par * 32;
        const __m256i hi = _mm256_srai_epi16(b[par], 2);
        const __m256i lo = _mm256_srai_epi16(_mm256_slli_epi16(b[par], 8), 2);
        const int q = par * 4;
        bs[(q + 0) % C] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(lo, 16), M)), _mm256_load_ps(x), bs[(q + 0) % C]);
        bs[(q + 1) % C] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(hi, 16), M)), _mm256_load_ps(x + 8), bs[(q + 1) % C]);
        bs[(q + 2) % C] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(lo, M)), _mm256_load_ps(x + 16), bs[(q + 2) % C]);
        bs[(q + 3) % C] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(hi, M)), _mm256_load_ps(x + 24), bs[(q + 3) % C]);
      }
      __m256 sum = bs[0];
      for (int c = 1; c < C; ++c) sum = _mm256_add_ps(sum, bs[c]);
      int sq;
      std::memcpy(&sq, scales[t] + j / 16, 4);  // 4 block scales: lanes 2b, 2b+1 get block b
      const __m256 sc = _mm256_castsi256_ps(
          _mm256_and_si256(_mm256_srai_epi32(_mm256_shuffle_epi8(_mm256_set1_epi32(sq), spread), 4), SM));
      acc[t] = _mm256_fmadd_ps(sum, sc, acc[t]);
    }
  }
  for (int t = 0; t < T; ++t) out[t] = hsum(acc[t]) * kOutScale;
}
#else
const hw::F8Table kF8;
const hw::E2m1Table kFp4;
template <int T>
inline void dot_rows(const uint8_t* const* codes, const uint8_t* const* scales, const float* xp, int n, float* out,
                     size_t ahead_codes, size_t ahead_scales) {
  (void)ahead_codes;
  (void)ahead_scales;
  for (int t = 0; t < T; ++t) {
    float total = 0.0f;
    for (int b = 0; b < n / HW_FP4_BLOCK; ++b) {
      float block = 0.0f;
      for (int k = 0; k < HW_FP4_BLOCK / 2; ++k) {
        const uint8_t byte = codes[t][b * 8 + k];
        block += kFp4.v[byte & 0xf] * xp[perm_pos(b * 16 + 2 * k)] + kFp4.v[byte >> 4] * xp[perm_pos(b * 16 + 2 * k + 1)];
      }
      total += block * kF8.v[scales[t][b]];
    }
    out[t] = total / kXScale;
  }
}
#endif

struct Ctx {
  const hw_ffn_args* a;
  alignas(64) float hp[HW_L];  // h in the decoder's activation layout
  alignas(64) float d[HW_H];
  Regions regions;
};

// x = bf16(RMSNorm(residual) * pre_ff_rms_weight), stored in the decoder's activation layout.
void prepare_x(const hw_ffn_args* a, float* xp) {
  float x[HW_H];
  for (int j = 0; j < HW_H; ++j) x[j] = hw::bf16_to_f32(a->residual[j]);
  const float inv = rms_inv8(x, HW_H);
  for (int j = 0; j < HW_H; ++j)
    xp[perm_pos(j)] = round_bf16(x[j] * inv * hw::bf16_to_f32(a->pre_ff_rms_weight[j])) * kXScale;
}

// Phase 1: h = bf16(gelu_tanh(gate . x) * (up . x)); each thread prepares its own x, then streams
// chunks of rows, P_ROWS gate rows and the same P_ROWS up rows decoded together.
void gate_up(void* p, int tid) {
  Ctx& c = *static_cast<Ctx*>(p);
  const hw_ffn_args* a = c.a;
  alignas(64) float xp[HW_H];
  prepare_x(a, xp);
  int begin, end;
  while (c.regions.next(tid, &begin, &end)) {
    int r = begin;
    for (int rows; r < end; r += rows) {
      rows = end - r < P_ROWS ? 1 : P_ROWS;
      const uint8_t* codes[2 * P_ROWS];
      const uint8_t* scales[2 * P_ROWS];
      const size_t ahead = size_t{P_PREFETCH} * static_cast<size_t>(rows);
      for (int k = 0; k < rows; ++k) {
        codes[k] = a->gate_weight + static_cast<size_t>(r + k) * (HW_H / 2);
        scales[k] = a->gate_block_scale + static_cast<size_t>(r + k) * (HW_H / 16);
        codes[rows + k] = a->up_weight + static_cast<size_t>(r + k) * (HW_H / 2);
        scales[rows + k] = a->up_block_scale + static_cast<size_t>(r + k) * (HW_H / 16);
      }
      float out[2 * P_ROWS];
      if (rows == P_ROWS) dot_rows<2 * P_ROWS>(codes, scales, xp, HW_H, out, ahead * (HW_H / 2), ahead * (HW_H / 16));
      else dot_rows<2>(codes, scales, xp, HW_H, out, ahead * (HW_H / 2), ahead * (HW_H / 16));
      for (int k = 0; k < rows; ++k) {
        const float g = out[k] * a->gate_global_scale, u = out[rows + k] * a->up_global_scale;
        c.hp[perm_pos(r + k)] = round_bf16(hw::gelu_tanh(g) * u) * kXScale;
      }
    }
  }
}

// Phase 2: d = down . h (f32), P_DOWN_ROWS rows sharing each load of h.
void down(void* p, int tid) {
  Ctx& c = *static_cast<Ctx*>(p);
  const hw_ffn_args* a = c.a;
  int begin, end;
  while (c.regions.next(tid, &begin, &end)) {
    int r = begin;
    for (int rows; r < end; r += rows) {
      rows = end - r < P_DOWN_ROWS ? 1 : P_DOWN_ROWS;
      const uint8_t* codes[P_DOWN_ROWS];
      const uint8_t* scales[P_DOWN_ROWS];
      const size_t ahead = size_t{P_PREFETCH} * static_cast<size_t>(rows);
      for (int k = 0; k < rows; ++k) {
        codes[k] = a->down_weight + static_cast<size_t>(r + k) * (HW_L / 2);
        scales[k] = a->down_block_scale + static_cast<size_t>(r + k) * (HW_L / 16);
      }
      float out[P_DOWN_ROWS];
      if (rows == P_DOWN_ROWS) dot_rows<P_DOWN_ROWS>(codes, scales, c.hp, HW_L, out, ahead * (HW_L / 2), ahead * (HW_L / 16));
      else dot_rows<1>(codes, scales, c.hp, HW_L, out, ahead * (HW_L / 2), ahead * (HW_L / 16));
      for (int k = 0; k < rows; ++k) c.d[r + k] = out[k] * a->down_global_scale;
    }
  }
}

}  // namespace

extern "C" void hw_ffn(const hw_ffn_args* a) {
  static Ctx* ctx = new Ctx;  // scratch, rebuilt from the inputs on every call
  Ctx& c = *ctx;
  c.a = a;
  Pool& p = pool();
  c.regions.init(HW_L, p.threads(), P_CHUNK, P_ROWS);
  p.run(gate_up, &c);
  constexpr int kDownChunk = P_CHUNK / 4 > P_DOWN_ROWS ? P_CHUNK / 4 : P_DOWN_ROWS;
  c.regions.init(HW_H, p.threads(), kDownChunk, P_DOWN_ROWS);
  p.run(down, &c);
  // residual = bf16((residual + RMSNorm(d) * post_ff_rms_weight) * layer_scalar)
  const float inv_d = rms_inv8(c.d, HW_H);
  const float layer_scalar = hw::bf16_to_f32(a->layer_scalar);
  for (int r = 0; r < HW_H; ++r) {
    const float normed = c.d[r] * inv_d * hw::bf16_to_f32(a->post_ff_rms_weight[r]);
    a->residual[r] = hw::f32_to_bf16((hw::bf16_to_f32(a->residual[r]) + normed) * layer_scalar);
  }
}
