#pragma once
// Chip facts: numbers measured on the target by microbenchmarks, each with its unit, spread and
// the method that measured it, kept per toolchain in the workspace table `facts` (schema v2).
// A fact is identified by (name, toolchain); storing it again replaces the earlier reading.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "knowledge/workspace_target.h"
#include "store/workspace.h"
#include "targets/fact_names.h"
#include "targets/target.h"

namespace headway::knowledge {

struct Fact {
  std::string name;       // e.g. "read_bandwidth", "read_bandwidth.threads_2"
  std::string toolchain;  // the toolchain id it was measured under
  double value = 0.0;
  std::string unit;              // "GB/s", "ns", "%"
  std::optional<double> spread;  // the readings' coefficient of variation (%), when known
  std::string method;            // how it was measured, one line
  std::string measured_at;       // set by the store when empty
};

// Inserts or replaces the fact (name, toolchain). Requires a non-empty name and toolchain
// (std::invalid_argument otherwise).
void store_fact(store::Workspace& ws, const Fact& fact);
// Every stored fact, by toolchain then name; only the given toolchain's when set.
std::vector<Fact> list_facts(store::Workspace& ws,
                             std::optional<std::string_view> toolchain = std::nullopt);
std::optional<Fact> find_fact(store::Workspace& ws, std::string_view name,
                              std::string_view toolchain);

// The fact names (targets/fact_names.h).
using targets::cache_latency_name;
using targets::cache_size_name;
using targets::fma_throughput_at;
using targets::kCacheL1d;
using targets::kCacheL2;
using targets::kCacheL3;
using targets::kColdInputLatency;
using targets::kDecodeF8;
using targets::kDecodeNvfp4;
using targets::kFmaLatency;
using targets::kFmaThroughput;
using targets::kLatencyDram;
using targets::kLatencyL1d;
using targets::kLatencyL2;
using targets::kLatencyL3;
using targets::kNoiseFloor;
using targets::kReadBandwidth;
using targets::kTimerOverhead;
using targets::read_bandwidth_at;

// Runs the target's microbenchmarks (Target::measure_facts; seconds on real hardware) and stores
// every fact under `toolchain` in one transaction; returns the toolchain's facts.
std::vector<Fact> measure_and_store_facts(store::Workspace& ws, targets::Target& target,
                                          std::string_view toolchain,
                                          const targets::FactOptions& options = {});

}  // namespace headway::knowledge
