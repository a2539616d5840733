#pragma once
// The names under which targets report chip facts (targets/target.h, ChipFact::name), so that
// knowledge, the loop and reports find the same fact on every target.
#include <string>
#include <string_view>

namespace headway::targets {

// Names of chip facts. A target measures the ones its hardware has; the floors need
// read_bandwidth (and the decode ceilings where a target decodes quantized weights).
inline constexpr const char* kReadBandwidth = "read_bandwidth";  // best over thread counts
inline constexpr const char* kDecodeF8 = "decode_ceiling.f8";
inline constexpr const char* kDecodeNvfp4 = "decode_ceiling.nvfp4";
inline constexpr const char* kTimerOverhead = "timer_overhead";
inline constexpr const char* kNoiseFloor = "noise_floor_cv";
// ns per load into a timed call's inputs when their turn comes (how the target keeps them cold,
// and the evidence that it does, in the fact's method).
inline constexpr const char* kColdInputLatency = "timing.cold_input_latency";
// What a reading's guard costs on the chip (cpu target, targets/cpu/guard_facts.h): flushing
// lines from the caches with each instruction the chip has (GB/s), the least a process costs
// (fork to waitpid, ms), and stopping and resuming one (ms).
inline constexpr const char* kGuardFlushClflush = "guard.flush.clflush";
inline constexpr const char* kGuardFlushClflushopt = "guard.flush.clflushopt";
inline constexpr const char* kGuardForkWait = "guard.fork_wait";
inline constexpr const char* kGuardStopResume = "guard.stop_resume";
// Cache sizes (KiB) and load-to-use latencies (ns)
// (a pointer-chase sweep): the n-th level the curve shows is "cache.l1d", "cache.l2",
// "cache.l3", "cache.l4"...; one fact per level found, so a host may have fewer than the OS
// reports.
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
// An FMA's time with an f32 subnormal multiplicand over its time with normal inputs (targets/cpu/
// subnormal_fma.h): about 1 where the FPU handles subnormals in hardware.
inline constexpr const char* kFmaSubnormalRatio = "fma.subnormal_ratio";
// Instruction-set extensions, one fact per extension named "isa.<extension>" (e.g.
// "isa.avx512bw"): 1 when the chip reports it and the toolchain builds candidates with it, else 0.
inline constexpr const char* kIsaPrefix = "isa.";
std::string isa_fact_name(std::string_view extension);
// "read_bandwidth.threads_<n>".
std::string read_bandwidth_at(int threads);
// "fma_throughput.threads_<n>".
std::string fma_throughput_at(int threads);
// "cache.l1d" for level 1, "cache.l<n>" above; "latency.l1d", "latency.l<n>".
std::string cache_size_name(int level);
std::string cache_latency_name(int level);

}  // namespace headway::targets
