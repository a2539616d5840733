#include "targets/cpu/decode_ceiling.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "common/stats.h"
#include "headway/headway_decoders.h"
#include "targets/cpu/parallel_readings.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define HEADWAY_DECODE_SIMD 1
#else
#define HEADWAY_DECODE_SIMD 0
#endif
#if defined(__AVX512BW__) && defined(__AVX512VBMI__) && defined(__AVX512BF16__)
#define HEADWAY_DECODE_BF16 1
#else
#define HEADWAY_DECODE_BF16 0
#endif

// headway itself may be built at -O2, which leaves the small fixed-count loops of the inner
// kernels rolled and their accumulator arrays in memory; unroll them explicitly.
#if defined(__clang__)
#define HEADWAY_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define HEADWAY_UNROLL _Pragma("GCC unroll 16")
#else
#define HEADWAY_UNROLL
#endif

namespace headway::cpu {

namespace {

// Decoded e2m1 weights are value * 2^-126 and activations are stored times 2^64 (NVFP4); see
// kernels/designs/ffn/shift_blocks.cc. The f8 decoders and the NVFP4 bf16 decoder are the
// designs' own (include/headway/headway_decoders.h).
constexpr float kFp4XScale = 0x1p64f;
constexpr float kFp4OutScale = 0x1p62f;
constexpr int kPi[8] = {0, 1, 4, 5, 2, 3, 6, 7};

[[maybe_unused]] float e2m1_value(int code) {
  static constexpr float kMag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  return (code & 8) ? -kMag[code & 7] : kMag[code & 7];
}

// Position of element e of an NVFP4 row in the permuted activation layout (blocks of 128).
int fp4_pos(int e) {
  const int j = e & ~127, b = (e >> 4) & 7, h = (e >> 3) & 1, k = e & 7;
  return j + (h * 8 + k) * 8 + kPi[b];
}

#if HEADWAY_DECODE_SIMD
// NVFP4: 64 code bytes split by shufps into first and second block halves, so that lane i of each
// decoded vector belongs to block kPi[i]; a nibble at the top of a 16-bit word, shifted right
// arithmetically by 6 and ANDed with 0x81C00000, is the f32 of its value times 2^-126.
template <int T>
void fp4_rows(const uint8_t* const* codes, const uint8_t* const* scales, const float* xp, int n,
              float* out) {
  constexpr int C = T >= 4 ? 1 : (T >= 2 ? 2 : 4);
  const __m256i M = _mm256_set1_epi32(static_cast<int>(0x81C00000u));
  const __m256i SM = _mm256_set1_epi32(static_cast<int>(0x87F00000u));
  const __m256i spread =
      _mm256_setr_epi8(-1, -1, -1, 0, -1, -1, -1, 1, -1, -1, -1, 4, -1, -1, -1, 5, -1, -1, -1, 2,
                       -1, -1, -1, 3, -1, -1, -1, 6, -1, -1, -1, 7);
  const __m256 s120 = _mm256_set1_ps(0x1p120f);
  __m256 acc[T];
  HEADWAY_UNROLL
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (int j = 0; j < n; j += 128) {
    const float* xv = xp + j;
    HEADWAY_UNROLL
    for (int t = 0; t < T; ++t) {
      const uint8_t* p = codes[t] + j / 2;
      const __m256 a0 = _mm256_loadu_ps(reinterpret_cast<const float*>(p));
      const __m256 a1 = _mm256_loadu_ps(reinterpret_cast<const float*>(p + 32));
      __m256 bs[C];
      HEADWAY_UNROLL
      for (int c = 0; c < C; ++c) bs[c] = _mm256_setzero_ps();
      int q = 0;
      HEADWAY_UNROLL
      for (int hh = 0; hh < 2; ++hh) {
        __m256i v = _mm256_castps_si256(hh == 0 ? _mm256_shuffle_ps(a0, a1, 0x88)
                                                : _mm256_shuffle_ps(a0, a1, 0xDD));
        HEADWAY_UNROLL
        for (int kk = 3; kk >= 0; --kk) {
          const __m256i s = _mm256_srai_epi16(v, 6);
          const __m256 fhi = _mm256_castsi256_ps(_mm256_and_si256(s, M));
          const __m256 flo = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(s, 16), M));
          bs[q % C] = _mm256_fmadd_ps(fhi, _mm256_load_ps(xv + (hh * 8 + kk + 4) * 8), bs[q % C]);
          ++q;
          bs[q % C] = _mm256_fmadd_ps(flo, _mm256_load_ps(xv + (hh * 8 + kk) * 8), bs[q % C]);
          ++q;
          if (kk) v = _mm256_slli_epi16(v, 4);
        }
      }
      long long sq;
      std::memcpy(&sq, scales[t] + j / 16, 8);
      const __m256i sv = _mm256_shuffle_epi8(_mm256_set1_epi64x(sq), spread);
      const __m256 sc =
          _mm256_mul_ps(_mm256_castsi256_ps(_mm256_and_si256(_mm256_srai_epi32(sv, 4), SM)), s120);
      __m256 sum = bs[0];
      HEADWAY_UNROLL
      for (int c = 1; c < C; ++c) sum = _mm256_add_ps(sum, bs[c]);
      acc[t] = _mm256_fmadd_ps(sum, sc, acc[t]);
    }
  }
  HEADWAY_UNROLL
  for (int t = 0; t < T; ++t) out[t] = hw::hsum(acc[t]) * kFp4OutScale;
}
constexpr const char* kMethod =
    "avx2+fma: f8 by 16-bit shifts + AND to f32 bits, 2 rows per x load; "
    "nvfp4 by 16-bit shifts + AND per nibble, one 16-element block per lane, 2 rows; "
    "subnormals as zero (DAZ/FTZ)";
