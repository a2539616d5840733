#pragma once
// headway-cuda-runner's command line (runner_main.cc's file comment has the modes and options).
#include <cstdint>
#include <string>
#include <vector>

#include "targets/cuda/runner_kernel.h"

namespace headway::cuda_runner {

struct Options {
  std::string mode;
  std::string kernel;
  std::string spec, shape_set;  // a spec kernel's file and shape set; empty: a built-in kernel
  std::vector<std::string> modules;
  uint64_t seed = 1;
  int sets = 4;
  int readings = 11;
};

// Prints "headway-cuda-runner: WHY" on stderr and exits with status 2 (bad usage).
[[noreturn]] void usage(const std::string& why);
// The options of argv; bad usage exits through usage().
Options parse(int argc, char** argv);
// The kernel the options name (a built-in one, or a spec's at its shape set); exits through
// usage() when it cannot be had.
cuda::LoadedKernel kernel_of(const Options& o);

}  // namespace headway::cuda_runner
