#include "targets/cpu/cpu_chip_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "common/cache_sizes.h"
#include "targets/cpu/bandwidth.h"
#include "targets/cpu/cache_latency.h"
#include "targets/cpu/cold_inputs.h"
#include "targets/cpu/decode_ceiling.h"
#include "targets/cpu/fma_throughput.h"
#include "targets/cpu/guard_facts.h"
#include "targets/cpu/subnormal_fma.h"
#include "targets/fact_names.h"

namespace headway::cpu {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Coefficient of variation in percent (sample standard deviation over mean).
double cv_percent(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  double mean = 0.0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0.0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  return mean > 0.0 ? 100.0 * sd / mean : 0.0;
}

// Median of `samples` back-to-back steady_clock::now() differences, in nanoseconds.
double timer_overhead_ns(int samples) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> d;
  d.reserve(static_cast<size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    const auto a = Clock::now();
    const auto b = Clock::now();
    d.push_back(std::chrono::duration<double, std::nano>(b - a).count());
  }
  return median(std::move(d));
}

// What a row's method adds to the measurement's: the reader that read fastest at its threads.
std::string row_note(const BandwidthAtThreads& row) { return ", read best by " + row.reader; }
std::string row_note(const FmaAtThreads&) { return ""; }

// One fact per thread count (name_at(threads)) and the best one (name), whose spread is the
// best thread count's: rows have .threads, .cv (a fraction) and the value member.
template <typename Row>
void add_per_thread_facts(std::vector<targets::ChipFact>& facts, const char* name,
                          std::string (*name_at)(int), const char* unit, const std::string& method,
                          const std::vector<Row>& rows, double Row::*value, double best,
                          int best_threads) {
  double best_cv = 0.0;
  std::string best_note;
  for (const Row& t : rows) {
    facts.push_back({name_at(t.threads), t.*value, unit, 100.0 * t.cv,
                     fmt::format("{}; {} threads{}", method, t.threads, row_note(t))});
    if (t.threads == best_threads) {
      best_cv = 100.0 * t.cv;
      best_note = row_note(t);
    }
  }
  facts.push_back(
      {name, best, unit, best_cv,
       fmt::format("{}; best median, at {} threads{}", method, best_threads, best_note)});
}

// The f8 and NVFP4 decode ceilings, best over thread counts.
void add_decode_facts(std::vector<targets::ChipFact>& facts, int max_threads, int readings) {
  const DecodeCeiling dc = measure_decode_ceiling(max_threads, readings);
  const std::string dc_method = fmt::format(
      "best median over 1..{} threads of {} readings, {} KiB cache-resident weights per thread "
      "({})",
      dc.threads, readings, dc.bytes_per_thread >> 10, dc.method);
  auto spread_at = [&](int threads, bool f8) -> std::optional<double> {
    for (const auto& t : dc.by_threads) {
      if (t.threads == threads) return cv_percent(f8 ? t.f8_readings : t.nvfp4_readings);
    }
    return std::nullopt;
  };
  facts.push_back({targets::kDecodeF8, dc.f8_gbps, "GB/s", spread_at(dc.f8_threads, true),
                   fmt::format("{}; f8e4m3 decode + FMA, best at {} threads with {}", dc_method,
                               dc.f8_threads, dc.f8_decoder)});
  facts.push_back({targets::kDecodeNvfp4, dc.nvfp4_gbps, "GB/s", spread_at(dc.nvfp4_threads, false),
                   fmt::format("{}; NVFP4 decode + FMA, best at {} threads with {}", dc_method,
                               dc.nvfp4_threads, dc.nvfp4_decoder)});
}

}  // namespace

