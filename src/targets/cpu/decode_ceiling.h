#pragma once
// The decode ceiling of the host CPU: how many weight bytes per second the best decode-and-
// multiply-add inner loops of the cpu designs (kernels/designs) sustain when the weights are
// already in cache: the AVX2 shift decoders everywhere, and where headway was built for a chip
// with AVX-512 BW, VBMI and BF16, the bf16 table decoders too; the faster one sets the ceiling. A
// kernel cannot stream weights faster than min(read bandwidth, this rate), so the two together say
// whether a kernel is bound by memory or by decode instructions.
#include <cstdint>
#include <string>
#include <vector>

namespace headway::cpu {

// The inner loops measured (decoder_name says which instructions).
enum class Decoder {
  kShiftFma,  // f8/e2m1 to f32 bits by shifts and AND, FMA (AVX2+FMA; scalar tables without)
  kBf16Dot,   // f8/e2m1 to bf16 by vpermi2b/vpermw tables, vdpbf16ps (AVX-512 BW+VBMI+BF16)
};
// The decoders this build has: kShiftFma always, kBf16Dot where it was built with the extensions.
std::vector<Decoder> available_decoders();
const char* decoder_name(Decoder decoder);  // "avx2+fma", "scalar" or "avx512-bf16"

struct DecodeCeilingAtThreads {
  int threads = 0;
  double f8_gbps = 0.0;     // median over readings of the best decoder; GB/s = 1e9 weight bytes/s
  double nvfp4_gbps = 0.0;  // codes plus block scales
  std::vector<double> f8_readings;  // the best decoder's
  std::vector<double> nvfp4_readings;
  std::string f8_decoder;  // decoder_name of the best decoder
  std::string nvfp4_decoder;
};

struct DecodeCeiling {
  double f8_gbps = 0.0;  // the best median over thread counts
  double nvfp4_gbps = 0.0;
  int f8_threads = 0;  // thread count of the best median
  int nvfp4_threads = 0;
  std::string f8_decoder;  // decoder_name of the best median's decoder
  std::string nvfp4_decoder;
  int threads = 0;                // the most threads measured
  uint64_t bytes_per_thread = 0;  // weight bytes each thread loops over (fits in its L2)
  std::string method;             // the inner loops (instruction set and technique)
  std::vector<DecodeCeilingAtThreads> by_threads;  // 1..threads
};

// Each of 1..max_threads threads loops over its own cache-resident weights (about 256 KiB of f8
// codes, then about 256 KiB of NVFP4 codes and block scales), decoding and dotting them with cached
// activations, after a warm-up pass; `readings` timed readings per format and thread count.
// max_threads <= 0 means every online core.
DecodeCeiling measure_decode_ceiling(int max_threads = 0, int readings = 11);

// ---- The inner loops, exposed for tests. Activations go through the matching permute first,
// into storage aligned to 64 bytes; the dots are the designs' own (include/headway/
// headway_decoders.h).
// f8e4m3fn codes[n] . x, n a multiple of 32.
void f8_permute_activations(const float* x, float* xp, int n);
float f8_dot(const uint8_t* codes, const float* xp, int n);
// NVFP4 (e2m1 codes[n/2], two per byte, low nibble first; f8e4m3fn block_scales[n/16]) . x, n a
// multiple of 128. The result has no global scale.
void nvfp4_permute_activations(const float* x, float* xp, int n);
float nvfp4_dot(const uint8_t* codes, const uint8_t* block_scales, const float* xp, int n);
// The bf16 decoders: activations rounded to bf16 in their layout; the same sums, exact products.
// Without kBf16Dot in available_decoders() the dots throw std::logic_error.
void f8_bf16_permute_activations(const float* x, uint16_t* xb, int n);
float f8_dot_bf16(const uint8_t* codes, const uint16_t* xb, int n);  // n a multiple of 64
void nvfp4_bf16_permute_activations(const float* x, uint16_t* xb, int n);
float nvfp4_dot_bf16(const uint8_t* codes, const uint8_t* block_scales, const uint16_t* xb, int n);
// The instruction set the shift decoders were compiled for ("avx2+fma" or "scalar").
const char* decode_isa();

}  // namespace headway::cpu
