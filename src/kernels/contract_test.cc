#include "kernels/contract.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "headway/headway_kernel.h"
#include "kernels/numerics.h"

namespace headway {
namespace {

TEST(Contract, BytesToMoveMatchTheGemmaShapes) {
  // Weights and row scales from GEMMA4.md plus every activation read once and written once.
  const uint64_t qkv_weights = 31'457'280 + 16'384;
  const uint64_t qkv_small = 2 * 7'680 /*x, input norm*/ + 4 * 512 /*q,k norms, cos, sin*/ +
                             4 /*kv_slot*/ + 8'192 /*q_out*/ + 2 * 4'096 /*k, v slot*/;
  EXPECT_EQ(builtin_kernel("qkv")->bytes_to_move(), qkv_weights + qkv_small);
  const uint64_t attn =
      15'728'640 + 7'680 + 8'192 /*attn*/ + 7'680 /*norm*/ + 2 * 7'680 /*residual*/;
  EXPECT_EQ(builtin_kernel("attn_out")->bytes_to_move(), attn);
  const uint64_t ffn = 88'473'600 + 11'059'200 + 2 * 7'680 /*norms*/ + 2 * 7'680 /*residual*/ + 14;
  EXPECT_EQ(builtin_kernel("ffn")->bytes_to_move(), ffn);
}

TEST(Contract, QuantizedWeightBytesMatchTheGemmaShapes) {
  EXPECT_EQ(builtin_kernel("qkv")->quantized_weight_bytes(), 31'457'280u);
  EXPECT_EQ(builtin_kernel("attn_out")->quantized_weight_bytes(), 15'728'640u);
  EXPECT_EQ(builtin_kernel("ffn")->quantized_weight_bytes(), 88'473'600u + 11'059'200u);
}

TEST(Contract, UnknownKernelIsNull) {
  EXPECT_EQ(builtin_kernel("gemm"), nullptr);
  EXPECT_EQ(builtin_kernel_names(), (std::vector<std::string>{"qkv", "attn_out", "ffn"}));
}

class EveryKernel : public ::testing::TestWithParam<std::string> {};

// Outputs must be O(1) so that zeros, NaN, the unchanged input or a stale result cannot pass.
TEST_P(EveryKernel, ReferenceOutputsAreOrderOneAndDependOnTheSeed) {
  const KernelContract& k = *builtin_kernel(GetParam());
  SharedBuffers b(k.regions());
  k.generate(1, b);
  const auto first = k.reference(b);
  k.generate(2, b);
  const auto second = k.reference(b);
  ASSERT_EQ(first.size(), second.size());
  const Tolerance tol = k.tolerance();
  for (size_t o = 0; o < first.size(); ++o) {
    double sum_sq = 0;
    size_t beyond_zero = 0, differs = 0;
    for (size_t i = 0; i < first[o].values.size(); ++i) {
      const double v = first[o].values[i];
      ASSERT_TRUE(std::isfinite(v));
      sum_sq += v * v;
      beyond_zero += !tol.accepts(0.0, v);
      differs += !tol.accepts(second[o].values[i], v);
    }
    const double n = static_cast<double>(first[o].values.size());
    const double rms = std::sqrt(sum_sq / n);
    EXPECT_GT(rms, 0.3) << k.name() << " output " << o;
    EXPECT_LT(rms, 5.0) << k.name() << " output " << o;
    EXPECT_GT(beyond_zero, 0.8 * n) << "zeros would pass too often";
    EXPECT_GT(differs, 0.8 * n) << "a stale result would pass too often";
  }
}

TEST_P(EveryKernel, SameSeedSameInputs) {
  const KernelContract& k = *builtin_kernel(GetParam());
  SharedBuffers a(k.regions()), b(k.regions());
  k.generate(42, a);
  k.generate(42, b);
  for (size_t r = 0; r < a.specs().size(); ++r) {
    if (a.specs()[r].role == RegionRole::kOutput) continue;
    ASSERT_EQ(0, std::memcmp(a.bytes(r).data(), b.bytes(r).data(), a.bytes(r).size()))
        << a.specs()[r].name;
  }
}

INSTANTIATE_TEST_SUITE_P(Gemma4, EveryKernel, ::testing::Values("qkv", "attn_out", "ffn"));

TEST(Contract, InOutputsDifferFromTheirInput) {
  // "returning the input" must fail: the residual update is larger than the tolerance.
  for (const char* name : {"attn_out", "ffn"}) {
    const KernelContract& k = *builtin_kernel(name);
    SharedBuffers b(k.regions());
    k.generate(3, b);
    const auto expected = k.reference(b);
    const auto residual = b.as<bf16>("residual");
    size_t unchanged_passes = 0;
    for (size_t i = 0; i < residual.size(); ++i) {
      unchanged_passes += k.tolerance().accepts(bf16_to_float(residual[i]), expected[0].values[i]);
    }
    EXPECT_LT(unchanged_passes, residual.size() / 5) << name;
  }
}

}  // namespace
}  // namespace headway
