#pragma once
// Building a kernel spec's f64 reference and input generator (include/headway/headway_reference.h)
// into shared objects under a build cache, once per process and source, and loading their C
// functions.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>

#include "common/result.h"
#include "kernels/kernel_spec.h"

namespace headway {

// A spec's built functions (include/headway/headway_reference.h): its reference, and its
// generator when it has one (else null).
struct SpecFunctions {
  void (*reference)(double* const* args, const int64_t* dims) = nullptr;
  void (*generate)(uint64_t seed, double* const* args, const int64_t* dims) = nullptr;
};

// A spec's functions, built when first called for and shared by its shape sets' contracts: a
// process that only lays out a kernel's regions (a runner) builds nothing.
class SpecBuild {
 public:
  explicit SpecBuild(std::function<Result<SpecFunctions>()> build) : build_(std::move(build)) {}
  // The functions; throws (fail_with) the build's error, on every call.
  const SpecFunctions& functions() const;
  // Builds them if not yet built: the build's error, on every call.
  Result<void> build() const;

 private:
  std::function<Result<SpecFunctions>()> build_;
  mutable std::once_flag once_;
  mutable std::optional<Result<SpecFunctions>> built_;
};

// Builds a spec's source (its reference or generator) into a shared object under cache_dir (reused
// while the source and header are unchanged), loads it and returns its C function `symbol`: cc
// for .c, c++ (C++20) for any other extension, $CC and $CXX when set. An error carries the
// compiler's diagnostics, or says the symbol is missing.
Result<void*> build_spec_function(const std::filesystem::path& source, std::string_view symbol,
                                  const std::filesystem::path& cache_dir);

// Builds the spec's reference and generator (each from disk or from the embedded files).
Result<SpecFunctions> build_spec_functions(const KernelSpec& spec,
                                           const std::filesystem::path& cache_dir);

}  // namespace headway
