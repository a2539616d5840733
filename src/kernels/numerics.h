#pragma once
// Number formats and the scalar math shared by the kernel references (GEMMA4.md).
// Everything here is exact where the format allows it and is the single definition that the
// references, the input generators and the tests use.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace headway {

using bf16 = uint16_t;
inline constexpr size_t kBf16Bytes = sizeof(bf16);

inline float bf16_to_float(bf16 v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Round to nearest, ties to even; NaN stays a (quiet) NaN, infinities stay infinities.
bf16 float_to_bf16(float f);

// Rounds a double to the nearest float first, then to bf16. The double rounding is the
// contract: kernels compute in f32, so "round to bf16" always means from an f32 value.
inline bf16 double_to_bf16(double d) { return float_to_bf16(static_cast<float>(d)); }

// f8e4m3fn: sign bit 7, 4 exponent bits (bias 7), 3 mantissa bits, no infinities,
// 0x7f and 0xff are NaN, largest finite magnitude 448.
float f8e4m3_to_float(uint8_t code);
// Nearest f8e4m3fn code (ties to even); magnitudes beyond 448 saturate to +-448.
uint8_t float_to_f8e4m3(float f);

// e2m1 (FP4): bit 3 sign, magnitudes {0, 0.5, 1, 1.5, 2, 3, 4, 6} by the low 3 bits.
float e2m1_to_float(uint8_t nibble);

// RMSNorm, plain form: out[i] = x[i] / sqrt(mean(x^2) + eps) * weight[i]; weight may be empty
// (then it is 1). Computed in double.
void rms_norm(std::span<const double> x, std::span<const double> weight, double eps,
              std::span<double> out);

// GELU with the tanh approximation.
double gelu_tanh(double x);

// RoPE over one head: out = x*cos + rotate_half(x)*sin, rotate_half(x) = concat(-x[D/2:], x[:D/2]).
// out must not alias x.
void rope(std::span<const double> x, std::span<const double> cos, std::span<const double> sin,
          std::span<double> out);

}  // namespace headway
