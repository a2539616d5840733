#pragma once
// Runs an external program and captures its output, with a wall-clock limit.
#include <optional>
#include <string>
#include <vector>

#include "common/sandbox.h"

namespace headway {

struct ProcessResult {
  bool started = false;   // false: the program could not be executed (see error)
  int exit_code = -1;     // valid when exited normally
  int signal = 0;         // non-zero when killed by a signal
  bool timed_out = false; // killed because it ran past the limit
  std::string output;     // stdout and stderr, interleaved
  std::string error;      // why it could not start
  bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
};

// Runs argv[0] (searched in PATH) with argv, in working directory cwd (empty: inherit).
// Standard input is /dev/null. The whole process group is killed at the time limit.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds,
                          const std::string& cwd = "");

// Runs argv inside the sandbox under `policy` (sandbox::wrap; the working directory is the
// policy's), with the policy's limits applied to the process before it execs. Otherwise as
// above. Throws sandbox::Unavailable in kRequired mode when the sandbox cannot be set up.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds,
                          const sandbox::Policy& policy);

// The name of a signal, e.g. "SIGSEGV".
std::string signal_name(int sig);

}  // namespace headway
