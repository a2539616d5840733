// What the guard of a timed reading pays per call on the host (docs/PERFORMANCE.md, "Decisions
// per device-hour"): patching one input set and putting it back, with the set out of every cache
// before each round as a reading finds it, and flushing it:
//   build/headway_microbench --benchmark_filter=InputSets --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
// (one line).
#include <benchmark/benchmark.h>

#include <string>
#include <thread>
#include <vector>

#include "kernels/contract.h"
#include "kernels/input_sets.h"

namespace headway {
namespace {

// prepare and restore of one set, split into `shares` shares run by as many threads.
void PatchAndRestore(benchmark::State& state, const std::string& name) {
  const int shares = static_cast<int>(state.range(0));
  InputSets sets(*builtin_kernel(name), 1, 2);
  auto slot = sets.new_writable_block(1);
  uint64_t seed = 0;
  auto each_share = [&](auto&& step) {
    std::vector<std::thread> others;
    for (int s = 1; s < shares; ++s) others.emplace_back([&, s] { step(Share{s, shares}); });
    step(Share{0, shares});
    for (auto& other : others) other.join();
  };
  for (auto _ : state) {
    state.PauseTiming();
    sets.flush(1, slot->data());
    const InputSets::Patch patch = sets.draw_patch(++seed);
    state.ResumeTiming();
    each_share([&](Share share) { sets.prepare(1, seed, patch, slot->data(), share); });
    each_share([&](Share share) { sets.restore(1, patch, share); });
  }
}

void Flush(benchmark::State& state, const std::string& name) {
  const int shares = static_cast<int>(state.range(0));
  InputSets sets(*builtin_kernel(name), 1, 2);
  auto slot = sets.new_writable_block(1);
  for (auto _ : state) {
    std::vector<std::thread> others;
    for (int s = 1; s < shares; ++s)
      others.emplace_back([&, s] { sets.flush(1, slot->data(), Share{s, shares}); });
    sets.flush(1, slot->data(), Share{0, shares});
    for (auto& other : others) other.join();
  }
}

BENCHMARK_CAPTURE(PatchAndRestore, ffn, std::string("ffn"))
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(200)
    ->UseRealTime();
BENCHMARK_CAPTURE(PatchAndRestore, qkv, std::string("qkv"))
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(200)
    ->UseRealTime();
BENCHMARK_CAPTURE(Flush, ffn, std::string("ffn"))
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace headway
