#pragma once
// Chip facts: numbers measured on the target by microbenchmarks, each with its unit, spread and
// the method that measured it, kept per toolchain and device model in the workspace table `facts`
// (schema v2; the model since v15). A fact is identified by (name, toolchain, device_model);
// storing it again replaces the earlier reading. A pool of mixed device models keeps one set per
// model; device_model '' is a fact whose model was not recorded (measured before v15, or by a
// target that names no model, or written by an agent): the workspace's one device.
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
  // Target::device_model of the device it was measured on; empty: unknown.
  std::string device_model = "";
};

// Inserts or replaces the fact (name, toolchain, device_model). Requires a non-empty name and
// toolchain (std::invalid_argument otherwise).
void store_fact(store::Workspace& ws, const Fact& fact);
// Every stored fact, by toolchain, device model, then name; only the given toolchain's when set.
std::vector<Fact> list_facts(store::Workspace& ws,
                             std::optional<std::string_view> toolchain = std::nullopt);
// The fact `name` of `toolchain` measured on `model`, else the one whose model is unknown ('');
// without `model`, the one of any model (the unknown model's first, then by model).
std::optional<Fact> find_fact(store::Workspace& ws, std::string_view name,
                              std::string_view toolchain,
                              std::optional<std::string_view> model = std::nullopt);
// "'a', 'b' and 'c'" ('' as "(unnamed)"), or "none": device models for a message.
std::string models_text(const std::vector<std::string>& models);
// The distinct device models `toolchain`'s facts were measured on, sorted ('' included).
std::vector<std::string> fact_models(store::Workspace& ws, std::string_view toolchain);

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

// Runs the target's microbenchmarks (Target::measure_facts; seconds on real hardware) once per
// device model: options.model's alone when set, else each of Target::device_models() (on a pool
// of mixed models, one facts job pinned to each, at once). Stores every fact under `toolchain`
// and the model it was measured on, in one transaction; returns the toolchain's facts (of every
// model). Throws std::invalid_argument naming the models there are when options.model is not
// one of them.
std::vector<Fact> measure_and_store_facts(store::Workspace& ws, targets::Target& target,
                                          std::string_view toolchain,
                                          const targets::FactOptions& options = {});

}  // namespace headway::knowledge
