#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "common/hash.h"
#include "kernels/contract.h"
#include "kernels/ffn_scalars.h"
#include "kernels/generate.h"
#include "kernels/spec_kernel.h"

namespace headway {
namespace {

// What seed 7 makes of qkv, attn_out and ffn: a hash (stable_hash_bytes) of every input, in/out
// and cache byte in region order, and the sum and sum of squares of every expected value. A
// recorded seed means these inputs, so a change here is a change of what every stored seed means
// (CHANGELOG). The specs were first checked byte for byte against the hand-written contracts they
// replaced, at seeds 1, 7, 42 and 0x1234567; the values below are those of bf16 normals drawn
// from quantile bins (kernels/generate.h).
struct Golden {
  const char* kernel;
  uint64_t input_hash;
  double sum;
  double sum_of_squares;
};
constexpr Golden kGolden[] = {
    {"qkv", 0x31374c931b90ea91ull, 60.113694030208471, 8775.8311570981477},
    {"attn_out", 0x3c53ef533b0ea3d2ull, 89.425205973507076, 8029.1053843421096},
    {"ffn", 0x5a4d48ca7862014eull, 21.492130610152035, 4520.1592464250589},
};

TEST(BuiltinSpecs, TheSameSeedGivesTheSameInputsAndReference) {
  for (const Golden& g : kGolden) {
    const KernelContract* k = builtin_kernel(g.kernel);
    ASSERT_TRUE(k && k->spec()) << g.kernel;
    SharedBuffers b(k->regions());
    k->generate(7, b);
    std::vector<std::byte> inputs;
    for (size_t r = 0; r < k->regions().size(); ++r) {
      const RegionSpec& region = k->regions()[r];
      if (region.role == RegionRole::kOutput || region.name == "dims") continue;
      const auto bytes = b.bytes(r);
      inputs.insert(inputs.end(), bytes.begin(), bytes.end());
    }
    EXPECT_EQ(stable_hash_bytes(inputs.data(), inputs.size()), g.input_hash) << g.kernel;
    double sum = 0, sum_of_squares = 0;
    for (const auto& e : k->reference(b)) {
      for (double v : e.values) sum += v, sum_of_squares += v * v;
    }
    EXPECT_NEAR(sum, g.sum, 1e-9 * std::fabs(g.sum_of_squares)) << g.kernel;
    EXPECT_NEAR(sum_of_squares, g.sum_of_squares, 1e-9 * g.sum_of_squares) << g.kernel;
  }
}

TEST(BuiltinSpecs, TheContractsAreTheEmbeddedSpecs) {
  EXPECT_EQ(builtin_kernel_names(), (std::vector<std::string>{"qkv", "attn_out", "ffn"}));
  for (const std::string& name : builtin_kernel_names()) {
    const KernelContract* k = builtin_kernel(name);
    ASSERT_TRUE(k->spec());
    EXPECT_EQ(k->spec()->origin, SpecOrigin::kEmbedded);
    EXPECT_EQ(k->spec()->file.generic_string(), "kernels/specs/gemma4/" + name + ".toml");
  }
  // The weights' formats and the bytes the floors and decode ceilings are measured against.
  EXPECT_EQ(builtin_kernel("qkv")->weight_format(), KernelContract::WeightFormat::kF8e4m3);
  EXPECT_EQ(builtin_kernel("qkv")->quantized_weight_bytes(), uint64_t{4096 + 2 * 2048} * 3840);
  EXPECT_EQ(builtin_kernel("ffn")->weight_format(), KernelContract::WeightFormat::kNvfp4);
  EXPECT_EQ(builtin_kernel("ffn")->quantized_weight_bytes(),
            3 * (uint64_t{15360} * 3840 / 2 + uint64_t{15360} * 3840 / 16));
  // qkv moves its inputs once and writes q and one row of each cache.
  const uint64_t qkv_inputs = 2 * 3840 * 2 + uint64_t{4096 + 2 * 2048} * 3840 +
                              (4096 + 2 * 2048) * 2 + 2 * 256 * 2 + 2 * 256 * 2 + 4;
  EXPECT_EQ(builtin_kernel("qkv")->bytes_to_move(), qkv_inputs + 4096 * 2 + 2 * 2048 * 2);
}

TEST(BuiltinSpecs, TheFfnScalarsReachTheirAbiInOrder) {
  const KernelContract* ffn = builtin_kernel("ffn");
  SharedBuffers b(ffn->regions());
  ffn->generate(3, b);
  const FfnScalars s = read_ffn_scalars(b);
  // The generator's global scales bring a row of 3840 e2m1 codes times block scales (RMS about
  // 1.04) times x (about 1.04) to unit size, times a draw in [0.8, 1.2).
  const double row = e2m1_rms() * 1.04 * std::sqrt(3840.0) * 1.04;
  EXPECT_GE(s.gate_global_scale, 0.8 / row * (1 - 1e-6));
  EXPECT_LT(s.gate_global_scale, 1.2 / row);
  EXPECT_LT(s.down_global_scale, s.gate_global_scale);  // sqrt(L) rows and a 0.65 RMS
  EXPECT_NE(s.layer_scalar, 0);
  EXPECT_EQ(std::memcmp(&s.up_global_scale, b.bytes(b.index_of("up_global_scale")).data(), 4), 0);
}

}  // namespace
}  // namespace headway
