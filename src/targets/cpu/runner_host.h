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
#include "targets/cpu/runner/protocol.h"

namespace headway::cpu {

struct ProcessLimits {
  double call_timeout_seconds = 10.0;        // wall-clock limit of one call, and of loading
  uint64_t memory_limit_bytes = 2ull << 30;  // address space a child may add once loaded
};

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

class RunnerChild;

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

// How a child ended, reported by its host.
struct ChildFate {
  bool known = false;
  int wait_status = 0;
  double cpu_seconds = 0.0;  // user plus system time of its whole life, all threads
  uint64_t max_rss_bytes = 0;
};

class RunnerChild {
 public:
  ~RunnerChild();
  RunnerChild(const RunnerChild&) = delete;
  RunnerChild& operator=(const RunnerChild&) = delete;

  // `count` calls of the entry point back to back, call k on input set `set + k` writing into
  // slot k of the arm's writable block (runner/protocol.h), timed from just before headway sends
  // the request to the moment the kernel queues the child's reply on headway's socket
  // (SO_TIMESTAMPNS, a stamp the child cannot write). headway sleeps meanwhile: every core is
  // the kernel's, and headway's own wake-up is not in the reading. After a failed call the
  // child is gone and every later call fails the same way. With next_within_us > 0 the child
  // polls that long for the next request after replying. With hot_workers, the harness's
  // workers spin from before the reply until the next request's reply (see ping).
  CallResult call(int set, int next_within_us = 0, int count = 1, bool hot_workers = false);
  // An empty call: the round trip of a request and its reply (the child then polls for
  // next_within_us as above). With hot_workers, the harness's workers that the candidate started
  // (runner/harness_pool.h) spin before the reply comes and until the next request's reply.
  CallResult ping(int next_within_us = 0, bool hot_workers = false);
  // Threads of the child that are running or runnable now (from /proc; -1 when it cannot tell).
  int running_threads() const;
  // Threads of the child now (-1 when it cannot tell).
  int thread_count() const;
  // Stops every thread of the child (SIGSTOP, which it cannot catch or block) and waits until
  // all are stopped; false when they were not within `timeout_seconds` (or it is gone). While
  // it is stopped no candidate code runs, so headway can change what the next call reads.
  bool pause(double timeout_seconds);
  // Lets a paused child run again (SIGCONT).
  void resume();
  // CPU time the child has used so far, all threads (the kernel's accounting, which may lag a
  // running thread by one scheduler tick); negative when it cannot tell.
  double cpu_seconds() const;
  // Whether a message the child was not asked for is waiting (a forged or extra reply).
  bool unexpected_message() const;
  // Ends the child and returns how it ended (CPU time of its whole life included).
  ChildFate finish();
  // CPU time the child had used when it was prepared, before its candidate was loaded: the
  // runner's own (mapping and touching the inputs), not to be held against the candidate.
  double prepared_cpu_seconds() const { return prepared_cpu_seconds_; }
  pid_t pid() const { return pid_; }
  bool alive() const { return alive_; }

 private:
  friend class RunnerHost;
  RunnerChild(RunnerHost& host, int channel, pid_t pid, int32_t ns_pid)
      : host_(host), channel_(channel), pid_(pid), ns_pid_(ns_pid) {}
  CallResult exchange(const runner::Command& command);
  // The state letter (/proc/PID/task/TID/stat) of each thread; empty when it cannot tell.
  std::string thread_states() const;
  CallResult collect_death(bool timed_out);

  RunnerHost& host_;
  int channel_;
  pid_t pid_;       // in headway's PID namespace
  int32_t ns_pid_;  // in the host's
  bool alive_ = true;
  double prepared_cpu_seconds_ = 0.0;
  CallResult death_;
  ChildFate fate_;
};

// The runner executable: $HEADWAY_RUNNER, else headway-runner beside the running binary.
std::filesystem::path runner_executable();

}  // namespace headway::cpu
