// headway-design: dpbf16_blocks
// summary: AVX-512: e2m1 decoded exactly to bf16 words by vpermw (a 16-entry word table, one lookup per nibble position of 32 code words) and dotted with the bf16 activations by vdpbf16ps, block sums land in lane pairs and one FMA applies 8 block scales per 128 elements; gate and up rows decoded together against shared x; persistent pool with per-thread regions and stealing for both projections
// requires: avx512bw avx512bf16
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 8 16 32 default 16
// param P_ROWS 1 2 default 1
// param P_DOWN_ROWS 1 2 4 default 1
// param P_PREFETCH 0 1 2 4 default 0
//
// Decode: 64 code bytes are 32 16-bit words of four nibbles each; vpermw with the word shifted
// right by 0, 4, 8 and 12 bits looks up the k-th nibble of every word in a table of the 16 e2m1
// values as bf16 (all exact, 0.5 included: no subnormals). Word i of lookup k is element 4i+k, so
// vdpbf16ps (which adds words 2l and 2l+1 into f32 lane l) leaves the sum of block b in lanes 2b
// and 2b+1; the 8 f8 block scales are decoded exactly by a shift and an AND into the matching
// lanes and applied by one FMA per 128 elements. The activations (x, and h for the down
// projection) are bf16 by the contract and are stored once in the matching order. Without
// AVX-512 BW/BF16 (the proposer never offers it there: `requires:`) the file still builds, with a
// scalar table decode.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>

#include "headway_kernel.h"
#include "headway_support.h"

#if defined(__AVX512BW__) && defined(__AVX512BF16__)
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

#ifndef P_ROWS
#define P_ROWS 1
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

// The 16 e2m1 codes as bf16 words, twice (vpermw reads 5 index bits; bit 4 is the next nibble's
// lowest bit and must not matter). Constant: derived from nothing but the format.
struct E2m1Bf16 {
  alignas(64) uint16_t w[32];
  E2m1Bf16() {
    const hw::E2m1Table t;
    for (int i = 0; i < 32; ++i) w[i] = hw::f32_to_bf16(t.v[i & 15]);
  }
};
const E2m1Bf16 kE2m1;

// pshufb control spreading 8 block-scale bytes (broadcast to every 128-bit lane) to the top byte
// of dword lanes 2b and 2b+1 for block b (lane q of the register holds dwords 4q..4q+3).
struct ScaleSpread {
  alignas(64) int8_t b[64];
  ScaleSpread() {
    for (int q = 0; q < 4; ++q)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k) b[16 * q + 4 * j + k] = static_cast<int8_t>(k == 3 ? 2 * q + j / 2 : -1);
  }
};
const ScaleSpread kSpread;

