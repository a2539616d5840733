#include "targets/cpu/call_result.h"

#include <fmt/format.h>
#include <signal.h>

#include "common/subprocess.h"
#include "targets/cpu/runner/syscall_filter.h"

namespace headway::cpu {

const char* to_string(CallResult::Status status) {
  using S = CallResult::Status;
  switch (status) {
    case S::kOk:
      return "ok";
    case S::kCrashed:
      return "crashed";
    case S::kExited:
      return "exited";
    case S::kTimedOut:
      return "timed-out";
    case S::kMemoryExceeded:
      return "memory-exceeded";
    case S::kLoadFailed:
      return "load-failed";
    case S::kForbiddenCall:
      return "forbidden-call";
    case S::kNoRunner:
      return "no-runner";
  }
  return "crashed";
}

std::string CallResult::describe() const {
  switch (status) {
    case Status::kOk:
      return fmt::format("ran in {:.3f} ms", seconds * 1e3);
    case Status::kCrashed:
      if (!message.empty()) return message;
      return signal == SIGSEGV
                 ? "crashed with SIGSEGV (inputs are mapped read-only: a write into one crashes)"
                 : fmt::format("crashed with {}", signal_name(signal));
    case Status::kExited:
      return fmt::format("exited with status {} during the call", exit_code);
    case Status::kForbiddenCall:
      return runner::kForbiddenCallReason;
    case Status::kTimedOut:
    case Status::kMemoryExceeded:
    case Status::kLoadFailed:
    case Status::kNoRunner:
      return message;
  }
  return message;
}

}  // namespace headway::cpu
