#pragma once
// The cuda target's side of headway-cuda-runner (runner/runner_main.cc): finding it, running its
// one-shot modes, and a session over its serve mode. The runner runs in the sandbox with the
// NVIDIA device nodes bound in.
#include <sys/types.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace headway::cuda {

// $HEADWAY_CUDA_RUNNER when set, else headway-cuda-runner next to the running executable.
std::filesystem::path runner_executable();

// Every call below takes the driver the runner loads: a file (the emulated toolchain's stand-in,
// emulation.h), or empty for $HEADWAY_CUDA_DRIVER when set, else the system's libcuda.so.1.

// The GPU the runner sees (its info JSON), or an error saying in one line why none can be used:
// "no GPU is present: ...", or the runner is missing from this build. Asked once per process and
// driver.
Result<nlohmann::json> gpu_info(const std::string& driver = "");

// Runs a one-shot mode (check, facts) and parses its JSON; `readable` are files the runner must
// read (modules). An error carries the runner's own message.
Result<nlohmann::json> run_runner(const std::vector<std::string>& args,
                                  const std::vector<std::filesystem::path>& readable,
                                  double timeout_seconds, const std::string& driver = "");

// A runner in serve mode: one request line in, one reply line out.
class RunnerProcess {
 public:
  // Starts the runner with `args`; the first reply line (ready, or unloadable) is in
  // first_line(). Throws std::runtime_error when it cannot start.
  RunnerProcess(const std::vector<std::string>& args,
                const std::vector<std::filesystem::path>& readable, double reply_timeout_seconds,
                const std::string& driver = "");
  ~RunnerProcess();
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  const std::string& first_line() const { return first_line_; }
  // Sends one line and waits for the reply; an error when the runner died or did not answer in
  // time (it is killed then).
  Result<std::string> request(const std::string& line);

 private:
  std::optional<std::string> read_line();
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffered_, first_line_, stderr_path_;
  double timeout_;
};

}  // namespace headway::cuda
