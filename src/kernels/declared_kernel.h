#pragma once
// Kernels known only by a name and the bytes they must move: what a command target's manifest
// declares for a kernel headway has no contract of (`[kernels.rmsnorm] bytes = N`,
// docs/TARGETS.md). The toolchain's own check command is such a kernel's oracle, so headway never
// draws its inputs or computes its reference: its one region stands for the bytes, and generate
// and reference throw std::logic_error (the cpu and cuda targets, which call them, have no way to
// declare one).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "kernels/contract.h"

namespace headway {

class DeclaredKernel final : public KernelContract {
 public:
  DeclaredKernel(std::string name, uint64_t bytes) : name_(std::move(name)), bytes_(bytes) {}
  std::string_view name() const override { return name_; }
  std::vector<RegionSpec> regions() const override;
  Tolerance tolerance() const override { return {}; }
  void generate(uint64_t seed, SharedBuffers& buffers) const override;
  std::vector<ExpectedOutput> reference(const SharedBuffers& buffers) const override;
  WeightFormat weight_format() const override { return WeightFormat::kNone; }
  uint64_t quantized_weight_bytes() const override { return 0; }

 private:
  std::string name_;
  uint64_t bytes_;
};

// A declarable name: a lowercase letter, then lowercase letters, digits and '_' (it names files
// and rows). An error says why not.
Result<void> valid_kernel_name(std::string_view name);

}  // namespace headway
