#pragma once
// The correctness check of a built candidate on the host CPU.
#include <filesystem>

#include "kernels/contract.h"
#include "targets/cpu/runner_host.h"
#include "targets/target.h"

namespace headway::cpu {

// Runs the candidate in its own process twice: on inputs from options.seed (fresh ones
// otherwise), then on different inputs (and weights) at the same addresses, so a kernel that
// keeps results or weights across calls fails. Before each call outputs are poisoned and
// everything the kernel must not write is hashed; after it every output element is compared with
// the f64 reference, which is computed in this process (the sandboxed runner never sees it).
//
// The outcome's kind is the cpu's own name for it: "correct"; "incorrect" or "forbidden-write"
// (status kIncorrect); "failed-to-run" (kCrashed, or kTimedOut past options.call_timeout_seconds,
// else limits.call_timeout_seconds); "load-failed" (kUnloadable: no such file or entry point);
// "misbehaved" (kCheated: work left running after a call). Its details: {"failed_call": 1 or 2 (0:
// none), "violation": {"kind", "region", "index", "got", "expected", "tolerance", "failing"} for a
// wrong value or write (kind: kernels/verify.h, to_string), "run": {"status", "signal",
// "exit_code", "message"} for a run that failed (status: runner_host.h, to_string)}. Throws
// targets::DeviceUnavailable when the runner cannot be started on this machine.
targets::CheckOutcome check_candidate(const KernelContract& kernel,
                                      const std::filesystem::path& shared_object,
                                      const targets::CheckOptions& options,
                                      ProcessLimits limits = {});

}  // namespace headway::cpu
