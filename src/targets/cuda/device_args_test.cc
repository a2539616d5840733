// The device argument structs: every pointer at its region's offset in the device block it lives
// in, every scalar from the host buffers.
#include "targets/cuda/device_args.h"

#include <gtest/gtest.h>

#include <cstring>

#include "headway/headway_kernel.h"
#include "kernels/ffn_scalars.h"
#include "kernels/spec_kernel.h"
#include "store/test_temp_dir.h"

namespace headway::cuda {
namespace {

constexpr uint64_t kInputs = 0x7f0000000000ull;
constexpr uint64_t kWritable = 0x7f8000000000ull;

uint64_t expected_address(const SharedBuffers& b, std::string_view region) {
  const size_t i = b.index_of(region);
  return (b.layout().in_inputs[i] ? kInputs : kWritable) + b.layout().offset[i];
}

template <typename Args>
Args args_of(const KernelContract& kernel, const SharedBuffers& host) {
  const auto bytes = device_args(kernel, host, kInputs, kWritable);
  EXPECT_EQ(bytes.size(), sizeof(Args));
  Args a{};
  std::memcpy(&a, bytes.data(), sizeof a);
  return a;
}

uint64_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(DeviceArgs, QkvPointsIntoBothBlocksAndCarriesTheSlot) {
  const KernelContract& k = *builtin_kernel("qkv");
  SharedBuffers host(k.regions());
  k.generate(5, host);
  const auto a = args_of<hw_qkv_args>(k, host);
  EXPECT_EQ(address(a.x), expected_address(host, "x"));
  EXPECT_EQ(address(a.v_weight), expected_address(host, "v_weight"));
  EXPECT_EQ(address(a.sin), expected_address(host, "sin"));
  EXPECT_EQ(address(a.q_out), expected_address(host, "q_out"));
  EXPECT_EQ(address(a.v_cache), expected_address(host, "v_cache"));
  EXPECT_GE(address(a.q_out), kWritable);
  EXPECT_LT(address(a.v_weight), kWritable);
  EXPECT_EQ(a.kv_slot, host.as<int32_t>("kv_slot")[0]);
}

TEST(DeviceArgs, AttnOutAndFfnCarryTheirRegionsAndScalars) {
  const KernelContract& attn = *builtin_kernel("attn_out");
  SharedBuffers ha(attn.regions());
  const auto a = args_of<hw_attn_out_args>(attn, ha);
  EXPECT_EQ(address(a.o_weight), expected_address(ha, "o_weight"));
  EXPECT_EQ(address(a.residual), expected_address(ha, "residual"));

  const KernelContract& ffn = *builtin_kernel("ffn");
  SharedBuffers hf(ffn.regions());
  ffn.generate(9, hf);
  const auto f = args_of<hw_ffn_args>(ffn, hf);
  const FfnScalars sc = read_ffn_scalars(hf);
  EXPECT_EQ(address(f.down_block_scale), expected_address(hf, "down_block_scale"));
  EXPECT_EQ(address(f.residual), expected_address(hf, "residual"));
  EXPECT_EQ(f.gate_global_scale, sc.gate_global_scale);
  EXPECT_EQ(f.down_global_scale, sc.down_global_scale);
  EXPECT_EQ(f.layer_scalar, sc.layer_scalar);
  EXPECT_NE(f.gate_global_scale, 0.0f);
}

// A spec kernel's struct is the generic ABI's: one pointer per region, the dims last.
TEST(DeviceArgs, ASpecKernelGetsEveryRegionsAddressInOrder) {
  store::TestTempDir cache;
  auto kernel = load_spec_kernel(std::filesystem::path(HEADWAY_SOURCE_DIR) /
                                     "kernels/specs/gemma4/attn_decode/attn_decode.toml",
                                 cache.path());
  ASSERT_TRUE(kernel) << kernel.error().message;
  SharedBuffers host(kernel.value()->regions());
  const auto bytes = device_args(*kernel.value(), host, kInputs, kWritable);
  const auto& regions = host.specs();
  ASSERT_EQ(bytes.size(), regions.size() * sizeof(uint64_t));
  ASSERT_EQ(regions.back().name, "dims");
  for (size_t r = 0; r < regions.size(); ++r) {
    uint64_t a = 0;
    std::memcpy(&a, bytes.data() + r * sizeof a, sizeof a);
    EXPECT_EQ(a, expected_address(host, regions[r].name)) << regions[r].name;
  }
  EXPECT_GE(expected_address(host, "attn"), kWritable);
  EXPECT_LT(expected_address(host, "valid"), kWritable);
}

}  // namespace
}  // namespace headway::cuda
