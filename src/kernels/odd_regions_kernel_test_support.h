#pragma once
// A kernel contract for tests of input sets: regions of every kind the patch treats apart, none
// a whole number of 4-byte words or of lines (a large weight, a small input, a large and a small
// in/out region, an output), drawn from a seed; no reference.
#include <cstddef>
#include <string_view>
#include <vector>

#include "common/rng.h"
#include "kernels/contract.h"

namespace headway {

class OddRegionsKernel : public KernelContract {
 public:
  std::string_view name() const override { return "odd_regions"; }
  std::vector<RegionSpec> regions() const override {
    return {{"w", 300'002, RegionRole::kInput, 0, ElementType::kInt8},
            {"x", 1'001, RegionRole::kInput, 0, ElementType::kInt8},
            {"state", 70'006, RegionRole::kInOut, 0, ElementType::kInt8},
            {"small_state", 18, RegionRole::kInOut, 0, ElementType::kInt8},
            {"y", 6, RegionRole::kOutput, 0, ElementType::kBf16}};
  }
  Tolerance tolerance() const override { return {}; }
  void generate(uint64_t seed, SharedBuffers& buffers) const override {
    Rng rng(seed);
    for (size_t r = 0; r + 1 < buffers.specs().size(); ++r) {
      for (std::byte& b : buffers.bytes(r)) b = static_cast<std::byte>(rng.next_u64());
    }
  }
  std::vector<ExpectedOutput> reference(const SharedBuffers&) const override { return {}; }
  WeightFormat weight_format() const override { return WeightFormat::kNone; }
  uint64_t quantized_weight_bytes() const override { return 0; }
};

}  // namespace headway
