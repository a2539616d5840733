#pragma once
// headway-cuda-runner serve: the arms of one session over shared input sets, answering a line per
// request on stdin (runner_main.cc's file comment has the protocol).
#include "targets/cuda/runner/gpu.h"
#include "targets/cuda/runner/options.h"

namespace headway::cuda_runner {

// Loads the kernel and every --module, prints "ready N" (or "unloadable I WHY" and returns 0),
// then serves until stdin ends; the process's exit status.
int run_serve(Gpu& gpu, const Options& o);

}  // namespace headway::cuda_runner
