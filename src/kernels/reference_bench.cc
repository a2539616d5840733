// The f64 references of the built-in kernels and of the attention spec at each of its shape
// sets, one call each on one input draw: what verifying a call costs beyond its own time
// (docs/PERFORMANCE.md "Decisions per device-hour"):
//   build/headway_microbench --benchmark_filter=Reference --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
// (one line).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/cache_dir.h"
#include "kernels/contract.h"
#include "kernels/shared_buffers.h"
#include "kernels/spec_kernel.h"

namespace headway {
namespace {

// One reference call a round on one draw (seed 1) of `kernel`'s inputs.
void time_reference(benchmark::State& state, const KernelContract& kernel) {
  SharedBuffers buffers(kernel.regions());
  kernel.generate(1, buffers);
  for (auto _ : state) benchmark::DoNotOptimize(kernel.reference(buffers));
}

void Reference(benchmark::State& state, const std::string& name) {
  time_reference(state, *builtin_kernel(name));
}

BENCHMARK_CAPTURE(Reference, qkv, std::string("qkv"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Reference, attn_out, std::string("attn_out"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Reference, ffn, std::string("ffn"))->Unit(benchmark::kMillisecond);

const KernelContract* attention_at(const std::string& spec, const std::string& shape_set) {
  static std::map<std::string, std::unique_ptr<SpecKernel>> families;
  auto& family = families[spec];
  if (!family) {
    auto loaded = load_spec_kernel(
        fmt::format("{}/kernels/specs/gemma4/attn_decode/{}.toml", HEADWAY_SOURCE_DIR, spec),
        build_cache_dir());
    if (!loaded) throw std::runtime_error(loaded.error().message);
    family = std::move(loaded.value());
  }
  for (const KernelContract* at : family->shape_sets())
    if (at->shape_set_name() == shape_set) return at;
  return nullptr;
}

void AttentionReference(benchmark::State& state, const std::string& spec,
                        const std::string& shape_set) {
  const KernelContract* kernel = attention_at(spec, shape_set);
  if (!kernel) {
    state.SkipWithError("no such shape set");
    return;
  }
  time_reference(state, *kernel);
}

BENCHMARK_CAPTURE(AttentionReference, sliding, std::string("attn_decode"), std::string("sliding"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(AttentionReference, global4k, std::string("attn_decode"), std::string("global4k"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(AttentionReference, global32k, std::string("attn_decode"),
                  std::string("global32k"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(AttentionReference, f8_global32k, std::string("attn_decode_f8"),
                  std::string("global32k"))
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace headway
