#pragma once
// Candidate code runs in runner processes (src/targets/cpu/runner/): one sandboxed host per
// session, which forks a fresh child for every reading. This is headway's side of them. Every call
// is timed here, from the request to the kernel's timestamp of the reply: the clock is never in a
// process that runs candidate code. A crash, a hang, a forbidden system call or runaway memory use
// ends only the child; every failure comes back as a CallResult.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/shared_memory.h"
#include "kernels/contract.h"
#include "targets/cpu/call_result.h"
#include "targets/cpu/runner/protocol.h"
#include "targets/cpu/runner_child.h"

namespace headway::cpu {

struct ProcessLimits {
  double call_timeout_seconds = 10.0;        // wall-clock limit of one call, and of loading
  uint64_t memory_limit_bytes = 2ull << 30;  // address space a child may add once loaded
};

// What one host serves: the input sets (set_bytes each, read-only for the children), and per
// arm a writable block and a built object.
struct RunnerSpec {
  const KernelContract* kernel = nullptr;
  const SharedMemory* inputs = nullptr;
  size_t set_bytes = 0;
  int sets = 1;
  std::vector<const SharedMemory*> writable;   // one per arm
  std::vector<std::filesystem::path> objects;  // one per arm
  ProcessLimits limits;
};

class RunnerHost {
 public:
  // Starts the host in the sandbox (sandbox::wrap). nullptr with *failure set when it cannot.
  static std::unique_ptr<RunnerHost> start(const RunnerSpec& spec, CallResult* failure);
  ~RunnerHost();
  RunnerHost(const RunnerHost&) = delete;
  RunnerHost& operator=(const RunnerHost&) = delete;

  // A fresh child of `arm`, its object loaded and the page tables of input sets
  // [populate_first, populate_first + populate_count) filled. nullptr with *failure set when
  // it does not load (a crash or a time-out in static constructors included). With one_core,
  // the child runs on one CPU and the harness's threads one after another
  // (runner::SpawnRequest::one_core).
  std::unique_ptr<RunnerChild> spawn(int arm, int populate_first, int populate_count,
                                     CallResult* failure, bool one_core = false);
  const RunnerSpec& spec() const { return spec_; }

 private:
  friend class RunnerChild;
  RunnerHost(RunnerSpec spec, pid_t pid, int control)
      : spec_(std::move(spec)), pid_(pid), control_(control) {}
  // The exit event of the child with host-namespace pid `ns_pid`; nullopt after `timeout_seconds`.
  std::optional<runner::ChildEvent> wait_exit(int32_t ns_pid, double timeout_seconds);
  bool read_event(runner::ChildEvent* event, int timeout_ms);

  RunnerSpec spec_;
  pid_t pid_;
  int control_;
  std::map<int32_t, runner::ChildEvent> exited_;  // exit events not yet claimed, by ns pid
};

// The runner executable: $HEADWAY_RUNNER, else headway-runner beside the running binary.
std::filesystem::path runner_executable();

}  // namespace headway::cpu
