// The reference-free screen of a call's writes (screen_writes): what a call that skipped its
// work leaves behind fails it, the reference's own values pass it.
#include "kernels/verify.h"

#include <gtest/gtest.h>

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

class ScreenEveryKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(ScreenEveryKernel, ASkippedCallFailsAndTheReferencesValuesPass) {
  const KernelContract& kernel = *find_kernel(GetParam());
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
  Given g(*find_kernel("attn_out"));  // its only written region is the in/out `residual`
  const auto v = screen_writes(g.buffers, g.hashes);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, Kind::kUnchanged);
  EXPECT_EQ(v->describe(), "left `residual` as it was given");
}

TEST(ScreenWrites, OnePoisonedOrNonFiniteElementIsFound) {
  Given g(*find_kernel("qkv"));
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
  Given g(*find_kernel("ffn"));
  g.write_expected();
  g.buffers.as<bf16>("residual")[5] = 0xffc0;  // NaN
  const auto v = screen_writes(g.buffers, g.hashes);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, Kind::kNonFinite);
  EXPECT_EQ(v->region, "residual");
}

}  // namespace
}  // namespace headway