std::vector<targets::ChipFact> measure_chip_facts(const targets::FactOptions& options) {
  std::vector<targets::ChipFact> facts;
  const int readings = std::max(2, options.readings);
  BandwidthProfile bw;
  if (options.wants(targets::kReadBandwidth)) {
    bw = measure_read_bandwidth(options.max_threads, readings);
    const std::string bw_method = fmt::format(
        "median of {} streaming reads of a {} MiB buffer ({}), one contiguous share per thread",
        readings, bw.buffer_bytes >> 20, bw.method);
    add_per_thread_facts(facts, targets::kReadBandwidth, targets::read_bandwidth_at, "GB/s",
                         bw_method, bw.by_threads, &BandwidthAtThreads::median_gbps, bw.best_gbps,
                         bw.best_threads);
  }
  if (options.wants(targets::kDecodeF8) || options.wants(targets::kDecodeNvfp4))
    add_decode_facts(facts, options.max_threads, readings);
  if (!options.only.empty()) return facts;  // the rest are measured only when every fact is

  const CacheLatencySweep sweep = measure_cache_latency();
  const OsCacheSizes os = os_cache_sizes();
  const uint64_t os_sizes[] = {os.l1d, os.l2, os.l3};
  for (size_t i = 0; i < sweep.levels.size(); ++i) {
    const int level = static_cast<int>(i) + 1;
    const CacheLevel& l = sweep.levels[i];
    const std::string reported =
        i < 3 && os_sizes[i] ? fmt::format("OS reports {} KiB ({})", os_sizes[i] >> 10, os.source)
                             : std::string("OS reports none");
    facts.push_back({targets::cache_size_name(level), static_cast<double>(l.bytes >> 10), "KiB",
                     std::nullopt,
                     fmt::format("step {} of a {}: the largest size on its {:.2f} ns plateau; {}",
                                 level, sweep.method, l.ns, reported)});
    facts.push_back(
        {targets::cache_latency_name(level), l.ns, "ns", std::nullopt,
         fmt::format("median of the plateau up to {} KiB of a {}", l.bytes >> 10, sweep.method)});
  }
  facts.push_back({targets::kLatencyDram, sweep.memory_ns, "ns", std::nullopt,
                   fmt::format("at {} MiB of a {}", sweep.curve.back().bytes >> 20, sweep.method)});

  const ColdInputs cold = measure_cold_inputs(*builtin_kernel("attn_out"));
  facts.push_back(
      {targets::kColdInputLatency, cold.cold_ns, "ns", std::nullopt,
       fmt::format("{}; the DRAM latency fact: {:.1f} ns", cold.method, sweep.memory_ns)});

  const GuardFacts guard = measure_guard_facts(readings);
  const std::string used = fmt::format("; the gate flushes with {}", guard.flush_used);
  facts.push_back(
      {targets::kGuardFlushClflush, guard.clflush_gbps, "GB/s", std::nullopt, guard.method + used});
  if (guard.clflushopt_gbps > 0) {
    facts.push_back({targets::kGuardFlushClflushopt, guard.clflushopt_gbps, "GB/s", std::nullopt,
                     guard.method + used});
  }
  facts.push_back({targets::kGuardForkWait, guard.fork_wait_ms, "ms", std::nullopt, guard.method});
  facts.push_back(
      {targets::kGuardStopResume, guard.stop_resume_ms, "ms", std::nullopt, guard.method});

  const FmaThroughput fma = measure_fma_throughput(options.max_threads, readings);
  const std::string fma_method = fmt::format("median of {} readings; {}", readings, fma.method);
  add_per_thread_facts(facts, targets::kFmaThroughput, targets::fma_throughput_at, "GFLOP/s",
                       fma_method, fma.by_threads, &FmaAtThreads::gflops, fma.gflops,
                       fma.best_threads);
  facts.push_back(
      {targets::kFmaLatency, fma.latency_ns, "ns", 100.0 * fma.latency_cv,
       fmt::format("median of {} readings of one dependent chain of {}-lane FMAs ({}), one thread",
                   readings, fma.lanes, fma.isa)});

  const SubnormalFma subnormal = measure_subnormal_fma(readings);
  facts.push_back({targets::kFmaSubnormalRatio, subnormal.ratio, "x", cv_percent(subnormal.ratios),
                   fmt::format("{}: {:.2f} ns against {:.2f} ns an FMA", subnormal.method,
                               subnormal.subnormal_ns, subnormal.normal_ns)});

  constexpr int kTimerSamples = 100001;
  facts.push_back(
      {targets::kTimerOverhead, timer_overhead_ns(kTimerSamples), "ns", std::nullopt,
       fmt::format("median of {} back-to-back std::chrono::steady_clock::now() differences",
                   kTimerSamples)});

  const int repeats = std::max(2, options.noise_repeats);
  std::vector<double> best;
  best.push_back(bw.best_gbps);
  for (int i = 1; i < repeats; ++i) {
    best.push_back(measure_read_bandwidth(options.max_threads, readings).best_gbps);
  }
  facts.push_back({targets::kNoiseFloor, cv_percent(best), "%", std::nullopt,
                   fmt::format("coefficient of variation of {} repeated best-read-bandwidth "
                               "measurements (each a median of {} readings)",
                               repeats, readings)});
  return facts;
}

}  // namespace headway::cpu
