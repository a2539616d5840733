#pragma once
// The chip facts the loop needs on the cpu target, measured once per workspace and toolchain and
// kept in its facts table (knowledge/facts.h, keyed on the workspace's current cpu toolchain id):
// the streaming read bandwidth (the memory floor) and the decode ceiling (the instruction floor).
#include <optional>

#include "kernels/contract.h"
#include "store/workspace.h"

namespace headway::loop {

struct CpuFacts {
  double read_bandwidth_gbps = 0.0;
  double decode_f8_gbps = 0.0;     // cache-resident f8e4m3 decode-and-FMA rate, all threads
  double decode_nvfp4_gbps = 0.0;  // cache-resident NVFP4 decode-and-FMA rate, all threads

  double memory_floor_ms(const KernelContract& kernel) const;
  // The time to decode the kernel's quantized weights at the decode ceiling.
  double decode_floor_ms(const KernelContract& kernel) const;
};

// The facts stored in the workspace for its current toolchain, or nullopt when they were never
// measured (facts a schema v1 workspace kept in its meta are not read: they are measured again).
std::optional<CpuFacts> load_cpu_facts(store::Workspace& ws);
// The stored facts, measuring and storing every cpu fact first when missing (several seconds).
CpuFacts load_or_measure_cpu_facts(store::Workspace& ws);

}  // namespace headway::loop