#else
template <int T>
void fp4_rows(const uint8_t* const* codes, const uint8_t* const* scales, const float* xp, int n,
              float* out) {
  for (int t = 0; t < T; ++t) {
    float total = 0.0f;
    for (int b = 0; b < n / 16; ++b) {
      float block = 0.0f;
      for (int k = 0; k < 8; ++k) {
        const uint8_t byte = codes[t][b * 8 + k];
        block += e2m1_value(byte & 0xf) * xp[fp4_pos(b * 16 + 2 * k)] +
                 e2m1_value(byte >> 4) * xp[fp4_pos(b * 16 + 2 * k + 1)];
      }
      total += block * hw::f8e4m3_to_f32(scales[t][b]);
    }
    out[t] = total / kFp4XScale;
  }
}
constexpr const char* kMethod = "scalar tables (no avx2+fma+f16c at build time)";
#endif

// ---- the bf16 decoders (AVX-512 BW, VBMI and BF16; kernels/designs/*/perm_bf16.cc and
// kernels/designs/ffn/dpbf16_blocks.cc): codes decoded exactly to bf16 by table lookups and
// dotted with bf16 activations by vdpbf16ps.
uint16_t to_bf16_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits += 0x7fffu + ((bits >> 16) & 1u);  // nearest even; the activations are finite
  return static_cast<uint16_t>(bits >> 16);
}

// Position of element e of an f8 row in the bf16 layout (blocks of 64): vpunpck{l,h}bw interleave
// within 128-bit lanes, so word vector a holds elements 16L+0..7 of lane L, b elements 16L+8..15.
int f8_bf16_pos(int e) {
  const int j = e & ~63, q = e & 63, lane = q >> 4, i = q & 15;
  return j + (i < 8 ? 8 * lane + i : 32 + 8 * lane + (i - 8));
}

#if HEADWAY_DECODE_BF16
constexpr const char* kBf16Method =
    "avx512bw+vbmi+bf16: f8 to bf16 by two vpermi2b tables, nvfp4 to bf16 by vpermw per nibble, "
    "vdpbf16ps against bf16 activations, 2 rows per x load";
#endif

