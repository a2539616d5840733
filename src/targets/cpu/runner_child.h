#pragma once
// One child of a runner host (targets/cpu/runner_host.h): a fresh process with one arm's object
// loaded, which headway calls, stops, resumes and ends. Every call is timed on headway's side.
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "targets/cpu/call_result.h"
#include "targets/cpu/runner/protocol.h"

namespace headway::cpu {

class RunnerHost;

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
  // (runner/harness_pool.h) spin before the reply comes and until the next request's reply; with
  // start_workers too, the pool is started first where the candidate has not started it.
  CallResult ping(int next_within_us = 0, bool hot_workers = false, bool start_workers = false);
  // Threads of the harness's pool as the child's last reply said (0: not started). The child's
  // word, not a measurement (runner/protocol.h, Reply).
  int harness_threads() const { return harness_threads_; }
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
  int harness_threads_ = 0;
  CallResult death_;
  ChildFate fate_;
};

}  // namespace headway::cpu
