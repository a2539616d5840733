#pragma once
// Kernel floors from rates: the time to move a kernel's bytes at the read bandwidth, and to
// decode its quantized weights at the decode ceiling of its weight format.
#include <map>
#include <string>

#include "kernels/contract.h"
#include "targets/target.h"

namespace headway::targets {

// Requires kReadBandwidth, kDecodeF8 and kDecodeNvfp4 (targets/fact_names.h) in `facts`, in GB/s
// (std::out_of_range otherwise).
KernelFloors floors_from_rates(const KernelContract& kernel, const std::map<std::string, double>& facts);

}  // namespace headway::targets