// ---- the measurement
constexpr int kCols = 4096;                                      // elements per row
constexpr size_t kTargetBytes = 256 * 1024;                      // weights per thread
constexpr int kF8Rows = static_cast<int>(kTargetBytes / kCols);  // 64 rows: 256 KiB of codes
constexpr size_t kFp4RowBytes = kCols / 2 + kCols / 16;          // 2304
constexpr int kFp4Rows = static_cast<int>(kTargetBytes / kFp4RowBytes) / 2 * 2;  // 112 rows

struct alignas(64) ThreadData {
  uint8_t* f8 = nullptr;          // [kF8Rows][kCols]
  uint8_t* fp4_codes = nullptr;   // [kFp4Rows][kCols / 2]
  uint8_t* fp4_scales = nullptr;  // [kFp4Rows][kCols / 16]
  float* xp8 = nullptr;
  float* xp4 = nullptr;
  uint16_t* xb8 = nullptr;  // the bf16 decoders' activations
  uint16_t* xb4 = nullptr;
  float sink = 0.0f;
};

void* aligned(size_t bytes) {
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) throw std::bad_alloc();
  return p;
}

void fill(ThreadData& d, uint64_t seed) {
  d.f8 = static_cast<uint8_t*>(aligned(size_t{kF8Rows} * kCols));
  d.fp4_codes = static_cast<uint8_t*>(aligned(size_t{kFp4Rows} * kCols / 2));
  d.fp4_scales = static_cast<uint8_t*>(aligned(size_t{kFp4Rows} * kCols / 16));
  d.xp8 = static_cast<float*>(aligned(kCols * sizeof(float)));
  d.xp4 = static_cast<float*>(aligned(kCols * sizeof(float)));
  d.xb8 = static_cast<uint16_t*>(aligned(kCols * sizeof(uint16_t)));
  d.xb4 = static_cast<uint16_t*>(aligned(kCols * sizeof(uint16_t)));
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&s] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  for (size_t i = 0; i < size_t{kF8Rows} * kCols; ++i) {
    uint8_t c = static_cast<uint8_t>(next());
    if ((c & 0x7f) == 0x7f) c = 0x38;  // no NaN codes
    d.f8[i] = c;
  }
  for (size_t i = 0; i < size_t{kFp4Rows} * kCols / 2; ++i)
    d.fp4_codes[i] = static_cast<uint8_t>(next());
  for (size_t i = 0; i < size_t{kFp4Rows} * kCols / 16; ++i)
    d.fp4_scales[i] = static_cast<uint8_t>(0x30 + next() % 16);
  std::vector<float> x(kCols);
  for (auto& v : x) v = static_cast<float>(static_cast<int>(next() % 2001) - 1000) / 1000.0f;
  f8_permute_activations(x.data(), d.xp8, kCols);
  nvfp4_permute_activations(x.data(), d.xp4, kCols);
  f8_bf16_permute_activations(x.data(), d.xb8, kCols);
  nvfp4_bf16_permute_activations(x.data(), d.xb4, kCols);
}

void release(ThreadData& d) {
  std::free(d.f8);
  std::free(d.fp4_codes);
  std::free(d.fp4_scales);
  std::free(d.xp8);
  std::free(d.xp4);
  std::free(d.xb8);
  std::free(d.xb4);
}

// The decoders make subnormal f32 weights (f8 and e2m1 codes scaled by a power of two), which
// some chips (Intel's recent server cores) handle in microcode at a hundredth of the speed. The
// ceiling is the decoder's instruction bound, so the benchmark treats them as zero: the sums it
// makes are not used. Applies to the calling thread.
void subnormals_as_zero() {
#if HEADWAY_DECODE_SIMD
  _mm_setcsr(_mm_getcsr() | 0x8040);  // DAZ | FTZ
#endif
}

