#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "targets/cpu/bandwidth.h"
#include "targets/cpu/cpu_target.h"
#include "targets/cpu/cpu_timing.h"

namespace headway::cli {

namespace {
struct BenchArgs {
  std::string kernel;
  std::string source;
  int readings = 15;
  std::string cxx = "g++";
  bool json = false;
};

int run_bench(const BenchArgs& args) {
  std::vector<const KernelContract*> kernels;
  if (args.kernel.empty()) {
    if (!args.source.empty()) throw UsageError("--source needs --kernel");
    for (const auto& n : kernel_names()) kernels.push_back(find_kernel(n));
  } else {
    kernels.push_back(&kernel_or_throw(args.kernel));
  }
  const std::string source = args.source.empty() ? "" : read_source_or_throw(args.source);
  cpu::CpuTarget target(args.cxx);
  std::vector<std::filesystem::path> objects;
  for (const auto* k : kernels) {
    const std::string text = source.empty() ? target.baseline_source(*k) : source;
    objects.push_back(build_or_throw(target, text, source.empty() ? fmt::format("the {} baseline", k->name()) : args.source).path);
  }
  const cpu::BandwidthProfile bw = cpu::measure_read_bandwidth();
  if (!args.json) {
    for (const auto& t : bw.by_threads) {
      fmt::print("read bandwidth, {} thread{}: {:.2f} GB/s (cv {:.1f}%)\n", t.threads,
                 t.threads == 1 ? "" : "s", t.median_gbps, 100 * t.cv);
    }
    fmt::print("{:<9} {:>12} {:>9} {:>10} {:>11} {:>9} {:>7}\n", "kernel", "bytes", "GB/s",
               "floor ms", "median ms", "x floor", "cv %");
  }
  nlohmann::json out = {{"kernels", nlohmann::json::array()},
                        {"bandwidth", {{"best_gbps", bw.best_gbps}, {"threads", bw.best_threads},
                                       {"buffer_bytes", bw.buffer_bytes}, {"method", bw.method}}}};
  int rc = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = *kernels[i];
    const double floor_ms = static_cast<double>(k.bytes_to_move()) / (bw.best_gbps * 1e9) * 1e3;
    const cpu::TimingResult t = cpu::time_candidate(k, objects[i], args.readings, {});
    if (!t.ok()) {
      fmt::print(stderr, "headway: {} {}\n", k.name(), t.failure.describe());
      rc = 1;
      continue;
    }
    const double median_ms = t.median_seconds * 1e3;
    out["kernels"].push_back({{"name", k.name()}, {"bytes", k.bytes_to_move()},
                              {"bandwidth_gbps", bw.best_gbps}, {"floor_ms", floor_ms},
                              {"median_ms", median_ms}, {"ratio_to_floor", median_ms / floor_ms},
                              {"cv", t.cv}, {"readings", t.seconds.size()}});
    if (!args.json) {
      fmt::print("{:<9} {:>12} {:>9.2f} {:>10.3f} {:>11.3f} {:>9.2f} {:>7.2f}\n", k.name(),
                 k.bytes_to_move(), bw.best_gbps, floor_ms, median_ms, median_ms / floor_ms, 100 * t.cv);
    }
  }
  if (args.json) fmt::print("{}\n", out.dump(2));
  return rc;
}
}  // namespace

void add_bench(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Measure bandwidth, floors and kernel times on the host CPU");
  cmd->add_option("--kernel", args->kernel, "one kernel (default: all)");
  cmd->add_option("--source", args->source, "time this source instead of the baseline (needs --kernel)");
  cmd->add_option("--readings", args->readings, "timed readings per kernel")->check(CLI::Range(1, 100000));
  cmd->add_option("--cxx", args->cxx, "C++ compiler");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_bench(*args); }); });
}

}  // namespace headway::cli
