// The optimize loop at a cluster's scale, in-process (docs/PERFORMANCE.md, "Many devices"): the
// sim target with N simulated devices, a round per device at once on kN declared kernels of 16 MiB,
// the design library proposing, readings holding their device `scale` times their simulated time
// (about 2 ms for a baseline). Counters: the devices' busy share from the first round to the end,
// the decisions (acceptance tests ended), and the loop's own CPU time per decision (the devices
// sleep, so this process's CPU time is the loop's).
//   build/headway_microbench --benchmark_filter=LoopOnSimulatedDevices
#include <benchmark/benchmark.h>

#include "targets/sim/sim_pool_loop_test_support.h"

namespace headway::sim {
namespace {

void LoopOnSimulatedDevices(benchmark::State& state) {
  const int devices = static_cast<int>(state.range(0));
  const double scale = static_cast<double>(state.range(1));
  for (auto _ : state) {
    const int kernels = static_cast<int>(state.range(3)) * devices;
    const testing::PoolLoopRun r = testing::run_loop_on_sim_devices(
        devices, kernels, 16 << 20, scale, std::chrono::seconds(state.range(2)));
    const double decisions = static_cast<double>(std::max(r.summary.tests, 1));
    state.counters["busy_share"] = r.busy_share();
    state.counters["decisions"] = static_cast<double>(r.summary.tests);
    state.counters["rounds_at_once"] = r.summary.most_rounds_at_once;
    state.counters["busy_at_once"] = r.use.most_busy_at_once;
    state.counters["loop_cpu_ms_per_decision"] = 1e3 * r.loop_cpu_seconds / decisions;
    state.counters["device_s_per_decision"] = r.use.busy_seconds / decisions;
    state.counters["wall_s"] = r.wall_seconds;
    state.counters["ramp_s"] = r.ramp_seconds;
    state.counters["busy_share_within_budget"] = r.busy_share_within_budget;
    state.counters["drain_s"] = r.drain_seconds;
    state.counters["busy_share_in_drain"] = r.busy_share_in_drain;
    state.counters["budget_spent"] = r.summary.budget_spent;
  }
}

// devices, time scale, budget in seconds, kernels per device (the library runs out of ideas for
// 2 per device at 512 devices after about 190 s)
BENCHMARK(LoopOnSimulatedDevices)
    ->Args({64, 50, 60, 2})
    ->Args({512, 50, 120, 2})
    ->Args({64, 500, 150, 2})
    ->Args({512, 500, 150, 2})
    ->Args({512, 500, 300, 4})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace headway::sim
