#include "targets/floors.h"

#include "targets/fact_names.h"

namespace headway::targets {

KernelFloors floors_from_rates(const KernelContract& kernel,
                               const std::map<std::string, double>& facts) {
  const double bandwidth = facts.at(kReadBandwidth);
  KernelFloors f;
  f.memory_ms = static_cast<double>(kernel.bytes_to_move()) / (bandwidth * 1e9) * 1e3;
  if (kernel.weight_format() == KernelContract::WeightFormat::kNone) return f;
  const double rate = facts.at(
      kernel.weight_format() == KernelContract::WeightFormat::kNvfp4 ? kDecodeNvfp4 : kDecodeF8);
  f.instruction_ms = static_cast<double>(kernel.quantized_weight_bytes()) / (rate * 1e9) * 1e3;
  return f;
}

}  // namespace headway::targets
