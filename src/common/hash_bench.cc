// The gate's content hash (common/hash.h, docs/PERFORMANCE.md "The gate's content hash"):
// hash_bytes (XXH3, compiled into headway) against the stable hash it replaced and against
// XXH3 from Debian's shared libxxhash (its baseline build, and its run-time choice of vector
// instructions), on the sizes of the regions the gate hashes. Interleaved repetitions, medians:
//   build/headway_microbench --benchmark_filter=Hash --benchmark_repetitions=9
//     --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true
// (one line).
#include <benchmark/benchmark.h>
#include <xxhash.h>
#if defined(__x86_64__)
#define XXH_DISPATCH_DISABLE_REPLACE  // XXH3_64bits stays the library's baseline build
#include <xxh_x86dispatch.h>
#endif

#include <string>

#include "common/hash.h"

namespace headway {
namespace {

template <uint64_t (*HashFunction)(const void*, size_t)>
void Hash(benchmark::State& state) {
  std::string bytes(static_cast<size_t>(state.range(0)), '\0');
  for (size_t k = 0; k < bytes.size(); ++k) bytes[k] = static_cast<char>(k * 131 + k / 7);
  for (auto _ : state) benchmark::DoNotOptimize(HashFunction(bytes.data(), bytes.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

uint64_t shared_library_xxh3(const void* data, size_t n) { return XXH3_64bits(data, n); }
#if defined(__x86_64__)
uint64_t shared_library_xxh3_dispatch(const void* data, size_t n) {
  return XXH3_64bits_dispatch(data, n);
}
#endif

// A KV-cache row of qkv (hashed row by row); a bf16[3840] activation (qkv's x, the residuals);
// a block-scale matrix of ffn; qkv's q_weight and attn_out's o_weight; a weight matrix of ffn.
void GateSizes(benchmark::internal::Benchmark* b) {
  for (const int64_t bytes : {4096, 7680, 3686400, 15728640, 29491200}) b->Arg(bytes);
}

BENCHMARK(Hash<stable_hash_bytes>)->Name("Hash/stable")->Apply(GateSizes);
BENCHMARK(Hash<hash_bytes>)->Name("Hash/xxh3")->Apply(GateSizes);
BENCHMARK(Hash<shared_library_xxh3>)->Name("Hash/xxh3_shared_library")->Apply(GateSizes);
#if defined(__x86_64__)
BENCHMARK(Hash<shared_library_xxh3_dispatch>)
    ->Name("Hash/xxh3_shared_library_dispatch")
    ->Apply(GateSizes);
#endif

}  // namespace
}  // namespace headway
