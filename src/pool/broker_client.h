#pragma once
// A run's device pool when the run is one of a study's (`headway ablate` with a pool): a client of
// the study's pool broker (pool_broker.h), which runs its jobs on the study's one set of workers,
// shared fairly with the study's other runs. devices() is the study pool's; workers() and stats()
// count this run's jobs only: a worker appears once it ran one of them, and the run is charged
// with the time its jobs held a device (held = busy), not with the allocations, which the study
// holds. When the broker goes away (the study ended or was killed), every job in flight and
// every later run() throws PoolStopped, as a lost pool does. stats().running counts this run's
// jobs sent and not yet returned (queued at the broker or on a device).
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "pool/device_pool.h"
#include "pool/line_channel.h"

namespace headway::pool {

struct BrokerClientOptions {
  std::string address;  // the broker's "HOST:PORT"
  std::string token;    // the broker's token (its token file's content)
  std::string name;     // the run as the study's status shows it, e.g. "full/3"
  double connect_timeout_seconds = 10.0;
  // Where pool_status_json is written (atomically) after each result, at most once a second, and
  // when the client closes, for `headway status`; empty: nowhere.
  std::filesystem::path status_file;
};

class BrokerClient final : public DevicePool {
 public:
  // Connects and introduces itself; an Error when the broker cannot be reached or refuses.
  static Result<std::unique_ptr<BrokerClient>> connect(BrokerClientOptions options);
  ~BrokerClient() override;

  std::string kind() const override { return "study"; }
  int devices() const override { return devices_; }
  PoolJobResult run(const PoolJob& job) override;
  std::vector<WorkerStatus> workers() const override;
  PoolStats stats() const override;
  std::vector<std::string> events() const override;
  void close() override;
  // The study pool's own kind ("slurm").
  const std::string& study_kind() const { return study_kind_; }

 private:
  using Clock = std::chrono::steady_clock;
  BrokerClient(BrokerClientOptions options, std::unique_ptr<LineChannel> channel,
               std::string study_kind, int devices);
  void read_loop();
  void stop(const std::string& why);  // mutex_ held
  void write_status(bool now);        // mutex_ not held

  BrokerClientOptions options_;
  std::unique_ptr<LineChannel> channel_;
  std::string study_kind_;
  int devices_ = 1;

  std::mutex send_mutex_;
  mutable std::mutex mutex_;
  std::map<int64_t, std::promise<PoolJobResult>> waiting_;
  int64_t next_id_ = 0;
  std::string stopped_;                          // non-empty: why no job can run any more
  std::map<std::string, WorkerStatus> workers_;  // by name, those that ran a job of this run
  PoolStats stats_;
  std::vector<std::string> events_;
  Clock::time_point started_ = Clock::now();
  Clock::time_point status_written_{};
  std::once_flag closed_;
  std::thread reader_;
};

}  // namespace headway::pool
