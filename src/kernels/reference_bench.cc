// The f64 references of the built-in kernels, one call each on one input draw: what verifying
// a call costs beyond its own time (docs/PERFORMANCE.md "Decisions per device-hour"):
//   build/headway_microbench --benchmark_filter=Reference --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
// (one line).
#include <benchmark/benchmark.h>

#include <string>

#include "kernels/contract.h"
#include "kernels/shared_buffers.h"

namespace headway {
namespace {

void Reference(benchmark::State& state, const std::string& name) {
  const KernelContract& kernel = *builtin_kernel(name);
  SharedBuffers buffers(kernel.regions());
  kernel.generate(1, buffers);
  for (auto _ : state) benchmark::DoNotOptimize(kernel.reference(buffers));
}

BENCHMARK_CAPTURE(Reference, qkv, std::string("qkv"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Reference, attn_out, std::string("attn_out"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Reference, ffn, std::string("ffn"))->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace headway
