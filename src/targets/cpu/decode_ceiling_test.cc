#include "targets/cpu/decode_ceiling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace headway::cpu {
namespace {

double f8_ref(uint8_t code) {
  const int exp = (code >> 3) & 0xf, man = code & 7;
  const double mag = exp == 0 ? std::ldexp(man, -9) : std::ldexp(1.0 + man / 8.0, exp - 7);
  return (code & 0x80) ? -mag : mag;
}

double e2m1_ref(int code) {
  static constexpr double kMag[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  return (code & 8) ? -kMag[code & 7] : kMag[code & 7];
}

// Activations for the decoders, aligned to 64 bytes as they load them (up to 4096).
template <class T>
struct AlignedActivations {
  alignas(64) T v[4096];
};

float f8_dot_of(const std::vector<uint8_t>& codes, const std::vector<float>& x) {
  const auto xp = std::make_unique<AlignedActivations<float>>();
  f8_permute_activations(x.data(), xp->v, static_cast<int>(x.size()));
  return f8_dot(codes.data(), xp->v, static_cast<int>(x.size()));
}

float fp4_dot_of(const std::vector<uint8_t>& codes, const std::vector<uint8_t>& scales,
                 const std::vector<float>& x) {
  const auto xp = std::make_unique<AlignedActivations<float>>();
  nvfp4_permute_activations(x.data(), xp->v, static_cast<int>(x.size()));
  return nvfp4_dot(codes.data(), scales.data(), xp->v, static_cast<int>(x.size()));
}

TEST(DecodeCeiling, F8DotIsExactOnAKnownBuffer) {
  // +1, -1, the smallest subnormal 2^-9, +2 repeated: every partial sum is exact in f32.
  const uint8_t pattern[4] = {0x38, 0xB8, 0x01, 0x40};
  std::vector<uint8_t> codes(64);
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = pattern[i % 4];
  std::vector<float> ones(64, 1.0f);
  EXPECT_EQ(f8_dot_of(codes, ones), 16 * (2.0f + 0x1p-9f));
  // Position matters: weight 1 everywhere, x = j.
  std::vector<uint8_t> unit(64, 0x38);
  std::vector<float> ramp(64);
  for (size_t j = 0; j < ramp.size(); ++j) ramp[j] = static_cast<float>(j);
  EXPECT_EQ(f8_dot_of(unit, ramp), 2016.0f);
  // Only code 5 is non-zero: picks x[5] out of the permuted layout.
  std::vector<uint8_t> one_hot(64, 0x00);
  one_hot[37] = 0x48;  // 4.0
  EXPECT_EQ(f8_dot_of(one_hot, ramp), 4.0f * 37);
}

TEST(DecodeCeiling, F8DotMatchesAReferenceOnRandomCodes) {
  std::mt19937 rng(11);
  const int n = 4096;
  std::vector<uint8_t> codes(n);
  std::vector<float> x(n);
  double ref = 0.0, mag = 0.0;
  for (int j = 0; j < n; ++j) {
    uint8_t c = static_cast<uint8_t>(rng());
    if ((c & 0x7f) == 0x7f) c = 0;  // no NaN codes
    codes[j] = c;
    x[j] = std::normal_distribution<float>()(rng);
    ref += f8_ref(c) * x[j];
    mag += std::fabs(f8_ref(c) * x[j]);
  }
  EXPECT_NEAR(f8_dot_of(codes, x), ref, 1e-5 * mag);
}

TEST(DecodeCeiling, Nvfp4DotIsExactOnAKnownBuffer) {
  // Byte 0x21: even element 0.5, odd element 1.0; byte 0x9A: even -1.0, odd -0.5.
  std::vector<uint8_t> codes(64, 0x21), scales(8, 0x38);  // 128 elements, 8 blocks of scale 1
  scales[1] = 0x40;                                       // block 1 scale 2
  scales[6] = 0x30;                                       // block 6 scale 0.5
  std::vector<float> ones(128, 1.0f);
  EXPECT_EQ(fp4_dot_of(codes, scales, ones), 12.0f * (6 + 2 + 0.5f));
  for (int k = 0; k < 8; ++k) codes[1 * 8 + k] = 0x9A;  // block 1 negative
  EXPECT_EQ(fp4_dot_of(codes, scales, ones), 12.0f * (6 + 0.5f) - 12.0f * 2);
  // One non-zero element: element 77 (block 4, odd) = 6.0 * scale 1.
  std::vector<uint8_t> one_hot(64, 0x00);
  one_hot[38] = 0x70;
  std::vector<float> ramp(128);
  for (size_t j = 0; j < ramp.size(); ++j) ramp[j] = static_cast<float>(j);
  EXPECT_EQ(fp4_dot_of(one_hot, scales, ramp), 6.0f * 77);
}

TEST(DecodeCeiling, Nvfp4DotMatchesAReferenceOnRandomCodes) {
  std::mt19937 rng(12);
  const int n = 4096;
  std::vector<uint8_t> codes(n / 2), scales(n / 16);
  std::vector<float> x(n);
  for (auto& c : codes) c = static_cast<uint8_t>(rng());
  for (auto& s : scales) s = static_cast<uint8_t>(0x08 + rng() % 0x70);  // includes small scales
  for (auto& v : x) v = std::normal_distribution<float>()(rng);
  double ref = 0.0, mag = 0.0;
  for (int b = 0; b < n / 16; ++b) {
    for (int k = 0; k < 16; ++k) {
      const uint8_t byte = codes[static_cast<size_t>(b * 8 + k / 2)];
      const double w =
          e2m1_ref(k % 2 ? byte >> 4 : byte & 0xf) * f8_ref(scales[static_cast<size_t>(b)]);
      ref += w * x[static_cast<size_t>(b * 16 + k)];
      mag += std::fabs(w * x[static_cast<size_t>(b * 16 + k)]);
    }
  }
  EXPECT_NEAR(fp4_dot_of(codes, scales, x), ref, 1e-5 * mag);
}

bool has_bf16_decoders() {
  const auto d = available_decoders();
  return std::find(d.begin(), d.end(), Decoder::kBf16Dot) != d.end();
}

float bf16_round(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  float r;
  std::memcpy(&r, &bits, sizeof r);
  return r;
}

float f8_bf16_dot_of(const std::vector<uint8_t>& codes, const std::vector<float>& x) {
  const auto xb = std::make_unique<AlignedActivations<uint16_t>>();
  f8_bf16_permute_activations(x.data(), xb->v, static_cast<int>(x.size()));
  return f8_dot_bf16(codes.data(), xb->v, static_cast<int>(x.size()));
}

float fp4_bf16_dot_of(const std::vector<uint8_t>& codes, const std::vector<uint8_t>& scales,
                      const std::vector<float>& x) {
  const auto xb = std::make_unique<AlignedActivations<uint16_t>>();
  nvfp4_bf16_permute_activations(x.data(), xb->v, static_cast<int>(x.size()));
  return nvfp4_dot_bf16(codes.data(), scales.data(), xb->v, static_cast<int>(x.size()));
}

TEST(DecodeCeiling, Bf16DecodersAreExactOnKnownBuffersAndPickTheRightElement) {
  if (!has_bf16_decoders()) GTEST_SKIP() << "built without AVX-512 BW+VBMI+BF16";
  const uint8_t pattern[4] = {0x38, 0xB8, 0x01, 0x40};  // +1, -1, 2^-9, +2
  std::vector<uint8_t> codes(128);
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = pattern[i % 4];
  EXPECT_EQ(f8_bf16_dot_of(codes, std::vector<float>(128, 1.0f)), 32 * (2.0f + 0x1p-9f));
  std::vector<float> ramp(128);
  for (size_t j = 0; j < ramp.size(); ++j) ramp[j] = static_cast<float>(j);
  for (const int hot : {0, 7, 8, 37, 63, 64, 101, 127}) {  // every lane and half of the layout
    std::vector<uint8_t> one_hot(128, 0x00);
    one_hot[static_cast<size_t>(hot)] = 0xC8;  // -4.0
    EXPECT_EQ(f8_bf16_dot_of(one_hot, ramp), -4.0f * static_cast<float>(hot)) << hot;
  }
  std::vector<uint8_t> fp4(64, 0x21), scales(8, 0x38);  // 0.5, 1.0 pairs; block scales 1
  scales[1] = 0x40;
  scales[6] = 0x30;
  EXPECT_EQ(fp4_bf16_dot_of(fp4, scales, std::vector<float>(128, 1.0f)), 12.0f * (6 + 2 + 0.5f));
  for (const int hot : {0, 5, 16, 77, 126}) {
    std::vector<uint8_t> one_hot(64, 0x00);
    one_hot[static_cast<size_t>(hot / 2)] = hot % 2 ? 0x70 : 0x07;  // 6.0 in element `hot`
    EXPECT_EQ(fp4_bf16_dot_of(one_hot, scales, ramp), 6.0f * static_cast<float>(hot) *
                                                          (hot / 16 == 1   ? 2.0f
                                                           : hot / 16 == 6 ? 0.5f
                                                                           : 1.0f))
        << hot;
  }
}

TEST(DecodeCeiling, Bf16DecodersMatchAReferenceOnRandomCodes) {
  if (!has_bf16_decoders()) GTEST_SKIP() << "built without AVX-512 BW+VBMI+BF16";
  std::mt19937 rng(13);
  const int n = 4096;
  std::vector<uint8_t> f8(n), fp4(n / 2), scales(n / 16);
  std::vector<float> x(n);
  for (auto& v : x) v = bf16_round(std::normal_distribution<float>()(rng));  // as the contract
  for (auto& c : f8) {
    c = static_cast<uint8_t>(rng());
    if ((c & 0x7f) == 0x7f) c = 0;
  }
  for (auto& c : fp4) c = static_cast<uint8_t>(rng());
  for (auto& s : scales) s = static_cast<uint8_t>(0x08 + rng() % 0x70);
  double ref8 = 0.0, mag8 = 0.0, ref4 = 0.0, mag4 = 0.0;
  for (int j = 0; j < n; ++j) {
    ref8 += f8_ref(f8[static_cast<size_t>(j)]) * x[static_cast<size_t>(j)];
    mag8 += std::fabs(f8_ref(f8[static_cast<size_t>(j)]) * x[static_cast<size_t>(j)]);
    const uint8_t byte = fp4[static_cast<size_t>(j / 2)];
    const double w =
        e2m1_ref(j % 2 ? byte >> 4 : byte & 0xf) * f8_ref(scales[static_cast<size_t>(j / 16)]);
    ref4 += w * x[static_cast<size_t>(j)];
    mag4 += std::fabs(w * x[static_cast<size_t>(j)]);
  }
  EXPECT_NEAR(f8_bf16_dot_of(f8, x), ref8, 1e-5 * mag8);
  EXPECT_NEAR(fp4_bf16_dot_of(fp4, scales, x), ref4, 1e-5 * mag4);
}

TEST(DecodeCeiling, MeasuresPositiveFiniteRatesForEveryThreadCount) {
  const int threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
  const DecodeCeiling c = measure_decode_ceiling(threads, 5);
  ASSERT_EQ(c.by_threads.size(), static_cast<size_t>(threads));
  EXPECT_FALSE(c.method.empty());
  EXPECT_GT(c.bytes_per_thread, 0u);
  for (const auto& at : c.by_threads) {
    EXPECT_TRUE(std::isfinite(at.f8_gbps) && at.f8_gbps > 0) << at.threads;
    EXPECT_TRUE(std::isfinite(at.nvfp4_gbps) && at.nvfp4_gbps > 0) << at.threads;
    EXPECT_EQ(at.f8_readings.size(), 5u);
    EXPECT_LE(at.f8_gbps, c.f8_gbps);
    EXPECT_LE(at.nvfp4_gbps, c.nvfp4_gbps);
  }
  EXPECT_GE(c.f8_threads, 1);
  EXPECT_GE(c.nvfp4_threads, 1);
  // The ceiling names the decoder that set it, one this build has.
  std::vector<std::string> names;
  for (const Decoder d : available_decoders()) names.push_back(decoder_name(d));
  EXPECT_NE(std::find(names.begin(), names.end(), c.f8_decoder), names.end()) << c.f8_decoder;
  EXPECT_NE(std::find(names.begin(), names.end(), c.nvfp4_decoder), names.end()) << c.nvfp4_decoder;
  if (has_bf16_decoders()) {
    EXPECT_NE(c.method.find("vdpbf16ps"), std::string::npos) << c.method;
  }
}

}  // namespace
}  // namespace headway::cpu
