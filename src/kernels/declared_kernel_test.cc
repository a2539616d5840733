#include "kernels/declared_kernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "kernels/shared_buffers.h"

namespace headway {
namespace {

TEST(DeclaredKernel, FindKernelKnowsItWithItsBytesOnceDeclared) {
  EXPECT_EQ(find_kernel("declared_probe"), nullptr);
  const auto declared = declare_kernel("declared_probe", 6000000);
  ASSERT_TRUE(declared) << declared.error().message;
  const KernelContract* k = find_kernel("declared_probe");
  ASSERT_EQ(k, declared.value());
  EXPECT_EQ(k->name(), "declared_probe");
  EXPECT_EQ(k->bytes_to_move(), 6000000u);
  EXPECT_EQ(k->weight_format(), KernelContract::WeightFormat::kNone);
  EXPECT_FALSE(is_builtin_kernel("declared_probe"));
  const auto names = declared_kernel_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "declared_probe"), names.end());
  // Its oracle is the toolchain's: headway draws nothing and computes no reference for it.
  SharedBuffers buffers({{"x", 16, RegionRole::kInput}});
  EXPECT_THROW(k->generate(1, buffers), std::logic_error);
  EXPECT_THROW(k->reference(buffers), std::logic_error);
}

TEST(DeclaredKernel, ADeclarationAgainReplacesItAndLeavesTheOldContractValid) {
  const KernelContract* first = declare_kernel("declared_again", 100).value();
  EXPECT_EQ(declare_kernel("declared_again", 100).value(), first);
  const KernelContract* second = declare_kernel("declared_again", 200).value();
  EXPECT_NE(second, first);
  EXPECT_EQ(find_kernel("declared_again"), second);
  EXPECT_EQ(first->bytes_to_move(), 100u);
}

TEST(DeclaredKernel, BuiltInNamesBadNamesAndNoBytesAreRefused) {
  EXPECT_NE(declare_kernel("qkv", 10).error().message.find("built in"), std::string::npos);
  EXPECT_EQ(find_kernel("qkv")->bytes_to_move(), 31507460u);
  for (const char* bad : {"", "RmsNorm", "9norm", "rms-norm", "a/b"})
    EXPECT_FALSE(declare_kernel(bad, 10)) << bad;
  EXPECT_FALSE(declare_kernel("zero_bytes", 0));
  EXPECT_EQ(find_kernel("zero_bytes"), nullptr);
}

}  // namespace
}  // namespace headway
