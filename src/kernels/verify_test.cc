// The reference-free screen of a call's writes (screen_writes): what a call that skipped its
// work leaves behind fails it, the reference's own values pass it. Two calls on the same inputs
// compared (disagreement).
#include "kernels/verify.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace headway {
namespace {

using Kind = Violation::Kind;

// Buffers of `kernel` drawn from seed 1 and prepared as a timed call finds them: outputs
// poisoned, the in/out regions' hashes taken.
struct Given {
  explicit Given(const KernelContract& kernel) : buffers(kernel.regions()) {
    kernel.generate(1, buffers);
    expected = kernel.reference(buffers);
    poison_outputs(buffers, expected);
    hashes = hash_inout_regions(buffers);
  }
  // Writes the reference's values, as a correct call would.
  void write_expected() {
    for (const auto& e : expected) {
      auto* p = reinterpret_cast<bf16*>(buffers.bytes(e.region).data()) + e.first_element;
      for (size_t i = 0; i < e.values.size(); ++i) p[i] = double_to_bf16(e.values[i]);
    }
  }
  SharedBuffers buffers;
  std::vector<ExpectedOutput> expected;
  std::vector<uint64_t> hashes;
};

// Two calls on the same inputs that both wrote the reference's values.
struct TwoRightCalls {
  explicit TwoRightCalls(const KernelContract& kernel) : a(kernel), b(kernel) {
    a.write_expected();
    b.write_expected();
  }
  Given a;
  Given b;
};

class ScreenEveryKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(ScreenEveryKernel, ASkippedCallFailsAndTheReferencesValuesPass) {
  const KernelContract& kernel = *builtin_kernel(GetParam());
  Given skipped(kernel);
  const auto v = screen_writes(skipped.buffers, skipped.hashes);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->kind == Kind::kNotWritten || v->kind == Kind::kUnchanged) << v->describe();

  Given done(kernel);
  done.write_expected();
  const auto passed = screen_writes(done.buffers, done.hashes);
  EXPECT_FALSE(passed) << passed->describe();
}

INSTANTIATE_TEST_SUITE_P(Gemma4, ScreenEveryKernel, ::testing::Values("qkv", "attn_out", "ffn"));

TEST(ScreenWrites, AnInOutRegionLeftAsGivenIsNamed) {
  Given g(*builtin_kernel("attn_out"));  // its only written region is the in/out `residual`
  const auto v = screen_writes(g.buffers, g.hashes);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, Kind::kUnchanged);
  EXPECT_EQ(v->describe(), "left `residual` as it was given");
}

TEST(ScreenWrites, OnePoisonedOrNonFiniteElementIsFound) {
  Given g(*builtin_kernel("qkv"));
  g.write_expected();
  auto q = g.buffers.as<bf16>("q_out");
  q[17] = kPoison;
  auto v = screen_writes(g.buffers, g.hashes);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, Kind::kNotWritten);
  EXPECT_EQ(v->describe(), "did not write `q_out`[17]");
  q[17] = 0x7f80;  // +infinity
  v = screen_writes(g.buffers, g.hashes);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, Kind::kNonFinite);
  EXPECT_EQ(v->index, 17u);
}

TEST(ScreenWrites, ANonFiniteValueInAnInOutRegionIsFound) {
  Given g(*builtin_kernel("ffn"));
  g.write_expected();
  g.buffers.as<bf16>("residual")[5] = 0xffc0;  // NaN
  const auto v = screen_writes(g.buffers, g.hashes);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, Kind::kNonFinite);
  EXPECT_EQ(v->region, "residual");
}

TEST(Disagreement, TwoCallsThatWroteTheSameAgreeAndAnyElementOffByMoreThanTheShareIsNamed) {
  const KernelContract& kernel = *builtin_kernel("qkv");
  TwoRightCalls calls(kernel);
  auto& [a, b] = calls;
  EXPECT_FALSE(disagreement(kernel, a.buffers, b.buffers, 0.5));

  auto q = b.buffers.as<bf16>("q_out");
  size_t i = 0;  // an element of magnitude 1/4 to 1, where a bf16 step is at most 1/128
  while (std::fabs(bf16_to_float(q[i])) < 0.25 || std::fabs(bf16_to_float(q[i])) > 1) ++i;
  const double value = bf16_to_float(q[i]);
  const Tolerance tol = kernel.tolerance();
  // Moved by 3/8 of the tolerance (give or take the rounding): within 1/2 of it, not 1/4.
  q[i] = double_to_bf16(value + 0.375 * (tol.atol + tol.rtol * std::fabs(value)));
  EXPECT_FALSE(disagreement(kernel, a.buffers, b.buffers, 0.5));
  auto v = disagreement(kernel, a.buffers, b.buffers, 0.25);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->region, "q_out");
  EXPECT_EQ(v->index, i);
  EXPECT_EQ(v->got, value);
  EXPECT_EQ(v->expected, bf16_to_float(q[i]));

  q[i] = double_to_bf16(value);
  EXPECT_FALSE(disagreement(kernel, a.buffers, b.buffers, 0.25));
  a.buffers.as<bf16>("q_out")[i + 1] = 0xffc0;  // a NaN agrees with nothing
  v = disagreement(kernel, a.buffers, b.buffers, 0.5);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->index, i + 1);
}

