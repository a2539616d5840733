#include "knowledge/facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "store/transaction.h"
#include "targets/cpu/bandwidth.h"
#include "targets/cpu/cache_latency.h"
#include "targets/cpu/decode_ceiling.h"
#include "targets/cpu/fma_throughput.h"

namespace headway::knowledge {

namespace {

Fact read_row(const store::Statement& s) {
  Fact f;
  f.name = s.text(0);
  f.toolchain = s.text(1);
  f.value = s.real(2);
  f.unit = s.text(3);
  f.spread = s.optional_real(4);
  f.method = s.text(5);
  f.measured_at = s.text(6);
  return f;
}

constexpr const char* kColumns = "name, toolchain, value, unit, spread, method, measured_at";

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

// One fact per thread count (name_at(threads)) and the best one (name), whose spread is the
// best thread count's: rows have .threads, .cv (a fraction) and the value member.
template <typename Row>
void add_per_thread_facts(std::vector<Fact>& facts, const std::string& toolchain, const char* name,
                          std::string (*name_at)(int), const char* unit, const std::string& method,
                          const std::vector<Row>& rows, double Row::*value, double best, int best_threads) {
  double best_cv = 0.0;
  for (const Row& t : rows) {
    facts.push_back({name_at(t.threads), toolchain, t.*value, unit, 100.0 * t.cv,
                     fmt::format("{}; {} threads", method, t.threads), ""});
    if (t.threads == best_threads) best_cv = 100.0 * t.cv;
  }
  facts.push_back({name, toolchain, best, unit, best_cv,
                   fmt::format("{}; best median, at {} threads", method, best_threads), ""});
}

}  // namespace

std::string read_bandwidth_at(int threads) { return fmt::format("read_bandwidth.threads_{}", threads); }
std::string fma_throughput_at(int threads) { return fmt::format("fma_throughput.threads_{}", threads); }
std::string cache_size_name(int level) { return level == 1 ? kCacheL1d : fmt::format("cache.l{}", level); }
std::string cache_latency_name(int level) { return level == 1 ? kLatencyL1d : fmt::format("latency.l{}", level); }

void store_fact(store::Workspace& ws, const Fact& fact) {
  if (fact.name.empty() || fact.toolchain.empty()) {
    throw std::invalid_argument("a fact needs a name and a toolchain");
  }
  auto s = ws.db().prepare(
      "INSERT OR REPLACE INTO facts(name, toolchain, value, unit, spread, method, measured_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
      "COALESCE(NULLIF(?7, ''), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))");
  s.bind(1, fact.name).bind(2, fact.toolchain).bind(3, fact.value).bind(4, fact.unit);
  s.bind(5, fact.spread).bind(6, fact.method).bind(7, fact.measured_at);
  s.run();
}

std::vector<Fact> list_facts(store::Workspace& ws, std::optional<std::string_view> toolchain) {
  std::vector<Fact> out;
  auto s = ws.db().prepare(fmt::format(
      "SELECT {} FROM facts WHERE ?1 IS NULL OR toolchain = ?1 ORDER BY toolchain, name", kColumns));
  if (toolchain) s.bind(1, *toolchain); else s.bind(1, std::nullopt);
  while (s.step()) out.push_back(read_row(s));
  return out;
}

std::optional<Fact> find_fact(store::Workspace& ws, std::string_view name, std::string_view toolchain) {
  auto s = ws.db().prepare(
      fmt::format("SELECT {} FROM facts WHERE name = ?1 AND toolchain = ?2", kColumns));
  s.bind(1, name).bind(2, toolchain);
  if (!s.step()) return std::nullopt;
  return read_row(s);
}

std::vector<Fact> measure_cpu_facts(std::string_view toolchain, const CpuMeasureOptions& options) {
  const std::string tc(toolchain);
  std::vector<Fact> facts;
  const int readings = std::max(2, options.readings);
  const cpu::BandwidthProfile bw = cpu::measure_read_bandwidth(options.max_threads, readings);
  const std::string bw_method = fmt::format(
      "median of {} streaming reads of a {} MiB buffer ({}), one contiguous share per thread",
      readings, bw.buffer_bytes >> 20, bw.method);
  add_per_thread_facts(facts, tc, kReadBandwidth, read_bandwidth_at, "GB/s", bw_method, bw.by_threads,
                       &cpu::BandwidthAtThreads::median_gbps, bw.best_gbps, bw.best_threads);

  const cpu::DecodeCeiling dc = cpu::measure_decode_ceiling(options.max_threads, readings);
  const std::string dc_method = fmt::format(
      "best median over 1..{} threads of {} readings, {} KiB cache-resident weights per thread ({})",
      dc.threads, readings, dc.bytes_per_thread >> 10, dc.method);
  auto spread_at = [&](int threads, bool f8) -> std::optional<double> {
    for (const auto& t : dc.by_threads) {
      if (t.threads == threads) return cv_percent(f8 ? t.f8_readings : t.nvfp4_readings);
    }
    return std::nullopt;
  };
  facts.push_back({kDecodeF8, tc, dc.f8_gbps, "GB/s", spread_at(dc.f8_threads, true),
                   fmt::format("{}; f8e4m3 decode + FMA, best at {} threads", dc_method, dc.f8_threads), ""});
  facts.push_back({kDecodeNvfp4, tc, dc.nvfp4_gbps, "GB/s", spread_at(dc.nvfp4_threads, false),
                   fmt::format("{}; NVFP4 decode + FMA, best at {} threads", dc_method, dc.nvfp4_threads), ""});

  const cpu::CacheLatencySweep sweep = cpu::measure_cache_latency();
  const cpu::OsCacheSizes os = cpu::os_cache_sizes();
  const uint64_t os_sizes[] = {os.l1d, os.l2, os.l3};
  for (size_t i = 0; i < sweep.levels.size(); ++i) {
    const int level = static_cast<int>(i) + 1;
    const cpu::CacheLevel& l = sweep.levels[i];
    const std::string reported = i < 3 && os_sizes[i]
        ? fmt::format("OS reports {} KiB ({})", os_sizes[i] >> 10, os.source)
        : std::string("OS reports none");
    facts.push_back({cache_size_name(level), tc, static_cast<double>(l.bytes >> 10), "KiB", std::nullopt,
                     fmt::format("step {} of a {}: the largest size on its {:.2f} ns plateau; {}", level,
                                 sweep.method, l.ns, reported), ""});
    facts.push_back({cache_latency_name(level), tc, l.ns, "ns", std::nullopt,
                     fmt::format("median of the plateau up to {} KiB of a {}", l.bytes >> 10, sweep.method), ""});
  }
  facts.push_back({kLatencyDram, tc, sweep.memory_ns, "ns", std::nullopt,
                   fmt::format("at {} MiB of a {}", sweep.curve.back().bytes >> 20, sweep.method), ""});

  const cpu::FmaThroughput fma = cpu::measure_fma_throughput(options.max_threads, readings);
  const std::string fma_method = fmt::format("median of {} readings; {}", readings, fma.method);
  add_per_thread_facts(facts, tc, kFmaThroughput, fma_throughput_at, "GFLOP/s", fma_method,
                       fma.by_threads, &cpu::FmaAtThreads::gflops, fma.gflops, fma.best_threads);
  facts.push_back({kFmaLatency, tc, fma.latency_ns, "ns", 100.0 * fma.latency_cv,
                   fmt::format("median of {} readings of one dependent chain of {}-lane FMAs ({}), one thread",
                               readings, fma.lanes, fma.isa), ""});

  constexpr int kTimerSamples = 100001;
  facts.push_back({kTimerOverhead, tc, timer_overhead_ns(kTimerSamples), "ns", std::nullopt,
                   fmt::format("median of {} back-to-back std::chrono::steady_clock::now() differences",
                               kTimerSamples), ""});

  const int repeats = std::max(2, options.noise_repeats);
  std::vector<double> best;
  best.push_back(bw.best_gbps);
  for (int i = 1; i < repeats; ++i) {
    best.push_back(cpu::measure_read_bandwidth(options.max_threads, readings).best_gbps);
  }
  facts.push_back({kNoiseFloor, tc, cv_percent(best), "%", std::nullopt,
                   fmt::format("coefficient of variation of {} repeated best-read-bandwidth "
                               "measurements (each a median of {} readings)", repeats, readings), ""});
  return facts;
}

std::vector<Fact> measure_and_store_cpu_facts(store::Workspace& ws, std::string_view toolchain,
                                              const CpuMeasureOptions& options) {
  std::vector<Fact> facts = measure_cpu_facts(toolchain, options);
  store::Transaction txn(ws.db());
  for (const auto& f : facts) store_fact(ws, f);
  txn.commit();
  return list_facts(ws, toolchain);
}

cpu::Toolchain current_cpu_toolchain(store::Workspace& ws) {
  cpu::Toolchain tc;
  if (auto cxx = ws.meta("cpu.toolchain"); cxx && !cxx->empty()) tc.cxx = *cxx;
  return tc;
}

std::string current_cpu_toolchain_id(store::Workspace& ws) {
  const cpu::Toolchain tc = current_cpu_toolchain(ws);
  const cpu::ToolchainIdentity id = cpu::identify(tc);
  return id.found ? id.id : "unidentified:" + tc.cxx;
}

}  // namespace headway::knowledge
