#pragma once
// The cuda target's emulated toolchain (toolchain spec "emulated"): a candidate's .cu file built
// by the host C++ compiler against fake_driver/cuda_emulation.h into a shared object, which
// headway-cuda-runner loads through the stand-in driver (fake_driver/fake_libcuda.cc) and whose
// kernels run on host threads. It checks the machinery (builds, the runner's checks, sessions,
// verification, facts and floors) on any machine; its timings and facts are the host's, never a
// GPU's, and its toolchain id says so.
#include <filesystem>
#include <string>

#include "targets/target.h"

namespace headway::cuda {

inline constexpr std::string_view kEmulatedSpec = "emulated";

// The stand-in driver: $HEADWAY_CUDA_DRIVER when set, else libheadway_fake_libcuda.so beside the
// runner (runner_client.h's runner_executable).
std::filesystem::path stand_in_driver();

// The emulated toolchain's identity: found when the host compiler (g++) answers --version and
// the runner and the stand-in driver exist, else an error naming what is missing. Its id and
// version start "emulated on host threads". Never throws.
targets::ToolchainInfo identify_emulation();

// The kernel whose argument struct (hw_<kernel>_args) the source names, as the emulated launcher
// needs it; empty when it names none or several.
std::string emulated_kernel_of(const std::string& source);

// Builds `source` into cache_dir/<hash>.so for the stand-in driver (cached, atomic, sandboxed as
// build_module). A source that names no kernel's argument struct, or several, is a compile error.
targets::BuildOutcome build_emulated(const targets::ToolchainInfo& id, const std::string& source,
                                     const std::filesystem::path& cache_dir,
                                     double timeout_seconds = 180.0);

}  // namespace headway::cuda