// One pass over a thread's f8 or NVFP4 weights with `decoder`, two rows at a time.
void pass(ThreadData& d, bool fp4, Decoder decoder) {
  [[maybe_unused]] const bool bf16 = decoder == Decoder::kBf16Dot;
  float out[2];
  float s = 0.0f;
  if (!fp4) {
    for (int r = 0; r < kF8Rows; r += 2) {
      const uint8_t* w = d.f8 + size_t(r) * kCols;
#if HEADWAY_DECODE_BF16
      if (bf16) {
        hw::f8_perm_bf16_dot<2, kCols>(w, d.xb8, out);
      } else
#endif
        hw::f8_shift_dot<2, kCols>(w, d.xp8, out);
      s += out[0] + out[1];
    }
  } else {
    for (int r = 0; r < kFp4Rows; r += 2) {
      const uint8_t* codes[2] = {d.fp4_codes + size_t(r) * (kCols / 2),
                                 d.fp4_codes + size_t(r + 1) * (kCols / 2)};
      const uint8_t* scales[2] = {d.fp4_scales + size_t(r) * (kCols / 16),
                                  d.fp4_scales + size_t(r + 1) * (kCols / 16)};
#if HEADWAY_DECODE_BF16
      if (bf16) {
        hw::nvfp4_bf16_dot<2>(codes, scales, d.xb4, kCols, out);
      } else
#endif
        fp4_rows<2>(codes, scales, d.xp4, kCols, out);
      s += out[0] + out[1];
    }
  }
  d.sink += s;
}

constexpr uint64_t pass_bytes(bool fp4) {
  return fp4 ? uint64_t{kFp4Rows} * kFp4RowBytes : uint64_t{kF8Rows} * kCols;
}

// Readings of `threads` threads, each looping `passes` passes over its own data after a warm-up
// pass (parallel_readings: every thread stamps its own start and end).
std::vector<double> measure_at(std::vector<ThreadData>& data, int threads, bool fp4,
                               Decoder decoder, int readings, int passes) {
  const std::vector<double> seconds = parallel_readings(
      threads, readings,
      [&](int t) {
        subnormals_as_zero();
        pass(data[static_cast<size_t>(t)], fp4, decoder);  // data into this core's caches
      },
      [&](int t) {
        for (int p = 0; p < passes; ++p) pass(data[static_cast<size_t>(t)], fp4, decoder);
      });
  std::vector<double> gbps;
  for (const double s : seconds)
    gbps.push_back(static_cast<double>(pass_bytes(fp4)) * passes * threads / s / 1e9);
  return gbps;
}

// Passes per reading so that one reading takes about 5 ms on one thread.
int passes_for(ThreadData& d, bool fp4, Decoder decoder) {
#if HEADWAY_DECODE_SIMD
  const unsigned saved = _mm_getcsr();
#endif
  subnormals_as_zero();
  pass(d, fp4, decoder);
  const auto t0 = std::chrono::steady_clock::now();
  pass(d, fp4, decoder);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
#if HEADWAY_DECODE_SIMD
  _mm_setcsr(saved);
#endif
  return std::clamp(static_cast<int>(5e-3 / std::max(s, 1e-7)), 1, 10000);
}

}  // namespace

void f8_permute_activations(const float* x, float* xp, int n) { hw::f8_shift_store<0>(x, xp, n); }

float f8_dot(const uint8_t* codes, const float* xp, int n) {
  float out[1];
  hw::f8_shift_dot<1, 0>(codes, xp, out, n);
  return out[0];
}

void nvfp4_permute_activations(const float* x, float* xp, int n) {
  for (int e = 0; e < n; ++e) xp[fp4_pos(e)] = x[e] * kFp4XScale;
}

float nvfp4_dot(const uint8_t* codes, const uint8_t* block_scales, const float* xp, int n) {
  const uint8_t* c[1] = {codes};
  const uint8_t* s[1] = {block_scales};
  float out[1];
  fp4_rows<1>(c, s, xp, n, out);
  return out[0];
}

void f8_bf16_permute_activations(const float* x, uint16_t* xb, int n) {
  for (int e = 0; e < n; ++e) xb[f8_bf16_pos(e)] = to_bf16_bits(x[e]);
}

void nvfp4_bf16_permute_activations(const float* x, uint16_t* xb, int n) {
  for (int e = 0; e < n; ++e) xb[hw::nvfp4_bf16_pos(e)] = to_bf16_bits(x[e]);
}