// The sum of 16 lanes (through memory: GCC 12's own reductions warn under -Wall).
inline float hsum(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  float s[4] = {0, 0, 0, 0};
  for (int i = 0; i < 16; ++i) s[i % 4] += t[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// Position of element e in the permuted activation layout (blocks of 128): word k*32 + 2l + h
// holds element 8l + 4h + k, the order in which vpermw of the k-th nibble of every 16-bit code
// word comes out and vdpbf16ps pairs words.
inline int perm_pos(int e) {
  const int j = e & ~127, l = (e >> 3) & 15, h = (e >> 2) & 1, k = e & 3;
  return j + 32 * k + 2 * l + h;
}

// T rows (codes[t], scales[t]) of n elements dotted with the permuted activations (no global
// scale). Per 128 elements (64 code bytes): 3 shifts and 4 vpermw decode the nibbles to bf16, 4
// vdpbf16ps leave block b's sum in lanes 2b and 2b+1, one FMA applies the 8 decoded block scales.
template <int T>
inline void dot_rows(const uint8_t* const* codes, const uint8_t* const* scales, const XStore* xp, int n, float* out,
                     size_t ahead_codes, size_t ahead_scales) {
  const __m512i table = _mm512_load_si512(kE2m1.w);
  const __m512i spread = _mm512_load_si512(kSpread.b);
  const __m512i SM = _mm512_set1_epi32(static_cast<int>(0x87F00000u));
  const __m512 s120 = _mm512_set1_ps(0x1p120f);
  __m512 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
  for (int j = 0; j < n; j += 128) {
    const __m512bh x0 = (__m512bh)_mm512_load_si512(xp + j);
    const __m512bh x1 = (__m512bh)_mm512_load_si512(xp + j + 32);
    const __m512bh x2 = (__m512bh)_mm512_load_si512(xp + j + 64);
    const __m512bh x3 = (__m512bh)_mm512_load_si512(xp + j + 96);
    for (int t = 0; t < T; ++t) {
#if P_PREFETCH > 0
      // the same bytes of this row P_PREFETCH row groups ahead (crosses 4 KiB pages, which the
      // hardware stream prefetchers do not)
      _mm_prefetch(reinterpret_cast<const char*>(codes[t] + j / 2 + ahead_codes), _MM_HINT_T0);
      if ((j & 1023) == 0) _mm_prefetch(reinterpret_cast<const char*>(scales[t] + j / 16 + ahead_scales), _MM_HINT_T0);
#else
      (void)ahead_codes;
      (void)ahead_scales;
#endif
      const __m512i w = _mm512_loadu_si512(codes[t] + j / 2);
      const __m512bh w0 = (__m512bh)_mm512_permutexvar_epi16(w, table);
      const __m512bh w1 = (__m512bh)_mm512_permutexvar_epi16(_mm512_srli_epi16(w, 4), table);
      const __m512bh w2 = (__m512bh)_mm512_permutexvar_epi16(_mm512_srli_epi16(w, 8), table);
      const __m512bh w3 = (__m512bh)_mm512_permutexvar_epi16(_mm512_srli_epi16(w, 12), table);
      const __m512 s01 = _mm512_dpbf16_ps(_mm512_dpbf16_ps(_mm512_setzero_ps(), w0, x0), w1, x1);
      const __m512 s23 = _mm512_dpbf16_ps(_mm512_dpbf16_ps(_mm512_setzero_ps(), w2, x2), w3, x3);
      long long sq;
      std::memcpy(&sq, scales[t] + j / 16, 8);  // the 8 block scales of these 128 elements
      const __m512i sv = _mm512_shuffle_epi8(_mm512_set1_epi64(sq), spread);
      // f8 in the top byte, >> 4 arithmetic, AND 0x87F00000: the scale times 2^-120, exact
      const __m512 sc = _mm512_mul_ps(_mm512_castsi512_ps(_mm512_and_si512(_mm512_srai_epi32(sv, 4), SM)), s120);
      acc[t] = _mm512_fmadd_ps(_mm512_add_ps(s01, s23), sc, acc[t]);
    }
  }
  for (int t = 0; t < T; ++t) out[t] = hsum(acc[t]);
}
#else
using XStore = float;
const hw::F8Table kF8;
const hw::E2m1Table kFp4;

inline int perm_pos(int e) {
  const int j = e & ~127, l = (e >> 3) & 15, h = (e >> 2) & 1, k = e & 3;
  return j + 32 * k + 2 * l + h;
}

template <int T>
inline void dot_rows(const uint8_t* const* codes, const uint8_t* const* scales, const XStore* xp, int n, float* out,
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
    out[t] = total;
  }
}
#endif

inline XStore to_store(float v) {
#if HW_SIMD
  return hw::f32_to_bf16(v);
#else
  return v;
#endif
}

struct Ctx {
  const hw_ffn_args* a;
  alignas(64) XStore hp[HW_L];  // h in the decoder's activation layout
  alignas(64) float d[HW_H];
  Regions regions;
};

// x = bf16(RMSNorm(residual) * pre_ff_rms_weight), stored in the decoder's activation layout.
void prepare_x(const hw_ffn_args* a, XStore* xp) {
  float x[HW_H];
  for (int j = 0; j < HW_H; ++j) x[j] = hw::bf16_to_f32(a->residual[j]);
  const float inv = rms_inv8(x, HW_H);
  for (int j = 0; j < HW_H; ++j)
    xp[perm_pos(j)] = to_store(round_bf16(x[j] * inv * hw::bf16_to_f32(a->pre_ff_rms_weight[j])));
}

// Phase 1: h = bf16(gelu_tanh(gate . x) * (up . x)); each thread prepares its own x, then streams
// chunks of rows, P_ROWS gate rows and the same P_ROWS up rows decoded together.
void gate_up(void* p, int tid) {
  Ctx& c = *static_cast<Ctx*>(p);
  const hw_ffn_args* a = c.a;
  alignas(64) XStore xp[HW_H];
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
        c.hp[perm_pos(r + k)] = to_store(round_bf16(hw::gelu_tanh(g) * u));
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
