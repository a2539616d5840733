/* headway kernel support: small inline helpers a candidate may use (C++ only).
 * Included by a candidate as "headway_support.h". Nothing here keeps state that depends on a
 * kernel's inputs. */
#ifndef HEADWAY_KERNEL_SUPPORT_H
#define HEADWAY_KERNEL_SUPPORT_H
#include <cmath>
#include <cstdint>
#include <cstring>

#include "headway_kernel.h"

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace hw {

#if defined(__AVX__)
/* Prefetches the line at p into cache level To: 1, L1 (prefetcht0); 2, L2 (prefetcht1). Where
 * rows are prefetched a group of rows ahead, L2 keeps them until used; L1, which also holds the
 * activations, may not (docs/PERFORMANCE.md, "Prefetching into L2"). */
template <int To>
inline void prefetch_line(const void* p) {
  static_assert(To == 1 || To == 2, "lines are prefetched into L1 or L2");
  if constexpr (To == 1)
    _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0);
  else
    _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T1);
}
#endif

inline float bf16_to_f32(hw_bf16 v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/* Round to nearest even; NaN stays NaN. */
inline hw_bf16 f32_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<hw_bf16>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<hw_bf16>(bits >> 16);
}

/* f8e4m3fn decode by formula (bias 7, no infinities, 0x7f/0xff NaN). */
inline float f8e4m3_to_f32(uint8_t code) {
  const int exp = (code >> 3) & 0xf, man = code & 7;
  float mag;
  if (exp == 0xf && man == 7)
    mag = NAN;
  else if (exp == 0)
    mag = std::ldexp(static_cast<float>(man), -9);
  else
    mag = std::ldexp(1.0f + static_cast<float>(man) * 0.125f, exp - 7);
  return (code & 0x80) ? -mag : mag;
}

/* The 256-entry f8e4m3fn decode table. */
struct F8Table {
  float v[256];
  F8Table() {
    for (int c = 0; c < 256; ++c) v[c] = f8e4m3_to_f32(static_cast<uint8_t>(c));
  }
};

/* The 16-entry e2m1 decode table (bit 3 sign). */
struct E2m1Table {
  float v[16];
  E2m1Table() {
    static const float mags[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    for (int c = 0; c < 16; ++c) v[c] = (c & 8) ? -mags[c & 7] : mags[c & 7];
  }
};

inline float gelu_tanh(float x) {
  return 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
}

/* 1 / sqrt(mean(x^2) + eps) over n f32 values. */
inline float rms_inv(const float* x, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  return 1.0f / std::sqrt(sum / static_cast<float>(n) + HW_EPS);
}

/* 1 / sqrt(mean(v^2) + eps) over n f32 values, n a multiple of 8, with 8 partial sums (the
 * single-accumulator loop of rms_inv is latency bound). */
inline float rms_inv8(const float* v, int n) {
  float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < n; i += 8)
    for (int k = 0; k < 8; ++k) s[k] += v[i + k] * v[i + k];
  const float sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  return 1.0f / std::sqrt(sum / static_cast<float>(n) + HW_EPS);
}

/* v rounded to the nearest bf16 value, as f32. */
inline float round_bf16(float v) { return bf16_to_f32(f32_to_bf16(v)); }

#if defined(__AVX__)
/* The sum of 8 lanes. */
inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
#endif
#if defined(__AVX512F__)
/* The sum of 16 lanes (through memory: GCC 12's own reductions warn under -Wall). */
inline float hsum(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  float s[4] = {0, 0, 0, 0};
  for (int i = 0; i < 16; ++i) s[i % 4] += t[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}
#endif

}  // namespace hw
#endif /* HEADWAY_KERNEL_SUPPORT_H */
