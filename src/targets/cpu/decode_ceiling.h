#pragma once
// The decode ceiling of the host CPU: how many weight bytes per second the best decode-and-
// multiply-add inner loops of the cpu designs (kernels/designs) sustain when the weights are
// already in cache. A kernel cannot stream weights faster than min(read bandwidth, this rate), so
// the two together say whether a kernel is bound by memory or by decode instructions.
#include <cstdint>
#include <string>
#include <vector>

namespace headway::cpu {

struct DecodeCeilingAtThreads {
  int threads = 0;
  double f8_gbps = 0.0;     // median over readings; GB/s = 1e9 weight bytes per second
  double nvfp4_gbps = 0.0;  // codes plus block scales
  std::vector<double> f8_readings;
  std::vector<double> nvfp4_readings;
};

struct DecodeCeiling {
  double f8_gbps = 0.0;     // the best median over thread counts
  double nvfp4_gbps = 0.0;
  int f8_threads = 0;       // thread count of the best median
  int nvfp4_threads = 0;
  int threads = 0;          // the most threads measured
  uint64_t bytes_per_thread = 0;  // weight bytes each thread loops over (fits in its L2)
  std::string method;       // the inner loops (instruction set and technique)
  std::vector<DecodeCeilingAtThreads> by_threads;  // 1..threads
};

// Each of 1..max_threads threads loops over its own cache-resident weights (about 256 KiB of f8
// codes, then about 256 KiB of NVFP4 codes and block scales), decoding and dotting them with cached
// activations, after a warm-up pass; `readings` timed readings per format and thread count.
// max_threads <= 0 means every online core.
DecodeCeiling measure_decode_ceiling(int max_threads = 0, int readings = 11);

// ---- The inner loops, exposed for tests. Activations go through the matching permute first.
// f8e4m3fn codes[n] . x, n a multiple of 32.
void f8_permute_activations(const float* x, float* xp, int n);
float f8_dot(const uint8_t* codes, const float* xp, int n);
// NVFP4 (e2m1 codes[n/2], two per byte, low nibble first; f8e4m3fn block_scales[n/16]) . x, n a
// multiple of 128. The result has no global scale.
void nvfp4_permute_activations(const float* x, float* xp, int n);
float nvfp4_dot(const uint8_t* codes, const uint8_t* block_scales, const float* xp, int n);
// The instruction set the loops were compiled for ("avx2+fma" or "scalar").
const char* decode_isa();

}  // namespace headway::cpu
