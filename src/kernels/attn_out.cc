#include "kernels/attn_out.h"

#include <cmath>

#include "common/rng.h"
#include "headway/headway_kernel.h"
#include "kernels/generate.h"
#include "kernels/reference_math.h"

namespace headway {

std::vector<RegionSpec> AttnOutKernel::regions() const {
  using R = RegionRole;
  return {
      {"attn", HW_QS * kBf16Bytes, R::kInput},
      {"o_weight", size_t{HW_H} * HW_QS, R::kInput},
      {"o_scale", HW_H * kBf16Bytes, R::kInput},
      {"post_attn_rms_weight", HW_H * kBf16Bytes, R::kInput},
      {"residual", HW_H * kBf16Bytes, R::kInOut},
  };
}

Tolerance AttnOutKernel::tolerance() const { return {0.05, 1e-2}; }

void AttnOutKernel::generate(uint64_t seed, SharedBuffers& b) const {
  auto s = [seed](uint64_t stream) { return mix_seed(seed, stream); };
  fill_bf16_normal(s(1), 1.0, b.as<bf16>("attn"));
  const double w_rms = fill_f8_normal(s(2), b.as<uint8_t>("o_weight"));
  const double norm = 1.0 / (w_rms * std::sqrt(double{HW_QS}));
  fill_bf16_uniform(s(3), 0.5 * norm, 1.5 * norm, b.as<bf16>("o_scale"));
  fill_bf16_uniform(s(4), 0.5, 1.5, b.as<bf16>("post_attn_rms_weight"));
  fill_bf16_normal(s(5), 1.0, b.as<bf16>("residual"));
}

std::vector<ExpectedOutput> AttnOutKernel::reference(const SharedBuffers& b) const {
  const auto attn = bf16_to_doubles(b.as<bf16>("attn"));
  const auto w = b.as<uint8_t>("o_weight");
  const auto scale = bf16_to_doubles(b.as<bf16>("o_scale"));
  std::vector<double> y(HW_H);
  for (size_t r = 0; r < HW_H; ++r)
    y[r] = round_bf16(dot_f8_row(w.data() + r * HW_QS, attn) * scale[r]);
  std::vector<double> normed(HW_H);
  rms_norm(y, bf16_to_doubles(b.as<bf16>("post_attn_rms_weight")), HW_EPS, normed);
  auto out = bf16_to_doubles(b.as<bf16>("residual"));
  for (size_t i = 0; i < HW_H; ++i) out[i] += normed[i];
  return {{b.index_of("residual"), 0, std::move(out)}};
}

uint64_t AttnOutKernel::quantized_weight_bytes() const { return uint64_t{HW_H} * HW_QS; }

}  // namespace headway
