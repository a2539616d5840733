#pragma once
// The libraries a user would call instead of headway's kernels ("peers"), timed in this process
// by `headway bench --peers` (docs/PERFORMANCE.md, "Peer libraries"): oneDNN's matmul with bf16
// or f32 weights and OpenBLAS's cblas_sgemv, each doing a kernel's matrix-vector products at
// batch 1 (its weights times one activation vector; not its norms, RoPE or activation
// function). Peers are trusted library code, not candidates: they run in headway's process, with
// each library's default threading, and no rule of timing is enforced on them.
//
// Weights are row-major [rows][cols] as a model stores them (for oneDNN, a weights tensor of
// dims {cols, rows} in format `ba`), vectors dense. Every element of a peer, weights and
// vectors, is in its one format (bf16 or f32).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace headway::peers {

enum class PeerLibrary {
  kOnednnBf16,     // dnnl::matmul, bf16 source, weights and destination
  kOnednnF32,      // dnnl::matmul, f32 throughout
  kOpenblasSgemv,  // cblas_sgemv, row-major, no transpose
};

// Every peer, in the order bench prints them.
std::vector<PeerLibrary> all_peer_libraries();
// "onednn-bf16", "onednn-f32", "openblas-sgemv".
std::string_view peer_name(PeerLibrary peer);
// "bf16" or "f32".
std::string_view peer_format(PeerLibrary peer);
// Bytes of one element in the peer's format (2 or 4).
uint64_t peer_element_bytes(PeerLibrary peer);

// Why `peer` cannot run on this machine, or nothing when it can: the library has no
// implementation of the peer's product for this CPU (oneDNN 2.x has bf16 matmul only on chips
// with AVX-512 core). Asked of the library itself, with a small product, not of the CPU's flags.
std::optional<std::string> peer_unavailable(PeerLibrary peer);

// One product y[rows] = W[rows][cols] x[cols].
struct Matvec {
  std::string name;  // the weight's name in docs/KERNELS.md ("q|k|v", "o", "gate", "up", "down")
  uint64_t rows = 0;
  uint64_t cols = 0;
};

// A kernel's products, in the order the kernel does them: qkv one 8192 x 3840 (Q, K and V
// stacked), attn_out one 3840 x 4096, ffn gate and up 15360 x 3840 and down 3840 x 15360. An
// invalid-input error for another name.
Result<std::vector<Matvec>> kernel_matvecs(std::string_view kernel);

// The bytes a peer moves for `products`: each product's weights, vector in and vector out, once,
// in the peer's format.
uint64_t peer_bytes(PeerLibrary peer, const std::vector<Matvec>& products);

// One product through the library on these values (weights row-major, rows x cols; x of cols),
// converted to the peer's format first (bf16: rounded to nearest even); y widened to f32. An
// invalid-input error when the sizes do not match the product; an environment error when the
// library fails or cannot run here (its message then peer_unavailable's reason).
Result<std::vector<float>> peer_matvec(PeerLibrary peer, const Matvec& product,
                                       std::span<const float> weights, std::span<const float> x);

// Copies of one set (a kernel's weights and vectors) that keep each call's inputs out of the
// caches when calls take the copies in turn: a copy is used again only after at least
// `cold_bytes` of other copies were read, and there are at least two.
uint64_t copies_for_cold(uint64_t set_bytes, uint64_t cold_bytes);

// A kernel's products through one peer over copies_for_cold(its set, cold_bytes) copies of
// random weights and vectors, ready to time: the library's setup (oneDNN's primitives) is done.
class PeerRun {
 public:
  // An invalid-input error for an empty list of products; an environment error when memory or
  // the library fails.
  static Result<std::unique_ptr<PeerRun>> start(PeerLibrary peer, std::vector<Matvec> products,
                                                uint64_t cold_bytes, uint64_t seed);
  virtual ~PeerRun() = default;
  // Seconds of one pass through every product on the next copy (std::chrono::steady_clock
  // around the library's calls, waiting for each to finish), or an environment error. Returns
  // once the library's worker threads stopped spinning (at most 1 s after the calls), so that
  // they take no core from what runs next.
  virtual Result<double> reading() = 0;
  virtual PeerLibrary peer() const = 0;
  virtual uint64_t copies() const = 0;
};

// How the libraries run on this machine: their versions and threads by default.
struct PeerRuntime {
  std::string onednn_version;  // "2.6.3"
  std::string onednn_runtime;  // "OpenMP", "TBB", "threadpool", "sequential"
  int onednn_threads = 0;      // the OpenMP runtime's omp_get_max_threads(), 0 when unknown
  std::string openblas_config;
  std::string openblas_core;
  int openblas_threads = 0;
};
PeerRuntime peer_runtime();

// One arm of an interleaved run: a name and how to take one reading of it.
struct InterleavedArm {
  std::string name;
  std::function<Result<double>()> read;
};

// The order of round `round` (0 for the first warm-up round) over `arms` arms: every arm once,
// starting one arm later each round, so that no arm is always first or always after the same one.
std::vector<size_t> interleaved_order(size_t arms, int round);

// `warmup_rounds` rounds whose readings are dropped, then `readings` rounds of one reading per
// arm in interleaved_order; readings per arm, in order. The first failed reading ends the run
// with its error, the arm's name in front.
Result<std::vector<std::vector<double>>> read_interleaved(const std::vector<InterleavedArm>& arms,
                                                          int readings, int warmup_rounds);

}  // namespace headway::peers
