#pragma once
// The cpu target's chip facts: the host microbenchmarks, as facts (targets/fact_names.h).
#include <vector>

#include "targets/target.h"

namespace headway::cpu {

// Runs the cpu microbenchmarks (read bandwidth per thread count and best, decode ceiling f8 and
// NVFP4, cache sizes and latencies from a pointer-chase sweep, FMA throughput per thread count
// and best, FMA latency, steady_clock timer overhead, run-to-run noise floor of the best read
// bandwidth) and returns them as facts. Takes seconds. With options.only, just the read bandwidth
// and decode ceilings among them.
std::vector<targets::ChipFact> measure_chip_facts(const targets::FactOptions& options = {});

}  // namespace headway::cpu
