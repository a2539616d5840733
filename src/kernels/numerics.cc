#include "kernels/numerics.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <limits>

namespace headway {

bf16 float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (std::isnan(f)) return static_cast<bf16>((bits >> 16) | 0x0040u);
  const uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb;
  return static_cast<bf16>(bits >> 16);
}

float f8e4m3_to_float(uint8_t code) {
  const int sign = code >> 7;
  const int exp = (code >> 3) & 0xf;
  const int man = code & 0x7;
  float mag;
  if (exp == 0xf && man == 0x7) {
    mag = std::numeric_limits<float>::quiet_NaN();
  } else if (exp == 0) {
    mag = std::ldexp(static_cast<float>(man) / 8.0f, -6);
  } else {
    mag = std::ldexp(1.0f + static_cast<float>(man) / 8.0f, exp - 7);
  }
  return sign ? -mag : mag;
}

uint8_t float_to_f8e4m3(float f) {
  if (std::isnan(f)) return 0x7f;
  const uint8_t sign = std::signbit(f) ? 0x80 : 0x00;
  const float mag = std::fabs(f);
  if (mag > 448.0f) return static_cast<uint8_t>(sign | 126);  // beyond the largest: saturates
  if (mag < 0x1p-6f) {
    // Subnormal codes 0..7 are multiples of 2^-9 (code 8 is 2^-6); the scaling is exact, and
    // nearbyint rounds half to even in the default rounding mode.
    return static_cast<uint8_t>(sign | static_cast<int>(std::nearbyint(mag * 512.0f)));
  }
  // A normal f32 from 2^-6 to 448: its exponent field less the bias difference and its top
  // three mantissa bits, rounded to nearest even on the 20 dropped bits (a carry out of the
  // mantissa steps the exponent, as the code's bits do).
  uint32_t bits;
  std::memcpy(&bits, &mag, sizeof bits);
  const uint32_t exponent = (bits >> 23) - (127 - 7);
  const uint32_t mantissa = bits & 0x7fffffu;
  const uint32_t rounded = (mantissa + 0x7ffffu + ((mantissa >> 20) & 1u)) >> 20;
  return static_cast<uint8_t>(sign | ((exponent << 3) + rounded));
}

float e2m1_to_float(uint8_t nibble) {
  static constexpr std::array<float, 8> kMagnitudes = {0.0f, 0.5f, 1.0f, 1.5f,
                                                       2.0f, 3.0f, 4.0f, 6.0f};
  const float mag = kMagnitudes[nibble & 0x7];
  return (nibble & 0x8) ? -mag : mag;
}

void rms_norm(std::span<const double> x, std::span<const double> weight, double eps,
              std::span<double> out) {
  assert(out.size() == x.size());
  assert(weight.empty() || weight.size() == x.size());
  double sum_sq = 0.0;
  for (double v : x) sum_sq += v * v;
  const double inv = 1.0 / std::sqrt(sum_sq / static_cast<double>(x.size()) + eps);
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] * inv * (weight.empty() ? 1.0 : weight[i]);
}

double gelu_tanh(double x) {
  constexpr double kSqrt2OverPi = 0.7978845608028654;
  return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
}

void rope(std::span<const double> x, std::span<const double> cos, std::span<const double> sin,
          std::span<double> out) {
  const size_t d = x.size();
  const size_t half = d / 2;
  assert(d % 2 == 0 && cos.size() == d && sin.size() == d && out.size() == d);
  for (size_t i = 0; i < d; ++i) {
    const double rotated = i < half ? -x[i + half] : x[i - half];
    out[i] = x[i] * cos[i] + rotated * sin[i];
  }
}

}  // namespace headway
