#include "kernels/declared_kernel.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "kernels/shared_buffers.h"

namespace headway {
namespace {

TEST(DeclaredKernel, MovesItsBytesAndDrawsAndJudgesNothing) {
  const DeclaredKernel k("declared_probe", 6000000);
  EXPECT_EQ(k.name(), "declared_probe");
  EXPECT_EQ(k.bytes_to_move(), 6000000u);
  EXPECT_EQ(k.weight_format(), KernelContract::WeightFormat::kNone);
  EXPECT_TRUE(k.build_reference());  // nothing to build
  // Its oracle is the toolchain's: headway draws nothing and computes no reference for it.
  SharedBuffers buffers({{"x", 16, RegionRole::kInput}});
  EXPECT_THROW(k.generate(1, buffers), std::logic_error);
  EXPECT_THROW(k.reference(buffers), std::logic_error);
}

TEST(DeclaredKernel, ANameIsALowercaseLetterThenLettersDigitsAndUnderscores) {
  EXPECT_TRUE(valid_kernel_name("rms_norm2"));
  for (const char* bad : {"", "RmsNorm", "9norm", "rms-norm", "a/b"})
    EXPECT_FALSE(valid_kernel_name(bad)) << bad;
  EXPECT_FALSE(valid_kernel_name(std::string(65, 'a')));
}

}  // namespace
}  // namespace headway
