#pragma once
// A kernel's contract, what every target shares: the regions (argument layout), the seeded input
// generator, the f64 reference, the tolerance and the bytes that must move. How a target calls
// the kernel and its baseline there belong to the target (the cpu target's:
// targets/cpu/host_abi.h). Contracts are made from kernel specs (kernels/spec_kernel.h); the three
// built-in Gemma-4 decode kernels, qkv, attn_out and ffn (docs/KERNELS.md), from the specs in
// kernels/specs/gemma4/ that headway embeds.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "kernels/shared_buffers.h"

namespace headway {

struct KernelSpec;

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
  bool accepts(double got, double expected) const;
};

// Expected values for a run of elements of one output region (of its RegionSpec::element type),
// starting at first_element.
struct ExpectedOutput {
  size_t region = 0;
  size_t first_element = 0;
  std::vector<double> values;
};

class KernelContract {
 public:
  virtual ~KernelContract() = default;
  virtual std::string_view name() const = 0;
  // Regions in a fixed order; scalar arguments live in a small input region too, so that all
  // state of a call is in the shared buffers.
  virtual std::vector<RegionSpec> regions() const = 0;
  virtual Tolerance tolerance() const = 0;
  // Fills every input, in/out and cache region from the seed. Outputs are left as they are.
  // The same seed always gives the same bytes; distinct seeds give independent draws. Called
  // from several threads at once, each with its own buffers.
  virtual void generate(uint64_t seed, SharedBuffers& buffers) const = 0;
  // Expected values (f64 math, bf16 rounding where the contract says so) of every element the
  // kernel must write, computed from the buffers' current inputs. Covers every kOutput and
  // kInOut element and the written rows of kCache regions.
  virtual std::vector<ExpectedOutput> reference(const SharedBuffers& buffers) const = 0;
  // How the kernel's weights are quantized, and how many bytes of quantized weights (codes and
  // block scales) it must decode: the work a decode ceiling is measured against. kNone: no
  // quantized weights, no decode ceiling.
  enum class WeightFormat { kF8e4m3, kNvfp4, kNone };
  virtual WeightFormat weight_format() const = 0;
  virtual uint64_t quantized_weight_bytes() const = 0;

  // Bytes that must move: every input read once, every output written once (for a cache,
  // only the rows the kernel writes). Derived from regions() unless a spec states them.
  virtual uint64_t bytes_to_move() const;
  // The spec the contract was made from (kernels/spec_kernel.h): for a built-in kernel, the one
  // headway embeds (kernels/specs/gemma4/); nullptr for a declared kernel.
  virtual const KernelSpec* spec() const { return nullptr; }
  // The kernel at each of its shape sets, this one (the first) first: a candidate must be
  // correct at every one. A kernel without shape sets is its own one.
  virtual std::vector<const KernelContract*> shape_sets() const { return {this}; }
  // The name of this contract's shape set; empty for a kernel without shape sets.
  virtual std::string shape_set_name() const { return ""; }
  // Whether this shape set is checked only: part of every check of the kernel, never timed (a
  // spec's `check_only`). The contract a kernel is known by (the first of shape_sets(), unless
  // a check-only set was asked for by name) is never check-only.
  virtual bool check_only() const { return false; }
  // Builds what generate() and reference() call (a spec's reference and generator), once; an
  // error says why they cannot be built, and generate() and reference() then throw it. A
  // contract with nothing to build returns success.
  virtual Result<void> build_reference() const { return {}; }
};

// The shape sets of `kernel` that are timed (shape_sets() without the check-only ones), in
// shape_sets() order: what a bench, a race, an acceptance test or a final timing reads.
std::vector<const KernelContract*> timed_shape_sets(const KernelContract& kernel);

// The built-in kernels (the Gemma-4 decode step: qkv, attn_out, ffn), in that order: constants of
// headway, alive for the whole process. A workspace's kernels are in its catalog
// (kernels/kernel_catalog.h).
const std::vector<const KernelContract*>& builtin_kernels();
std::vector<std::string> builtin_kernel_names();
// The built-in kernel of that name, or nullptr.
const KernelContract* builtin_kernel(std::string_view name);
bool is_builtin_kernel(std::string_view name);
// The names a decode layer's attention kernel goes by (kernels/specs/gemma4/attn_decode/), in
// the order a layer takes the first a workspace holds: bf16 cache, then f8.
inline constexpr const char* kDecodeAttentionKernels[] = {"attn_decode", "attn_decode_f8"};

}  // namespace headway
