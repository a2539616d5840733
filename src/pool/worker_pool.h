#pragma once
// A device pool of long-lived workers (worker.h), one per device, started through a scheduler
// (worker_launcher.h). The pool listens on a TCP port, asks the launcher for its workers, each
// of which connects back with the run's token; then every job run() is given goes to the next
// idle worker, and jobs from several threads run on several devices at once.
//
// Faults are the pool's, never the candidates': a worker whose connection closes, who stops
// answering pings, or whom the scheduler drops (node down, preemption, time limit, scancel) is
// lost; the job it held is run again on another worker (up to job_attempts runs in all) and only
// the run that returned counts. A lost worker is replaced while replacements remain, and each
// of these events is kept for status. Destroying the pool says goodbye to every worker and
// cancels what the scheduler still holds; if the run is killed instead, its workers see their
// connection close (or, across a broken network, their lease run out) and exit by themselves.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "pool/device_pool.h"
#include "pool/line_channel.h"
#include "pool/worker_launcher.h"

namespace headway::pool {

struct WorkerPoolOptions {
  int workers = 1;
  // The address workers connect back to (this machine's as the nodes see it); empty: the
  // host name.
  std::string advertise_host;
  std::string bind_host;  // the interface to listen on; empty: every one
  std::filesystem::path
      folder;                   // the token file (shared with the nodes, readable by the user only)
  std::string headway_binary;   // the `headway` the nodes run
  double lease_seconds = 60.0;  // a worker that hears nothing this long exits
  double ping_seconds = 5.0;    // an idle worker is pinged this often, and lost if it does not
                                // answer within this long
  int replacements = -1;        // workers started to replace lost ones; < 0: as many as `workers`
  int job_attempts = 3;         // runs of one job lost with their worker before run() gives up
  double poll_seconds = 2.0;    // how often the scheduler is asked about the workers
  // Extra seconds a worker may take beyond a job's own time limit before it counts as lost.
  double job_grace_seconds = 30.0;
  // Where pool_status_json is written (atomically) at every poll and when the pool closes, for
  // `headway status`; empty: nowhere.
  std::filesystem::path status_file;
};

class WorkerPool final : public DevicePool {
 public:
  // Listens, writes the token and starts options.workers workers. An Error when it cannot listen
  // or the launcher cannot start the first worker.
  static Result<std::unique_ptr<WorkerPool>> start(std::unique_ptr<WorkerLauncher> launcher,
                                                   WorkerPoolOptions options);
  ~WorkerPool() override;

  std::string kind() const override { return launcher_->kind(); }
  int devices() const override { return options_.workers; }
  PoolJobResult run(const PoolJob& job) override;
  std::vector<WorkerStatus> workers() const override;
  PoolStats stats() const override;
  std::vector<std::string> events() const override;
  // Interrupts the jobs in flight (they fail as the pool's), says goodbye to every worker and
  // cancels what the scheduler still holds.
  void close() override;

  int port() const { return listener_->port(); }
  // Waits until `count` workers are connected, at most timeout_seconds; false on timeout.
  bool wait_for_workers(int count, double timeout_seconds);

 private:
  using Clock = std::chrono::steady_clock;
  struct Worker;
  struct Queued;

  WorkerPool(std::unique_ptr<WorkerLauncher> launcher, WorkerPoolOptions options,
             std::unique_ptr<Listener> listener, std::string token);
  Status launch_one();  // mutex_ held
  void accept_loop();
  void admit(std::unique_ptr<LineChannel> channel);
  void serve(Worker& worker);
  void monitor_loop();
  // Marks the worker lost (mutex_ held), cancels it and starts a replacement if one is left.
  void lose(Worker& worker, const std::string& why);
  void stop_if_hopeless();              // mutex_ held
  void event(const std::string& line);  // mutex_ held
  void write_status() const;            // mutex_ not held
  void close_once();

  std::unique_ptr<WorkerLauncher> launcher_;
  WorkerPoolOptions options_;
  std::unique_ptr<Listener> listener_;
  std::string token_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;  // a job queued, a worker connected or lost, stopping
  std::deque<std::shared_ptr<Queued>> queue_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::string> events_;
  PoolStats stats_;
  int replacements_left_ = 0;
  int64_t next_job_id_ = 0;
  std::string stopped_;  // non-empty: why no job can run any more
  bool closing_ = false;
  std::once_flag closed_;
  std::thread acceptor_, monitor_;
  Clock::time_point started_ = Clock::now();
};

}  // namespace headway::pool
