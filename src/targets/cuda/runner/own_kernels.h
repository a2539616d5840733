#pragma once
// The kernels headway-cuda-runner launches for itself, as PTX that the driver compiles for any
// card: an empty kernel (the launch overhead fact) and a read-only stream over a buffer (the L2
// flush before each timed call, and the read bandwidth fact).
#include <cstddef>

#include "targets/cuda/runner/gpu.h"

namespace headway::cuda_runner {

// Launches an empty kernel of one block of 32 threads on the runner's stream.
class EmptyKernel {
 public:
  explicit EmptyKernel(Gpu& gpu);
  void launch();

 private:
  Gpu& gpu_;
  CUfunction function_;
};

// Reads every 16-byte word of a buffer once, on the runner's stream, and writes nothing (but for
// a chance of 2^-32 that the words' XOR equals a per-launch value, one word of the buffer itself).
// A read leaves the L2 holding clean lines of the buffer, so that a timed call that follows pays
// for its own bytes only; a write over the buffer instead would leave dirty lines that the timed
// call's reads evict, paying their write-back to memory.
class ReadStream {
 public:
  explicit ReadStream(Gpu& gpu);
  // Queues the read of `bytes` (a multiple of 16) from `buffer`.
  void launch(CUdeviceptr buffer, size_t bytes);

 private:
  Gpu& gpu_;
  CUfunction function_;
  unsigned launches_ = 0;
};

}  // namespace headway::cuda_runner
