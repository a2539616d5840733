#pragma once
// The cuda target's toolchain: nvcc building a candidate into a device module (a fatbin holding
// SASS for one architecture and its PTX) for the runner to load. It runs in the sandbox like the
// cpu target's compiler; no GPU is needed to build.
#include <filesystem>
#include <string>

#include "targets/target.h"

namespace headway::cuda {

struct NvccToolchain {
  std::string nvcc;  // an absolute path, or a name found in the sandbox's PATH
  std::string arch;  // e.g. "sm_90"
};

// The toolchain a spec names: "" (nvcc from $PATH, else /usr/local/cuda/bin/nvcc), or an nvcc
// path, either optionally followed by "@sm_NN" for the architecture. Without "@", the
// architecture is `detected_arch` (the GPU's), else $HEADWAY_CUDA_ARCH, else sm_90 (the H200's).
NvccToolchain toolchain_for(const std::string& spec, const std::string& detected_arch);

// Runs `nvcc --version`; id is "<release line> <arch>", e.g.
// "Cuda compilation tools, release 13.0, V13.0.88 sm_90". Never throws.
targets::ToolchainInfo identify(const NvccToolchain& toolchain);

// The candidate headers, by the names candidates include them ("headway_cuda.h",
// "headway_kernel.h", "headway_cuda_support.h"), with their text.
std::vector<targets::DocFile> cuda_candidate_headers();

// Builds `source` into cache_dir/<hash>.fatbin (cached, atomic, sandboxed as
// cpu::build_candidate). Throws sandbox::Unavailable when the sandbox is required and cannot be
// set up.
targets::BuildOutcome build_module(const NvccToolchain& toolchain, const targets::ToolchainInfo& id,
                                   const std::string& source,
                                   const std::filesystem::path& cache_dir,
                                   double timeout_seconds = 180.0);

}  // namespace headway::cuda
