#pragma once
// How headway-cuda-runner is told which kernel it runs. A built-in kernel goes by its name; a
// kernel made from a spec on disk (kernels/spec_kernel.h) by its name, its spec file and its
// shape set, and the runner loads the same contract headway holds (load_spec_kernel: the spec's
// regions, generator and f64 reference, built inside the runner's sandbox), so that it draws the
// inputs and verifies the outputs as it does for a built-in kernel.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "kernels/contract.h"

namespace headway::cuda {

// headway's side: the runner's arguments naming `kernel` and the files it must read to load it
// (every file of the spec: kernel_spec.h, spec_files). Throws Failure (invalid input) for a kernel
// that is neither built in nor made from a spec on disk.
struct RunnerKernel {
  std::vector<std::string> args;
  std::vector<std::filesystem::path> readable;
};
RunnerKernel runner_kernel(const KernelContract& kernel);

// The runner's side: the contract its arguments name. `spec` empty: the built-in kernel `name`;
// else the spec at `spec`, shape set `shape_set`, whose name must be `name`; its reference and
// generator are built under `cache_dir` when first called for. An error says why not.
struct LoadedKernel {
  std::unique_ptr<KernelContract> owned;  // a spec kernel's contract; null for a built-in one
  const KernelContract* kernel = nullptr;
};
Result<LoadedKernel> load_runner_kernel(const std::string& name, const std::string& spec,
                                        const std::string& shape_set,
                                        const std::filesystem::path& cache_dir);

}  // namespace headway::cuda
