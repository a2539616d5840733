#pragma once
// The correctness check of a built candidate on the host CPU.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "kernels/contract.h"
#include "kernels/verify.h"
#include "targets/cpu/runner_host.h"

namespace headway::cpu {

struct CheckOptions {
  std::optional<uint64_t> seed;  // fixed inputs when set; fresh random inputs otherwise
  ProcessLimits limits;
};

struct CheckReport {
  enum class Status { kCorrect, kIncorrect, kForbiddenWrite, kFailedToRun, kLoadFailed, kNoRunner, kMisbehaved };
  Status status = Status::kCorrect;
  uint64_t seed = 0;             // the seed of the first call's inputs
  int failed_call = 0;           // 1 or 2 when the check failed during or after a call
  std::optional<Violation> violation;  // kIncorrect, kForbiddenWrite
  CallResult run;                // kFailedToRun, kLoadFailed, kNoRunner: how the process failed;
                                 // kMisbehaved: run.message says what it did after a call
  double seconds = 0.0;          // wall time of the whole check
  bool correct() const { return status == Status::kCorrect; }
  std::string describe() const;  // one line for people
};

// Runs the candidate in its own process twice: on inputs from the seed, then on different
// inputs (and weights) at the same addresses, so a kernel that keeps results or weights
// across calls fails. Before each call outputs are poisoned and everything the kernel must not
// write is hashed; after it every output element is compared with the f64 reference, which
// is computed in this process (the sandboxed runner never sees it).
CheckReport check_candidate(const KernelContract& kernel, const std::filesystem::path& shared_object,
                            const CheckOptions& options);

}  // namespace headway::cpu
