#include "kernels/ffn.h"

#include <cmath>
#include <cstring>

#include "common/rng.h"
#include "headway/headway_kernel.h"
#include "kernels/generate.h"
#include "kernels/reference_math.h"

namespace headway {

namespace {
constexpr size_t kGateCodes = size_t{HW_L} * HW_H / 2;
constexpr size_t kGateBlocks = size_t{HW_L} * HW_H / HW_FP4_BLOCK;

}  // namespace

FfnScalars read_ffn_scalars(const SharedBuffers& b) {
  FfnScalars s;
  std::memcpy(&s, b.bytes(b.index_of("scalars")).data(), sizeof s);
  return s;
}

std::vector<RegionSpec> FfnKernel::regions() const {
  using R = RegionRole;
  return {
      {"residual", HW_H * kBf16Bytes, R::kInOut},
      {"pre_ff_rms_weight", HW_H * kBf16Bytes, R::kInput},
      {"gate_weight", kGateCodes, R::kInput},
      {"gate_block_scale", kGateBlocks, R::kInput},
      {"up_weight", kGateCodes, R::kInput},
      {"up_block_scale", kGateBlocks, R::kInput},
      {"down_weight", kGateCodes, R::kInput},
      {"down_block_scale", kGateBlocks, R::kInput},
      {"post_ff_rms_weight", HW_H * kBf16Bytes, R::kInput},
      {"scalars", 3 * sizeof(float) + kBf16Bytes, R::kInput},
  };
}

Tolerance FfnKernel::tolerance() const { return {0.01, 1e-2}; }

void FfnKernel::generate(uint64_t seed, SharedBuffers& b) const {
  auto s = [seed](uint64_t stream) { return mix_seed(seed, stream); };
  fill_bf16_normal(s(1), 1.0, b.as<bf16>("residual"));
  fill_bf16_uniform(s(2), 0.5, 1.5, b.as<bf16>("pre_ff_rms_weight"));
  fill_e2m1_pairs(s(3), b.as<uint8_t>("gate_weight"));
  fill_f8_uniform(s(4), 0.5, 1.5, b.as<uint8_t>("gate_block_scale"));
  fill_e2m1_pairs(s(5), b.as<uint8_t>("up_weight"));
  fill_f8_uniform(s(6), 0.5, 1.5, b.as<uint8_t>("up_block_scale"));
  fill_e2m1_pairs(s(7), b.as<uint8_t>("down_weight"));
  fill_f8_uniform(s(8), 0.5, 1.5, b.as<uint8_t>("down_block_scale"));
  fill_bf16_uniform(s(9), 0.5, 1.5, b.as<bf16>("post_ff_rms_weight"));
  // Global scales bring gate, up and down to O(1): block scales and x have RMS ~1.04, and
  // gelu(g) * u with g, u ~ N(0,1) has RMS ~0.65.
  Rng rng(s(10));
  const double row_rms = e2m1_rms() * 1.04;
  FfnScalars sc{};
  sc.gate_global_scale =
      static_cast<float>(rng.uniform(0.8, 1.2) / (row_rms * std::sqrt(double{HW_H}) * 1.04));
  sc.up_global_scale =
      static_cast<float>(rng.uniform(0.8, 1.2) / (row_rms * std::sqrt(double{HW_H}) * 1.04));
  sc.down_global_scale =
      static_cast<float>(rng.uniform(0.8, 1.2) / (row_rms * std::sqrt(double{HW_L}) * 0.65));
  sc.layer_scalar = double_to_bf16(rng.uniform(0.5, 1.5));
  std::memcpy(b.bytes(b.index_of("scalars")).data(), &sc, sizeof sc);
}

std::vector<ExpectedOutput> FfnKernel::reference(const SharedBuffers& b) const {
  const FfnScalars sc = read_ffn_scalars(b);
  const auto residual = bf16_to_doubles(b.as<bf16>("residual"));
  std::vector<double> x(HW_H);
  rms_norm(residual, bf16_to_doubles(b.as<bf16>("pre_ff_rms_weight")), HW_EPS, x);
  for (auto& v : x) v = round_bf16(v);

  const auto gw = b.as<uint8_t>("gate_weight"), gs = b.as<uint8_t>("gate_block_scale");
  const auto uw = b.as<uint8_t>("up_weight"), us = b.as<uint8_t>("up_block_scale");
  std::vector<double> h(HW_L);
  for (size_t r = 0; r < HW_L; ++r) {
    const size_t code_off = r * HW_H / 2, block_off = r * HW_H / HW_FP4_BLOCK;
    const double g =
        dot_e2m1_row(gw.data() + code_off, gs.data() + block_off, x) * sc.gate_global_scale;
    const double u =
        dot_e2m1_row(uw.data() + code_off, us.data() + block_off, x) * sc.up_global_scale;
    h[r] = round_bf16(gelu_tanh(g) * u);
  }
  const auto dw = b.as<uint8_t>("down_weight"), ds = b.as<uint8_t>("down_block_scale");
  std::vector<double> d(HW_H);
  for (size_t r = 0; r < HW_H; ++r) {
    d[r] = dot_e2m1_row(dw.data() + r * HW_L / 2, ds.data() + r * HW_L / HW_FP4_BLOCK, h) *
           sc.down_global_scale;
  }
  std::vector<double> normed(HW_H);
  rms_norm(d, bf16_to_doubles(b.as<bf16>("post_ff_rms_weight")), HW_EPS, normed);
  const double layer_scalar = bf16_to_float(sc.layer_scalar);
  std::vector<double> out(HW_H);
  for (size_t i = 0; i < HW_H; ++i) out[i] = (residual[i] + normed[i]) * layer_scalar;
  return {{b.index_of("residual"), 0, std::move(out)}};
}

uint64_t FfnKernel::quantized_weight_bytes() const {
  return 3 * (uint64_t{HW_L} * HW_H / 2 + uint64_t{HW_L} * HW_H / HW_FP4_BLOCK);
}

}  // namespace headway
