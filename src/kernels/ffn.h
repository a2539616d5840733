#pragma once
#include "kernels/contract.h"
#include "kernels/numerics.h"

namespace headway {

// The ffn kernel's scalar arguments, as its "scalars" region holds them (written by generate).
struct FfnScalars {
  float gate_global_scale;
  float up_global_scale;
  float down_global_scale;
  bf16 layer_scalar;
};
FfnScalars read_ffn_scalars(const SharedBuffers& buffers);

// The Gemma-4 `ffn` decode kernel (docs/KERNELS.md has its math and rounding points).
class FfnKernel final : public KernelContract {
 public:
  std::string_view name() const override { return "ffn"; }
  std::vector<RegionSpec> regions() const override;
  Tolerance tolerance() const override;
  void generate(uint64_t seed, SharedBuffers& buffers) const override;
  std::vector<ExpectedOutput> reference(const SharedBuffers& buffers) const override;
  WeightFormat weight_format() const override { return WeightFormat::kNvfp4; }
  uint64_t quantized_weight_bytes() const override;
};

}  // namespace headway
