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

namespace {
const std::array<float, 128>& f8_positive_values() {
  static const std::array<float, 128> values = [] {
    std::array<float, 128> v{};
    for (int c = 0; c < 128; ++c) v[c] = f8e4m3_to_float(static_cast<uint8_t>(c));
    return v;
  }();
  return values;
}
}  // namespace

uint8_t float_to_f8e4m3(float f) {
  if (std::isnan(f)) return 0x7f;
  const uint8_t sign = std::signbit(f) ? 0x80 : 0x00;
  const float mag = std::fabs(f);
  const auto& values = f8_positive_values();
  // Codes 0..126 are finite and increase with the code: the nearest is the first at or above
  // `mag` or the one below it, the even one on a tie.
  const auto above = std::lower_bound(values.begin(), values.begin() + 127, mag);
  const int up = static_cast<int>(above - values.begin());
  if (up == 127) return static_cast<uint8_t>(sign | 126);  // beyond 448: saturates
  if (up == 0) return sign;
  const float up_err = values[up] - mag, down_err = mag - values[up - 1];
  const int best = up_err < down_err   ? up
                   : down_err < up_err ? up - 1
                                       : (up % 2 == 0 ? up : up - 1);
  return static_cast<uint8_t>(sign | best);
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
