#pragma once
// Runs an external program and captures its output, with a wall-clock limit.
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/sandbox.h"

namespace headway {

struct ProcessResult {
  bool started = false;    // false: the program could not be executed (see error)
  int exit_code = -1;      // valid when exited normally
  int signal = 0;          // non-zero when killed by a signal
  bool timed_out = false;  // killed because it ran past the limit
  std::string output;      // stdout and stderr, interleaved
  std::string error;       // why it could not start
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

// A command with its own standard input, environment and bounded, separate output streams (for
// command agents: coding-agent CLIs).
struct CommandSpec {
  std::vector<std::string> argv;  // argv[0] searched in PATH
  std::string cwd;                // empty: inherit
  std::string stdin_path;         // a file the command reads as standard input; empty: /dev/null
  // Set over the inherited environment (replacing a variable of the same name).
  std::vector<std::pair<std::string, std::string>> environment;
  double timeout_seconds = 600.0;
  size_t stdout_limit = 4u << 20;  // stdout bytes kept; the rest is read and dropped
  size_t stderr_tail = 16u << 10;  // the last stderr bytes kept
  // Optional, not owned: once it reads true, the command's process group gets SIGTERM, and
  // SIGKILL 5 s later if it still runs (looked at every 50 ms).
  const std::atomic<bool>* cancel = nullptr;
};

struct CommandResult {
  bool started = false;    // false: the command could not be executed (see error)
  int exit_code = -1;      // valid when exited normally
  int signal = 0;          // non-zero when killed by a signal (not by the time limit)
  bool timed_out = false;  // killed because it ran past the limit
  bool cancelled = false;  // stopped because CommandSpec::cancel read true
  std::string out;         // stdout, at most stdout_limit bytes
  bool out_cut = false;    // stdout held more than stdout_limit bytes
  std::string err_tail;    // the last stderr_tail bytes of stderr
  std::string error;       // why it could not start
  bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
};

// Runs spec.argv in its own process group. At the time limit the whole group is killed; when the
// command exits, whatever it left running in its group is killed too, and the output still in
// the pipes is read. Thread-safe (every descriptor it opens is close-on-exec; the child only
// calls async-signal-safe functions).
CommandResult run_command(const CommandSpec& spec);

// The name of a signal, e.g. "SIGSEGV".
std::string signal_name(int sig);

// This process's own executable (/proc/self/exe); empty when it cannot be read.
std::filesystem::path own_executable();

}  // namespace headway
