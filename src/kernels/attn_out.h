#pragma once
#include "kernels/contract.h"

namespace headway {

// The Gemma-4 `attn_out` decode kernel (docs/KERNELS.md has its math and rounding points).
class AttnOutKernel final : public KernelContract {
 public:
  std::string_view name() const override { return "attn_out"; }
  std::vector<RegionSpec> regions() const override;
  Tolerance tolerance() const override;
  void generate(uint64_t seed, SharedBuffers& buffers) const override;
  std::vector<ExpectedOutput> reference(const SharedBuffers& buffers) const override;
  WeightFormat weight_format() const override { return WeightFormat::kF8e4m3; }
  uint64_t quantized_weight_bytes() const override;
};

}  // namespace headway