TEST(Disagreement, AnElementOffAnywhereInALargeCacheIsFound) {
  // The cache is compared a chunk at a time: a value off in a chunk far in, in the last element,
  // or beside one whose bytes are alike, is named all the same.
  const KernelContract& kernel = *builtin_kernel("qkv");
  TwoRightCalls calls(kernel);
  auto& [a, b] = calls;
  auto cache = b.buffers.as<bf16>("v_cache");
  ASSERT_GT(cache.size(), 100000u);
  for (const size_t i : {size_t{0}, cache.size() / 2 + 3, cache.size() - 1}) {
    const bf16 was = cache[i];
    cache[i] = double_to_bf16(bf16_to_float(was) * 2 + 1);
    const auto v = disagreement(kernel, a.buffers, b.buffers, 0.5);
    ASSERT_TRUE(v) << i;
    EXPECT_EQ(v->region, "v_cache");
    EXPECT_EQ(v->index, i);
    cache[i] = was;
    EXPECT_FALSE(disagreement(kernel, a.buffers, b.buffers, 0.5)) << i;
  }
}

// Within ranges of the writable block, an element off is found where a range holds its bytes, by
// its index in its region, and not elsewhere: the blocks are alike there by contract.
TEST(Disagreement, WithinRangesOnlyTheBytesInsideThemAreCompared) {
  const KernelContract& kernel = *builtin_kernel("qkv");
  TwoRightCalls calls(kernel);
  auto& [a, b] = calls;
  auto cache = b.buffers.as<bf16>("v_cache");
  const size_t i = cache.size() / 2 + 3;
  cache[i] = double_to_bf16(bf16_to_float(cache[i]) * 2 + 1);
  const auto at =
      static_cast<size_t>(reinterpret_cast<std::byte*>(&cache[i]) - b.buffers.writable_block());
  using Ranges = std::vector<std::pair<size_t, size_t>>;
  const auto v = disagreement_within(kernel, a.buffers, b.buffers, 0.5,
                                     Ranges{{0, 64}, {at - at % 1024, at - at % 1024 + 1024}});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->region, "v_cache");
  EXPECT_EQ(v->index, i);
  EXPECT_FALSE(disagreement_within(kernel, a.buffers, b.buffers, 0.5, Ranges{{0, at}}));
  EXPECT_FALSE(disagreement_within(kernel, a.buffers, b.buffers, 0.5, Ranges{{at + 2, at + 4096}}));
  EXPECT_FALSE(disagreement_within(kernel, a.buffers, b.buffers, 0.5, Ranges{}));
}

TEST(Disagreement, AnInOutRegionIsComparedAndInputsAreNot) {
  const KernelContract& kernel = *builtin_kernel("attn_out");
  TwoRightCalls calls(kernel);
  auto& [a, b] = calls;
  b.buffers.bytes(0)[0] ^= std::byte{0xff};  // an input: not the calls' to write
  EXPECT_FALSE(disagreement(kernel, a.buffers, b.buffers, 0.5));
  auto residual = b.buffers.as<bf16>("residual");
  residual[100] = double_to_bf16(bf16_to_float(residual[100]) * 2 + 1);
  const auto v = disagreement(kernel, a.buffers, b.buffers, 0.5);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->region, "residual");
  EXPECT_EQ(v->index, 100u);
}

// A call's margin: the element whose error is the largest share of its tolerance, found among
// elements that pass, and infinite for a poisoned one.
TEST(ErrorShare, TheElementClosestToItsToleranceAndItsShare) {
  const KernelContract& kernel = *builtin_kernel("attn_out");
  Given g(kernel);
  g.write_expected();
  ASSERT_EQ(g.expected.size(), 1u);
  ASSERT_EQ(g.expected[0].first_element, 0u);
  const ErrorShare exact = error_share(kernel, g.buffers, g.expected);
  ASSERT_TRUE(exact.at);
  // Only the bf16 rounding of the reference's values: half a step, below 2^-8 |v| < 0.39 of
  // atol + rtol |v| (rtol 0.01).
  EXPECT_LT(exact.share, 0.39);
  EXPECT_GT(exact.share, 0.0);

  auto residual = g.buffers.as<bf16>("residual");
  const Tolerance tol = kernel.tolerance();
  const auto move = [&](size_t i, double share) {
    const double expected = g.expected[0].values[i];
    residual[i] = double_to_bf16(expected + share * (tol.atol + tol.rtol * std::fabs(expected)));
    return std::fabs(bf16_to_float(residual[i]) - expected) /
           (tol.atol + tol.rtol * std::fabs(expected));
  };
  const double at_10 = move(10, 0.4);
  const double at_20 = move(20, 0.8);
  ASSERT_LT(at_10, at_20);
  ErrorShare e = error_share(kernel, g.buffers, g.expected);
  EXPECT_EQ(e.at->index, 20u);
  EXPECT_DOUBLE_EQ(e.share, at_20);
  EXPECT_EQ(e.at->region, "residual");
  EXPECT_DOUBLE_EQ(e.at->expected, g.expected[0].values[20]);
  EXPECT_FALSE(verify_values(kernel, g.buffers, g.expected)) << "a margin, not a failure";

  residual[30] = kPoison;
  e = error_share(kernel, g.buffers, g.expected);
  EXPECT_EQ(e.at->index, 30u);
  EXPECT_TRUE(std::isinf(e.share));
}

}  // namespace
}  // namespace headway
