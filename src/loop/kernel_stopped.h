#pragma once
// The one way a kernel leaves a run early while the others go on.
#include <stdexcept>

namespace headway::loop {

// Thrown while registering or running a round of a kernel that can go no further in this run:
// its baseline does not build or fails its timing, or its head fails under timing with no
// earlier head to go back to (it is the baseline). The run records what() for the kernel and goes
// on without it (OptimizeSummary::kernels_stopped).
class KernelStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace headway::loop
