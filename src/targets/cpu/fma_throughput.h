#pragma once
// Peak single-precision FMA throughput of the host per thread count, and the latency of one FMA:
// the compute roof that decode-and-FMA kernels are measured against.
#include <string>
#include <vector>

namespace headway::cpu {

struct FmaAtThreads {
  int threads = 0;
  double gflops = 0.0;           // median over readings; 2 flops per FMA per lane
  double cv = 0.0;               // of the readings
  std::vector<double> readings;  // GFLOP/s of every reading
};

struct FmaThroughput {
  double gflops = 0.0;  // the best median over thread counts
  int best_threads = 0;
  double latency_ns = 0.0;  // median ns per FMA of one dependent chain, one thread
  double latency_cv = 0.0;
  std::vector<double> latency_readings;  // ns per FMA
  double chain_gflops = 0.0;             // the single chain's rate: lanes * 2 / latency_ns
  int lanes = 0;                         // f32 lanes per FMA instruction (8 for avx2, 1 scalar)
  int chains = 0;      // independent accumulators per thread in the throughput loop
  int threads = 0;     // the most threads measured
  std::string isa;     // "avx2+fma" or "scalar"
  std::string method;  // one line, naming the instruction set
  std::vector<FmaAtThreads> by_threads;  // 1..threads
};

// Each of 1..max_threads threads runs `chains` independent FMA accumulators (enough to hide the FMA
// latency on current cores) over registers only; then one thread runs a single dependent chain
// for the latency. Every reading is about 2 ms; `readings` readings per thread count, after a
// warm-up. max_threads <= 0 means every online core. Results are kept live: the loops cannot be
// removed by the compiler.
FmaThroughput measure_fma_throughput(int max_threads = 0, int readings = 7);

// The instruction set the loops were compiled for ("avx2+fma" or "scalar").
const char* fma_isa();

}  // namespace headway::cpu
