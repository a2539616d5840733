#pragma once
#include "kernels/contract.h"

namespace headway {

// The Gemma-4 `ffn` decode kernel (docs/KERNELS.md has its math and rounding points).
class FfnKernel final : public KernelContract {
 public:
  std::string_view name() const override { return "ffn"; }
  std::string_view entry_symbol() const override { return "hw_ffn"; }
  std::vector<RegionSpec> regions() const override;
  Tolerance tolerance() const override;
  void generate(uint64_t seed, SharedBuffers& buffers) const override;
  std::vector<ExpectedOutput> reference(const SharedBuffers& buffers) const override;
  void invoke(void* entry, SharedBuffers& buffers) const override;
  WeightFormat weight_format() const override { return WeightFormat::kNvfp4; }
  uint64_t quantized_weight_bytes() const override;
  std::string_view baseline_path() const override { return "kernels/baselines/ffn.cc"; }
};

}  // namespace headway
