#include "kernels/numerics.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace headway {
namespace {

// Independent construction of an f8e4m3fn value through f32 bit patterns.
float f8_by_bits(int code) {
  const uint32_t sign = static_cast<uint32_t>(code >> 7) << 31;
  const int exp = (code >> 3) & 0xf;
  const uint32_t man = code & 7;
  if (exp == 0) {
    float mag = static_cast<float>(man) * (1.0f / 512.0f);  // man/8 * 2^-6
    return sign ? -mag : mag;
  }
  const uint32_t bits = sign | static_cast<uint32_t>(exp - 7 + 127) << 23 | man << 20;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(F8e4m3, EveryCodeDecodesToItsBitPattern) {
  for (int code = 0; code < 256; ++code) {
    const float got = f8e4m3_to_float(static_cast<uint8_t>(code));
    if ((code & 0x7f) == 0x7f) {
      EXPECT_TRUE(std::isnan(got)) << code;
      continue;
    }
    EXPECT_EQ(got, f8_by_bits(code)) << "code " << code;
    EXPECT_EQ(std::signbit(got), code >= 128) << code;
  }
}

TEST(F8e4m3, KnownValues) {
  EXPECT_EQ(f8e4m3_to_float(0x38), 1.0f);
  EXPECT_EQ(f8e4m3_to_float(0x7e), 448.0f);
  EXPECT_EQ(f8e4m3_to_float(0xfe), -448.0f);
  EXPECT_EQ(f8e4m3_to_float(0x08), 1.0f / 64.0f);   // smallest normal
  EXPECT_EQ(f8e4m3_to_float(0x01), 1.0f / 512.0f);  // smallest subnormal
  EXPECT_EQ(f8e4m3_to_float(0x07), 7.0f / 512.0f);  // largest subnormal
  EXPECT_EQ(f8e4m3_to_float(0x40), 2.0f);
  EXPECT_EQ(f8e4m3_to_float(0x3c), 1.5f);
  EXPECT_EQ(f8e4m3_to_float(0x78), 256.0f);  // exponent 15 is finite in the fn variant
  EXPECT_TRUE(std::isnan(f8e4m3_to_float(0x7f)));
  EXPECT_TRUE(std::isnan(f8e4m3_to_float(0xff)));
}

TEST(F8e4m3, EncodeRoundTripsEveryFiniteCodeAndRoundsToNearest) {
  for (int code = 0; code < 256; ++code) {
    if ((code & 0x7f) == 0x7f || code == 0x80) continue;  // NaN; -0 encodes as -0 below
    EXPECT_EQ(float_to_f8e4m3(f8e4m3_to_float(static_cast<uint8_t>(code))), code) << code;
  }
  EXPECT_EQ(float_to_f8e4m3(-0.0f), 0x80);
  EXPECT_EQ(float_to_f8e4m3(1.06f), 0x38);    // 1.0 is nearer than 1.125
  EXPECT_EQ(float_to_f8e4m3(1.07f), 0x39);    // 1.125 is nearer
  EXPECT_EQ(float_to_f8e4m3(1.0625f), 0x38);  // tie goes to the even code
  EXPECT_EQ(float_to_f8e4m3(1000.0f), 0x7e);  // saturates
  EXPECT_EQ(float_to_f8e4m3(-1000.0f), 0xfe);
}

TEST(F8e4m3, EncodeIsTheNearestCodeEverywhereBetweenCodes) {
  // Brute force over every finite code: the nearest value, the even code on a tie.
  auto nearest = [](float x) {
    int best = 0;
    for (int c = 1; c <= 126; ++c) {
      const float err = std::fabs(f8e4m3_to_float(static_cast<uint8_t>(c)) - std::fabs(x));
      const float best_err = std::fabs(f8e4m3_to_float(static_cast<uint8_t>(best)) - std::fabs(x));
      if (err < best_err || (err == best_err && c % 2 == 0)) best = c;
    }
    return static_cast<int>(std::signbit(x) ? 0x80 | best : best);
  };
  for (int c = 0; c < 126; ++c) {
    const float lo = f8e4m3_to_float(static_cast<uint8_t>(c));
    const float hi = f8e4m3_to_float(static_cast<uint8_t>(c + 1));
    const float mid = (lo + hi) / 2;
    for (const float x : {lo, std::nextafter(mid, 0.0f), mid, std::nextafter(mid, 1000.0f), hi,
                          lo + (hi - lo) / 7}) {
      EXPECT_EQ(float_to_f8e4m3(x), nearest(x)) << x;
      EXPECT_EQ(float_to_f8e4m3(-x), nearest(-x)) << -x;
    }
  }
  EXPECT_EQ(float_to_f8e4m3(std::numeric_limits<float>::infinity()), 0x7e);
  EXPECT_EQ(float_to_f8e4m3(std::nextafter(448.0f, 1000.0f)), 0x7e);
  EXPECT_EQ(float_to_f8e4m3(std::numeric_limits<float>::quiet_NaN()), 0x7f);
}

TEST(F8e4m3, EncodeIsTheNearestCodeForASweepOfEveryMagnitude) {
  // Every 4099th f32 bit pattern from 0 to 512 (f32 subnormals, f8 subnormals and normals, past
  // the saturation), against the nearest value found by a linear search.
  std::array<float, 127> values{};
  for (int c = 0; c < 127; ++c) values[c] = f8e4m3_to_float(static_cast<uint8_t>(c));
  auto nearest = [&](float mag) {
    int best = 0;
    for (int c = 1; c <= 126; ++c) {
      const float err = std::fabs(values[c] - mag), best_err = std::fabs(values[best] - mag);
      if (err < best_err || (err == best_err && c % 2 == 0)) best = c;
    }
    return best;
  };
  int checked = 0;
  for (uint32_t bits = 0; bits <= 0x44000000u; bits += 4099, ++checked) {
    float x;
    std::memcpy(&x, &bits, sizeof x);
    ASSERT_EQ(float_to_f8e4m3(x), nearest(x)) << x;
    ASSERT_EQ(float_to_f8e4m3(-x), 0x80 | nearest(x)) << -x;
  }
  EXPECT_GT(checked, 270000);
}

TEST(E2m1, EveryNibble) {
  const float expected[16] = {0,     0.5f,  1,  1.5f,  2,  3,  4,  6,
                              -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
  for (int n = 0; n < 16; ++n) {
    EXPECT_EQ(e2m1_to_float(static_cast<uint8_t>(n)), expected[n]) << n;
    EXPECT_EQ(std::signbit(e2m1_to_float(static_cast<uint8_t>(n))), n >= 8) << n;
  }
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
  EXPECT_EQ(float_to_bf16(-2.0f), 0xc000);
  // 1 + 2^-8 is exactly half way between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  // 1 + 3*2^-8 is half way between 1+2^-7 (odd) and 1+2^-6 (even): rounds up.
  EXPECT_EQ(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -16)), 0x3f81);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
  EXPECT_EQ(float_to_bf16(INFINITY), 0x7f80);
}

TEST(RmsNorm, KnownValues) {
  const std::vector<double> x = {1, 2, 3, 4};  // mean square 7.5
  const std::vector<double> w = {1, 0.5, 2, -1};
  std::vector<double> out(4);
  rms_norm(x, w, 0.0, out);
  const double inv = 1.0 / std::sqrt(7.5);
  EXPECT_DOUBLE_EQ(out[0], 1 * inv);
  EXPECT_DOUBLE_EQ(out[1], 2 * inv * 0.5);
  EXPECT_DOUBLE_EQ(out[2], 3 * inv * 2);
  EXPECT_DOUBLE_EQ(out[3], -4 * inv);
  rms_norm(x, {}, 0.5, out);  // no weight; eps counts inside the root
  EXPECT_DOUBLE_EQ(out[3], 4 / std::sqrt(8.0));
  std::vector<double> zeros(4, 0.0);
  rms_norm(zeros, {}, 1e-6, out);
  EXPECT_EQ(out[0], 0.0);
}

TEST(GeluTanh, KnownValues) {
  EXPECT_EQ(gelu_tanh(0.0), 0.0);
  EXPECT_NEAR(gelu_tanh(1.0), 0.8411919906082768, 1e-12);
  EXPECT_NEAR(gelu_tanh(-1.0), -0.15880800939172324, 1e-12);
  EXPECT_NEAR(gelu_tanh(3.0), 2.996362607918227, 1e-12);
  EXPECT_NEAR(gelu_tanh(-6.0), 0.0, 1e-7);
}

TEST(Rope, IdentityRotationAndQuarterTurn) {
  const std::vector<double> x = {1, 2, 3, 4};
  std::vector<double> out(4);
  rope(x, std::vector<double>{1, 1, 1, 1}, std::vector<double>{0, 0, 0, 0}, out);
  EXPECT_EQ(out, x);
  rope(x, std::vector<double>{0, 0, 0, 0}, std::vector<double>{1, 1, 1, 1}, out);
  EXPECT_EQ(out, (std::vector<double>{-3, -4, 1, 2}));  // rotate_half(x)
  const double c = std::cos(0.3), s = std::sin(0.3);
  rope(x, std::vector<double>{c, c, c, c}, std::vector<double>{s, s, s, s}, out);
  EXPECT_DOUBLE_EQ(out[0], 1 * c - 3 * s);
  EXPECT_DOUBLE_EQ(out[3], 4 * c + 2 * s);
}

}  // namespace
}  // namespace headway
