#pragma once
// For tests: workers started as child processes of the test, the way a scheduler starts them on
// its nodes (worker_launcher.h), so that a worker pool runs for real without Slurm.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pool/worker_launcher.h"
#include "pool/worker_pool.h"

extern char** environ;

namespace headway::pool::testing {

// Child processes of the test, as the launcher below starts them; the test keeps this to see
// them after the pool (and its launcher) are gone. Kills what is left when destroyed.
class Processes {
 public:
  ~Processes() {
    for (auto& [id, pid] : pids_) kill(pid, SIGKILL);
    reap(true);
  }
  Result<std::string> spawn(const std::vector<std::string>& argv) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0) {
      return environment_error("cannot spawn " + argv[0]);
    }
    std::lock_guard lock(mutex_);
    pids_[std::to_string(pid)] = pid;
    return std::to_string(pid);
  }
  void signal(const std::string& id, int sig) {
    std::lock_guard lock(mutex_);
    if (pids_.count(id)) kill(pids_[id], sig);
  }
  bool alive(const std::string& id) {
    reap(false);
    std::lock_guard lock(mutex_);
    return pids_.count(id) > 0;
  }
  size_t count() {
    reap(false);
    std::lock_guard lock(mutex_);
    return pids_.size();
  }
  // Waits up to `seconds` for every process to exit; true when they did.
  bool all_exit_within(double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (count() > 0) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

 private:
  void reap(bool block) {
    std::lock_guard lock(mutex_);
    for (auto it = pids_.begin(); it != pids_.end();) {
      int status = 0;
      if (waitpid(it->second, &status, block ? 0 : WNOHANG) == it->second) {
        it = pids_.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::mutex mutex_;
  std::map<std::string, pid_t> pids_;
};

// Workers as child processes of the test: what a scheduler does, on this machine.
class ProcessLauncher final : public WorkerLauncher {
 public:
  explicit ProcessLauncher(std::shared_ptr<Processes> processes)
      : processes_(std::move(processes)) {}
  std::string kind() const override { return "processes"; }
  Result<std::string> start(const std::vector<std::string>& argv, const std::string&) override {
    return processes_->spawn(argv);
  }
  void stop(const std::vector<std::string>& ids) override {
    for (const auto& id : ids) processes_->signal(id, SIGTERM);
  }
  Result<std::map<std::string, LaunchedWorker>> poll(const std::vector<std::string>& ids) override {
    std::map<std::string, LaunchedWorker> out;
    for (const auto& id : ids) {
      if (processes_->alive(id))
        out[id] = {"RUNNING", "", std::nullopt};  // the worker says where it is
    }
    return out;
  }

 private:
  std::shared_ptr<Processes> processes_;
};

// A job that runs `script` with sh in `cwd`.
inline PoolJob shell_job(const std::string& script, const std::filesystem::path& cwd,
                         double timeout = 30) {
  PoolJob job;
  job.label = "test";
  job.argv = {"sh", "-c", script};
  job.cwd = cwd.string();
  job.timeout_seconds = timeout;
  return job;
}

// A pool of `workers` workers started by a ProcessLauncher on `processes` (the headway binary
// under test), its files in `folder`, every worker connected; an error when it does not start or
// a worker does not connect within 30 s.
inline Result<std::shared_ptr<DevicePool>> start_process_pool(std::shared_ptr<Processes> processes,
                                                              int workers,
                                                              const std::filesystem::path& folder) {
  WorkerPoolOptions o;
  o.workers = workers;
  o.advertise_host = "127.0.0.1";
  o.bind_host = "127.0.0.1";
  o.folder = folder;
  o.headway_binary = HEADWAY_BINARY;
  auto started = WorkerPool::start(std::make_unique<ProcessLauncher>(std::move(processes)), o);
  if (!started) return started.error();
  if (!(*started)->wait_for_workers(workers, 30))
    return environment_error("the pool's workers did not all connect within 30 s");
  return std::shared_ptr<DevicePool>(std::move(*started));
}

}  // namespace headway::pool::testing