#if HEADWAY_DECODE_BF16
float f8_dot_bf16(const uint8_t* codes, const uint16_t* xb, int n) {
  float out[1];
  hw::f8_perm_bf16_dot<1, 0>(codes, xb, out, n);
  return out[0];
}

float nvfp4_dot_bf16(const uint8_t* codes, const uint8_t* block_scales, const uint16_t* xb, int n) {
  const uint8_t* c[1] = {codes};
  const uint8_t* s[1] = {block_scales};
  float out[1];
  hw::nvfp4_bf16_dot<1>(c, s, xb, n, out);
  return out[0];
}
#else
float f8_dot_bf16(const uint8_t*, const uint16_t*, int) {
  throw std::logic_error("headway was built without the AVX-512 bf16 decoders");
}
float nvfp4_dot_bf16(const uint8_t*, const uint8_t*, const uint16_t*, int) {
  throw std::logic_error("headway was built without the AVX-512 bf16 decoders");
}
#endif

std::vector<Decoder> available_decoders() {
  if (HEADWAY_DECODE_BF16) return {Decoder::kShiftFma, Decoder::kBf16Dot};
  return {Decoder::kShiftFma};
}

const char* decoder_name(Decoder decoder) {
  if (decoder == Decoder::kBf16Dot) return "avx512-bf16";
  return HEADWAY_DECODE_SIMD ? "avx2+fma" : "scalar";
}

const char* decode_isa() { return HEADWAY_DECODE_SIMD ? "avx2+fma" : "scalar"; }

DecodeCeiling measure_decode_ceiling(int max_threads, int readings) {
  if (max_threads <= 0)
    max_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  readings = std::max(readings, 1);
  DecodeCeiling result;
  result.method = kMethod;
#if HEADWAY_DECODE_BF16
  result.method += std::string("; ") + kBf16Method;
#endif
  result.threads = max_threads;
  result.bytes_per_thread = std::max(pass_bytes(false), pass_bytes(true));
  std::vector<ThreadData> data(static_cast<size_t>(max_threads));
  {  // each thread fills (first-touches) its own data
    std::vector<std::thread> init;
    for (int t = 0; t < max_threads; ++t)
      init.emplace_back(
          [&, t] { fill(data[static_cast<size_t>(t)], static_cast<uint64_t>(t) + 1); });
    for (auto& t : init) t.join();
  }
  const std::vector<Decoder> decoders = available_decoders();
  std::vector<std::array<int, 2>> passes;  // per decoder: f8, NVFP4
  for (const Decoder decoder : decoders)
    passes.push_back({passes_for(data[0], false, decoder), passes_for(data[0], true, decoder)});
  for (int threads = 1; threads <= max_threads; ++threads) {
    DecodeCeilingAtThreads at;
    at.threads = threads;
    // The best decoder at this thread count, by median, per format.
    for (size_t k = 0; k < decoders.size(); ++k) {
      std::vector<double> f8 =
          measure_at(data, threads, false, decoders[k], readings, passes[k][0]);
      std::vector<double> fp4 =
          measure_at(data, threads, true, decoders[k], readings, passes[k][1]);
      if (const double m = median(f8); m > at.f8_gbps) {
        at.f8_gbps = m;
        at.f8_readings = std::move(f8);
        at.f8_decoder = decoder_name(decoders[k]);
      }
      if (const double m = median(fp4); m > at.nvfp4_gbps) {
        at.nvfp4_gbps = m;
        at.nvfp4_readings = std::move(fp4);
        at.nvfp4_decoder = decoder_name(decoders[k]);
      }
    }
    if (at.f8_gbps > result.f8_gbps) {
      result.f8_gbps = at.f8_gbps;
      result.f8_threads = threads;
      result.f8_decoder = at.f8_decoder;
    }
    if (at.nvfp4_gbps > result.nvfp4_gbps) {
      result.nvfp4_gbps = at.nvfp4_gbps;
      result.nvfp4_threads = threads;
      result.nvfp4_decoder = at.nvfp4_decoder;
    }
    result.by_threads.push_back(std::move(at));
  }
  for (auto& d : data) release(d);
  return result;
}

}  // namespace headway::cpu
