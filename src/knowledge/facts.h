#pragma once
// Chip facts: numbers measured on the target by microbenchmarks, each with its unit, spread and
// the method that measured it, kept per toolchain in the workspace table `facts` (schema v2).
// A fact is identified by (name, toolchain); storing it again replaces the earlier reading.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/workspace.h"
#include "targets/cpu/compiler.h"

namespace headway::knowledge {

struct Fact {
  std::string name;               // e.g. "read_bandwidth", "read_bandwidth.threads_2"
  std::string toolchain;          // the toolchain id it was measured under
  double value = 0.0;
  std::string unit;               // "GB/s", "ns", "%"
  std::optional<double> spread;   // the readings' coefficient of variation (%), when known
  std::string method;             // how it was measured, one line
  std::string measured_at;        // set by the store when empty
};

// Inserts or replaces the fact (name, toolchain). Requires a non-empty name and toolchain
// (std::invalid_argument otherwise).
void store_fact(store::Workspace& ws, const Fact& fact);
// Every stored fact, by toolchain then name; only the given toolchain's when set.
std::vector<Fact> list_facts(store::Workspace& ws,
                             std::optional<std::string_view> toolchain = std::nullopt);
std::optional<Fact> find_fact(store::Workspace& ws, std::string_view name,
                              std::string_view toolchain);

// The fact names the cpu target measures.
inline constexpr const char* kReadBandwidth = "read_bandwidth";        // best over thread counts
inline constexpr const char* kDecodeF8 = "decode_ceiling.f8";
inline constexpr const char* kDecodeNvfp4 = "decode_ceiling.nvfp4";
inline constexpr const char* kTimerOverhead = "timer_overhead";
inline constexpr const char* kNoiseFloor = "noise_floor_cv";
// Cache sizes (KiB) and load-to-use latencies (ns) from the pointer-chase sweep
// (targets/cpu/cache_latency.h): the n-th level the curve shows is "cache.l1d", "cache.l2",
// "cache.l3", "cache.l4"...; one fact per level found, so a host may have fewer than the OS reports.
inline constexpr const char* kCacheL1d = "cache.l1d";
inline constexpr const char* kCacheL2 = "cache.l2";
inline constexpr const char* kCacheL3 = "cache.l3";
inline constexpr const char* kLatencyL1d = "latency.l1d";
inline constexpr const char* kLatencyL2 = "latency.l2";
inline constexpr const char* kLatencyL3 = "latency.l3";
inline constexpr const char* kLatencyDram = "latency.dram";  // at the largest swept size
// Single-precision FMA throughput (GFLOP/s, best over thread counts) and latency (ns).
inline constexpr const char* kFmaThroughput = "fma_throughput";
inline constexpr const char* kFmaLatency = "fma_latency";
// "read_bandwidth.threads_<n>".
std::string read_bandwidth_at(int threads);
// "fma_throughput.threads_<n>".
std::string fma_throughput_at(int threads);
// "cache.l1d" for level 1, "cache.l<n>" above; "latency.l1d", "latency.l<n>".
std::string cache_size_name(int level);
std::string cache_latency_name(int level);

struct CpuMeasureOptions {
  int max_threads = 0;    // <= 0: every online core
  int readings = 11;      // timed readings per thread count and benchmark
  int noise_repeats = 5;  // whole bandwidth measurements for the run-to-run noise floor
};

// Runs the cpu microbenchmarks (read bandwidth per thread count and best, decode ceiling f8 and
// NVFP4, cache sizes and latencies from a pointer-chase sweep, FMA throughput per thread count
// and best, FMA latency, steady_clock timer overhead, run-to-run noise floor of the best read
// bandwidth) and returns them as facts of `toolchain`, unstored. Takes seconds.
std::vector<Fact> measure_cpu_facts(std::string_view toolchain, const CpuMeasureOptions& options = {});
// measure_cpu_facts, then stores them all in one transaction.
std::vector<Fact> measure_and_store_cpu_facts(store::Workspace& ws, std::string_view toolchain,
                                              const CpuMeasureOptions& options = {});

// The workspace's current cpu toolchain: the compiler in meta `cpu.toolchain` (set by
// `headway migrate`) with the default flags, else the default Toolchain.
cpu::Toolchain current_cpu_toolchain(store::Workspace& ws);
// The id facts and rules of the current toolchain are keyed on: identify(current)'s id, or
// "unidentified:<cxx>" when the compiler cannot be run.
std::string current_cpu_toolchain_id(store::Workspace& ws);

}  // namespace headway::knowledge
