#pragma once
// The contract of a kernel spec (kernels/kernel_spec.h) at one of its shape sets: regions from its
// arguments in their order and then `dims` (the shape set's dimensions as int64, in the spec's
// order, so that one build serves every shape set), inputs drawn as the spec says, expected outputs
// from its f64 reference (built and loaded when first called for), its tolerance and its bytes to
// move.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "kernels/contract.h"
#include "kernels/kernel_spec.h"
#include "kernels/spec_build.h"

namespace headway {

class SpecKernel final : public KernelContract {
 public:
  SpecKernel(std::shared_ptr<const KernelSpec> spec, size_t shape_set,
             std::shared_ptr<const SpecBuild> build);
  std::string_view name() const override { return spec_->name; }
  std::vector<RegionSpec> regions() const override { return regions_; }
  Tolerance tolerance() const override { return spec_->tolerance; }
  // Argument i draws from its own stream (the seed mixed with its `stream`, by default i + 1);
  // then the spec's generator, if any, gets every input decoded to doubles (or its bytes) and may
  // rewrite the decoded ones (headway stores its values rounded to each argument's type).
  void generate(uint64_t seed, SharedBuffers& buffers) const override;
  // Outputs and in/outs whole; of a cache, the rows the reference changed (each run of them).
  std::vector<ExpectedOutput> reference(const SharedBuffers& buffers) const override;
  // Weights in nvfp4 make it kNvfp4 (their codes and f8 block scales count), else weights in
  // f8e4m3 make it kF8e4m3; otherwise kNone.
  WeightFormat weight_format() const override;
  uint64_t quantized_weight_bytes() const override;
  uint64_t bytes_to_move() const override;
  const KernelSpec* spec() const override { return spec_.get(); }
  Result<void> build_reference() const override { return build_->build(); }
  // The family load_spec_kernel made: this contract, then the others it owns (a contract made
  // alone, by spec_kernels, is its own family).
  std::vector<const KernelContract*> shape_sets() const override;
  std::string shape_set_name() const override { return shape_set().name; }
  bool check_only() const override { return shape_set().check_only; }
  const ShapeSet& shape_set() const { return spec_->shapes[shape_]; }
  // Makes this contract own the spec's other shape sets' contracts.
  void adopt(std::vector<std::unique_ptr<SpecKernel>> others);

 private:
  std::shared_ptr<const KernelSpec> spec_;
  size_t shape_;
  std::shared_ptr<const SpecBuild> build_;
  // The arguments decoded for the spec's functions, and a copy as given (to find what they
  // wrote), kept between calls: decoding a cache of megabytes into fresh pages on every call
  // costs more than the reference.
  struct Scratch {
    std::vector<std::vector<double>> values;
    std::vector<std::vector<double>> given;
    // Per argument: for a cache that `values` and `given` both hold decoded as the reference
    // left them restored, the hash of its bytes (a session's references all start from the same
    // cache rows: qkv's 8 MiB are decoded once, not on every call).
    std::vector<std::optional<uint64_t>> cache_decoded;
  };
  // Every argument's elements as doubles, outputs as zeros, into scratch.values; the pointers the
  // spec's functions take (an argument passed as bytes points at its bytes in the buffers). With
  // `keep_caches`, a cache whose bytes hash to its scratch.cache_decoded entry is taken as
  // scratch.values holds it (the caller puts back what its call changed), and a cache decoded
  // afresh is copied to scratch.given and its hash kept; without, no hash is kept.
  std::vector<double*> arguments(const SharedBuffers& buffers, Scratch& scratch,
                                 bool keep_caches) const;
  // The scratches no call holds now: as many are kept as calls ever ran at once.
  struct ScratchPool {
    std::mutex mutex;
    std::vector<std::unique_ptr<Scratch>> idle;
  };
  mutable ScratchPool scratch_;
  // Calls `use` with a kept scratch no other thread holds, made when none is idle.
  void with_scratch(const std::function<void(Scratch&)>& use) const;
  std::vector<std::vector<int64_t>> extents_;  // per argument
  std::vector<RegionSpec> regions_;
  std::vector<std::unique_ptr<SpecKernel>> others_;
};

// Loads the spec at `file` and returns its contract at `shape_set` (its name, check-only or not;
// empty: the first that is timed), owning its other shape sets. Its reference and generator are
// built under cache_dir when first called for (build_reference, generate or reference): loading
// compiles nothing. Errors name the file and line; `label`, when given, leads the message of a
// build's error ("LABEL: ...").
Result<std::unique_ptr<SpecKernel>> load_spec_kernel(const std::filesystem::path& file,
                                                     const std::filesystem::path& cache_dir,
                                                     std::string_view shape_set = "",
                                                     std::string label = "");
// For a spec already read: one contract per shape set, in the spec's order, each its own family.
// The reference and generator are built now, and their errors returned.
Result<std::vector<std::unique_ptr<SpecKernel>>> spec_kernels(
    std::shared_ptr<const KernelSpec> spec, const std::filesystem::path& cache_dir);
// The contract of a spec embedded in headway (a built-in kernel) at its first timed shape set,
// owning the others; its reference and generator are built under build_cache_dir() when first
// called.
std::unique_ptr<SpecKernel> embedded_spec_kernel(std::string_view spec_file);

}  // namespace headway
