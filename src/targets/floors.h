#pragma once
// Kernel floors from rates: the time to move a kernel's bytes at the read bandwidth, and to
// decode its quantized weights at the decode ceiling of its weight format.
#include <map>
#include <string>

#include "kernels/contract.h"
#include "targets/target.h"

namespace headway::targets {

// Requires kReadBandwidth (targets/fact_names.h) in `facts`, in GB/s (std::out_of_range
// otherwise); the instruction floor of a quantized kernel comes from kDecodeF8 or kDecodeNvfp4,
// and is unknown (nullopt) where that rate is not given.
KernelFloors floors_from_rates(const KernelContract& kernel,
                               const std::map<std::string, double>& facts);

// A time below this share of its memory floor is not a result but a floor to fix: the floor's
// bandwidth was not the fastest way the chip reads, or was read in another spell than the time.
inline constexpr double kBelowFloorRatio = 0.97;
// ratio_to_floor < kBelowFloorRatio (false for a ratio that is not positive: no floor).
bool below_floor(double ratio_to_floor);
// "" where the ratio is not below_floor; else "0.90x: below its floor (at least 0.97x): a floor
// to fix, not a result".
std::string below_floor_note(double ratio_to_floor);

}  // namespace headway::targets
