#pragma once
// A candidate kernel loaded into its own process. The process is forked from headway, loads the
// shared object, and calls the entry point on the shared buffers when asked. A crash, a hang or
// runaway memory use ends only that process; every failure comes back as a CallResult.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "kernels/contract.h"

namespace headway::cpu {

struct ProcessLimits {
  double call_timeout_seconds = 10.0;   // wall-clock limit of one call (or one timed reading)
  uint64_t memory_limit_bytes = 2ull << 30;  // address space the kernel may add
};

struct CallResult {
  enum class Status {
    kOk,
    kCrashed,         // killed by a signal (signal set)
    kExited,          // the process exited inside the call (exit_code set)
    kTimedOut,        // ran past call_timeout_seconds and was killed
    kMemoryExceeded,  // died after reaching the memory limit
    kLoadFailed,      // dlopen or dlsym failed (message set)
  } status = Status::kOk;
  double seconds = 0.0;  // kOk: duration of the call, measured inside the runner
  int64_t start_ns = 0;  // kOk: start of the call on the steady clock
  int signal = 0;
  int exit_code = 0;
  std::string message;
  bool ok() const { return status == Status::kOk; }
  std::string describe() const;  // one line for people, e.g. "crashed with SIGSEGV"
};

class KernelProcess {
 public:
  // Forks the runner over `buffers` (which must outlive this object) and waits until it has
  // loaded `shared_object` and resolved the kernel's entry point. On failure returns nullptr
  // and sets *failure.
  static std::unique_ptr<KernelProcess> start(const KernelContract& kernel,
                                              const std::filesystem::path& shared_object,
                                              SharedBuffers& buffers, const ProcessLimits& limits,
                                              CallResult* failure);
  ~KernelProcess();
  KernelProcess(const KernelProcess&) = delete;
  KernelProcess& operator=(const KernelProcess&) = delete;

  // One call of the entry point. With evict_caches the runner first reads a buffer twice the
  // size of the last-level cache, one thread per core, so that the call's weights come from
  // memory and no core is idle (a halted vCPU is slow to wake) when the timed call starts.
  // After a failed call the process is gone and every later call fails the same way.
  CallResult call(bool evict_caches = false);

 private:
  KernelProcess(pid_t pid, int command_fd, int reply_fd, ProcessLimits limits);
  CallResult collect_death(bool timed_out);

  pid_t pid_;
  int command_fd_;
  int reply_fd_;
  ProcessLimits limits_;
  bool alive_ = true;
  CallResult death_;
};

// Size of the largest cache the OS reports (os_cache_sizes), or 32 MiB when it reports none.
uint64_t last_level_cache_bytes();

}  // namespace headway::cpu
