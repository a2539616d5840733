// What the guard of a timed reading pays per call on the host (docs/PERFORMANCE.md, "Decisions
// per device-hour"): patching one input set and putting it back, with the set out of every cache
// before each round as a reading finds it, flushing it, and putting back a slot a call wrote; and
// what making a session's sets costs once a process ("Input sets"):
//   build/headway_microbench --benchmark_filter=InputSets --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
// (one line).
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kernels/contract.h"
#include "kernels/input_sets.h"

namespace headway {
namespace {

// step(share) for each of `shares` shares of one operation, on as many threads.
template <class Step>
void in_shares(int shares, const Step& step) {
  std::vector<std::thread> others;
  for (int s = 1; s < shares; ++s) others.emplace_back([&, s] { step(Share{s, shares}); });
  step(Share{0, shares});
  for (auto& other : others) other.join();
}

// prepare and restore of one set, in state.range(0) shares.
void PatchAndRestore(benchmark::State& state, const std::string& name) {
  const int shares = static_cast<int>(state.range(0));
  InputSets sets(*builtin_kernel(name), 1, 2);
  auto slot = sets.new_writable_block(1);
  uint64_t seed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    sets.flush(1, slot->data());
    InputSets::Patch patch = sets.draw_patch(++seed);
    state.ResumeTiming();
    in_shares(shares, [&](Share share) { sets.prepare(1, seed, patch, slot->data(), share); });
    in_shares(shares, [&](Share share) { sets.restore(1, patch, share); });
  }
}

// prepare and restore of a reading's window of sets (state.range(0) of them, each its own draw),
// every set flushed first, on two threads sharing each set as a reading's are shared.
void PatchAndRestoreWindow(benchmark::State& state, const std::string& name) {
  const int calls = static_cast<int>(state.range(0));
  InputSets sets(*builtin_kernel(name), 1, calls, calls);
  auto slots = sets.new_writable_block(calls);
  std::vector<InputSets::Patch> patches(static_cast<size_t>(calls));
  uint64_t seed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (int k = 0; k < calls; ++k) sets.flush(k, slots->data() + sets.slot_bytes() * k);
    state.ResumeTiming();
    ++seed;
    for (int k = 0; k < calls; ++k) sets.draw_patch(seed * 1000 + k, patches[k]);
    in_shares(2, [&](Share share) {
      for (int k = 0; k < calls; ++k)
        sets.prepare(k, seed * 1000 + k, patches[k], slots->data() + sets.slot_bytes() * k, share);
    });
    in_shares(2, [&](Share share) {
      for (int k = 0; k < calls; ++k) sets.restore(k, patches[k], share);
    });
  }
}
BENCHMARK_CAPTURE(PatchAndRestoreWindow, attn_out, std::string("attn_out"))
    ->Arg(32)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(50)
    ->UseRealTime();

// The flush of one set and its slot, in state.range(0) shares.
void Flush(benchmark::State& state, const std::string& name) {
  const int shares = static_cast<int>(state.range(0));
  InputSets sets(*builtin_kernel(name), 1, 2);
  auto slot = sets.new_writable_block(1);
  for (auto _ : state) in_shares(shares, [&](Share share) { sets.flush(1, slot->data(), share); });
}

// The reset of one slot that a call wrote one cache row of (as qkv's does), the slot out of every
// cache before each round as a reading finds it.
void ResetSlot(benchmark::State& state, const std::string& name) {
  InputSets sets(*builtin_kernel(name), 1, 2);
  auto slot = sets.new_writable_block(1);
  uint64_t round = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const size_t row = (++round * 8192) % (sets.slot_bytes() - 8192);
    std::memset(slot->data() + row, static_cast<int>(round & 0xff), 8192);
    sets.flush(1, slot->data());
    state.ResumeTiming();
    sets.reset_writable_slot(*slot, 0);
  }
}

// Drawing and laying out a session's input sets: `sets` sets of as many draws (a window of
// them, as a reading of ffn's five calls and its warm-up call uses), once a process per kernel.
void Made(benchmark::State& state, const std::string& name) {
  const KernelContract& kernel = *builtin_kernel(name);
  const auto sets = static_cast<int>(state.range(0));
  for (auto _ : state) {
    InputSets made(kernel, 1, sets, sets);
    benchmark::DoNotOptimize(made.memory().data());
  }
}

BENCHMARK_CAPTURE(Made, ffn, std::string("ffn"))
    ->Arg(6)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();
BENCHMARK_CAPTURE(ResetSlot, qkv, std::string("qkv"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(100)
    ->UseRealTime();
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
