#include "targets/cuda/runner_client.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

#include "common/sandbox.h"
#include "common/subprocess.h"

namespace headway::cuda {
namespace fs = std::filesystem;
namespace {

// The driver file the runner is told to load; empty: the system's.
std::string driver_file(const std::string& driver) {
  if (!driver.empty()) return driver;
  const char* env = std::getenv("HEADWAY_CUDA_DRIVER");
  return env ? env : "";
}

// The runner's sandbox: the runner and the modules readable, the NVIDIA device nodes and the
// driver's view of the system (/sys, read-only) bound in.
sandbox::Policy runner_policy(const std::vector<fs::path>& readable, const std::string& driver) {
  sandbox::Policy policy;
  policy.read_only.push_back(runner_executable());
  for (const auto& r : readable) policy.read_only.push_back(r);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    if (entry.path().filename().string().rfind("nvidia", 0) == 0)
      policy.devices.push_back(entry.path());
  }
  if (fs::exists("/sys")) policy.read_only.push_back("/sys");
  if (!driver.empty()) {
    policy.read_only.push_back(driver);
    policy.environment.emplace_back("HEADWAY_CUDA_DRIVER", driver);
    // The stand-in's log of what the runner queues (fake_driver/fake_libcuda.cc), for tests.
    if (const char* log = std::getenv("HEADWAY_FAKE_CUDA_LOG"); log && *log) {
      policy.writable.push_back(fs::path(log).parent_path());
      policy.environment.emplace_back("HEADWAY_FAKE_CUDA_LOG", log);
    }
    // The stand-in's slower device (fake_driver/fake_libcuda.cc, time_scale).
    if (const char* scale = std::getenv("HEADWAY_EMULATED_TIME_SCALE"); scale && *scale)
      policy.environment.emplace_back("HEADWAY_EMULATED_TIME_SCALE", scale);
  }
  return policy;
}

std::vector<std::string> runner_argv(const std::vector<std::string>& args,
                                     const std::vector<fs::path>& readable,
                                     const std::string& driver) {
  std::vector<std::string> command = {runner_executable().string()};
  command.insert(command.end(), args.begin(), args.end());
  return sandbox::wrap(runner_policy(readable, driver_file(driver)), command);
}

std::string first_line_of(const std::string& text) { return text.substr(0, text.find('\n')); }

// The runner's stderr without its "headway-cuda-runner: " prefix.
std::string runner_message(const std::string& output) {
  constexpr std::string_view kPrefix = "headway-cuda-runner: ";
  const size_t at = output.find(kPrefix);
  return at == std::string::npos ? first_line_of(output)
                                 : first_line_of(output.substr(at + kPrefix.size()));
}

}  // namespace

fs::path runner_executable() {
  if (const char* env = std::getenv("HEADWAY_CUDA_RUNNER"); env && *env) return env;
  return own_executable().parent_path() / "headway-cuda-runner";
}

Result<nlohmann::json> run_runner(const std::vector<std::string>& args,
                                  const std::vector<fs::path>& readable, double timeout_seconds,
                                  const std::string& driver) {
  if (!fs::exists(runner_executable())) {
    return environment_error(
        fmt::format("the cuda runner {} is missing (this headway was built without the CUDA driver "
                    "header cuda.h)",
                    runner_executable().string()));
  }
  const ProcessResult r = run_process(runner_argv(args, readable, driver), timeout_seconds);
  if (r.timed_out)
    return environment_error(fmt::format("the cuda runner ran past {} s", timeout_seconds));
  if (!r.ok()) {
    return environment_error(r.started ? runner_message(r.output)
                                       : "the cuda runner did not start: " + r.error);
  }
  // Stdout and stderr are interleaved: the JSON is the last line that parses.
  size_t end = r.output.size();
  while (end > 0) {
    const size_t start = r.output.rfind('\n', end - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    auto j = nlohmann::json::parse(r.output.substr(from, end - from), nullptr, false);
    if (!j.is_discarded() && j.is_object()) return j;
    if (start == std::string::npos) break;
    end = start;
  }
  return environment_error("the cuda runner printed no JSON: " + first_line_of(r.output));
}

Result<nlohmann::json> gpu_info(const std::string& driver) {
  // Asked once per driver (a stand-in, or the system's).
  static std::mutex mutex;
  static std::map<std::string, Result<nlohmann::json>> known;
  const std::string key = driver_file(driver);
  std::lock_guard lock(mutex);
  if (auto it = known.find(key); it != known.end()) return it->second;
  Result<nlohmann::json> info = environment_error("");
  try {
    info = run_runner({"info"}, {}, 60.0, key);
  } catch (const sandbox::Unavailable& e) {
    info = environment_error(fmt::format("cannot sandbox the cuda runner: {}", e.what()));
  }
  known.emplace(key, info);
  return info;
}

RunnerProcess::RunnerProcess(const std::vector<std::string>& args,
                             const std::vector<fs::path>& readable, double reply_timeout_seconds,
                             const std::string& driver)
    : timeout_(reply_timeout_seconds) {
  const std::vector<std::string> argv = runner_argv(args, readable, driver);
  // The runner's stdin is a socket, so that a request to a runner that died fails with EPIPE
  // (send with MSG_NOSIGNAL) instead of raising SIGPIPE in headway.
  int in[2], out[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 || pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create the runner's pipes: ") +
                             std::strerror(errno));
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    setpgid(0, 0);
    execvp(cargv[0], cargv.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  to_ = in[1];
  from_ = out[0];
  auto line = read_line();
  if (!line)
    throw std::runtime_error("the cuda runner did not start (no GPU, or it failed at once)");
  first_line_ = *line;
}

RunnerProcess::~RunnerProcess() {
  if (to_ >= 0) {
    const char quit[] = "quit\n";
    [[maybe_unused]] auto n = send(to_, quit, sizeof quit - 1, MSG_NOSIGNAL);
    close(to_);
  }
  if (from_ >= 0) close(from_);
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

std::optional<std::string> RunnerProcess::read_line() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_);
  for (;;) {
    if (size_t nl = buffered_.find('\n'); nl != std::string::npos) {
      std::string line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{from_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[4096];
    const ssize_t n = read(from_, chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    buffered_.append(chunk, static_cast<size_t>(n));
  }
}

Result<std::string> RunnerProcess::request(const std::string& line) {
  const std::string message = line + "\n";
  if (send(to_, message.data(), message.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(message.size()))
    return environment_error("the cuda runner is gone");
  auto reply = read_line();
  if (!reply) {
    kill(-pid_, SIGKILL);
    return environment_error(
        fmt::format("the cuda runner did not answer '{}' within {} s", line, timeout_));
  }
  return *reply;
}

}  // namespace headway::cuda
