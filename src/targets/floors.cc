#include "targets/floors.h"

#include <fmt/format.h>

#include "targets/fact_names.h"

namespace headway::targets {

KernelFloors floors_from_rates(const KernelContract& kernel,
                               const std::map<std::string, double>& facts) {
  const double bandwidth = facts.at(kReadBandwidth);
  KernelFloors f;
  f.memory_ms = static_cast<double>(kernel.bytes_to_move()) / (bandwidth * 1e9) * 1e3;
  if (kernel.weight_format() == KernelContract::WeightFormat::kNone) return f;
  const auto given = facts.find(
      kernel.weight_format() == KernelContract::WeightFormat::kNvfp4 ? kDecodeNvfp4 : kDecodeF8);
  if (given == facts.end()) return f;
  const double rate = given->second;
  f.instruction_ms = static_cast<double>(kernel.quantized_weight_bytes()) / (rate * 1e9) * 1e3;
  return f;
}

bool below_floor(double ratio_to_floor) {
  return ratio_to_floor > 0.0 && ratio_to_floor < kBelowFloorRatio;
}

std::string below_floor_note(double ratio_to_floor) {
  if (!below_floor(ratio_to_floor)) return "";
  return fmt::format("{:.2f}x: below its floor (at least {:.2f}x): a floor to fix, not a result",
                     ratio_to_floor, kBelowFloorRatio);
}

}  // namespace headway::targets
