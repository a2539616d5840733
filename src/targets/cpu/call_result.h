#pragma once
// How one call into a runner child went (targets/cpu/runner_host.h, runner_child.h): its time on
// headway's clock, or how the child failed.
#include <cstdint>
#include <string>

namespace headway::cpu {

struct CallResult {
  enum class Status {
    kOk,
    kCrashed,         // killed by a signal (signal set)
    kExited,          // the process exited inside the call (exit_code set)
    kTimedOut,        // ran past call_timeout_seconds and was killed
    kMemoryExceeded,  // died after reaching the memory limit
    kLoadFailed,      // the object could not be loaded, or has no entry point (message set)
    kForbiddenCall,   // killed by the system-call filter
    kNoRunner,        // the runner could not be started here (message set)
  } status = Status::kOk;
  double seconds = 0.0;  // kOk: request sent to reply queued for headway, on headway's clock
  bool stamped = false;  // kOk: `seconds` ends at the kernel's stamp of the reply (else: at
                         // headway's receipt of it, when the stamp was missing or implausible)
  double runner_seconds = 0.0;  // kOk: the child's own figure (a cross-check, never trusted)
  int64_t start_ns = 0;         // kOk: when the request was sent, on headway's steady clock
  int signal = 0;
  int exit_code = 0;
  std::string message;
  bool ok() const { return status == Status::kOk; }
  std::string describe() const;  // one line for people, e.g. "crashed with SIGSEGV"
};

// "ok", "crashed", "exited", "timed-out", "memory-exceeded", "load-failed", "forbidden-call",
// "no-runner".
const char* to_string(CallResult::Status status);

}  // namespace headway::cpu
