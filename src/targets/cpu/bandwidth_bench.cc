// What one measurement of the host's read bandwidth costs (a floor recheck takes two or more):
//   build/headway_microbench --benchmark_filter=ReadBandwidth
#include <benchmark/benchmark.h>

#include "targets/cpu/bandwidth.h"

namespace headway::cpu {
namespace {

void ReadBandwidth(benchmark::State& state) {
  for (auto _ : state) {
    const BandwidthProfile profile = measure_read_bandwidth(0, static_cast<int>(state.range(0)));
    state.counters["GB/s"] = profile.best_gbps;
  }
}
BENCHMARK(ReadBandwidth)->Arg(11)->Arg(5)->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace headway::cpu
