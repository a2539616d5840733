#pragma once
// One device pool served to many runs: `headway ablate` starts one pool for its study and a
// broker on it, and each run's `headway optimize` is a client of the broker (broker_client.h)
// instead of starting workers of its own. So a study of any size holds only as many devices as
// its pool has.
//
// The broker listens on 127.0.0.1 (the runs are processes on this machine) with a token in a
// file only the user can read. Each run connects once and sends its jobs; the broker keeps a
// queue per run and hands the pool's devices out fairly: at most devices() jobs are in the pool
// at once, and each device that comes free takes the next run's oldest job, round-robin over
// the runs that have jobs waiting, so a run with many jobs queued never starves one with few.
// A run whose connection closes (it ended, or was killed) has its queued jobs dropped; a job of
// it already on a device runs to its end and its result is dropped. The others lose nothing.
//
// Protocol (line_channel.h, one JSON object a line; "type" names the message):
//   run -> broker  {"type":"hello","token","name","protocol"}
//   broker -> run  {"type":"welcome","kind","devices"} | {"type":"refused","why"}
//   run -> broker  {"type":"job","id","job":pool_job.h's JSON}
//   broker -> run  {"type":"result","id","result":pool_job.h's job_result_to_json}
//                  | {"type":"result","id","stopped":why}   the pool stopped (PoolStopped)
//                  | {"type":"result","id","error":why}     the job could not be run
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/result.h"
#include "pool/device_pool.h"
#include "pool/line_channel.h"

namespace headway::pool {

inline constexpr int kBrokerProtocolVersion = 1;

class PoolBroker {
 public:
  // Listens on 127.0.0.1 on a port the system picks, writes a fresh token to
  // `folder`/broker-token (readable by the user only) and serves `pool` to whoever connects with
  // it. An Error when it cannot listen or write the token.
  static Result<std::unique_ptr<PoolBroker>> start(std::shared_ptr<DevicePool> pool,
                                                   const std::filesystem::path& folder);
  // Closes every run's connection (their pools stop), closes the pool (its jobs in flight end)
  // and waits for the broker's threads.
  ~PoolBroker();
  PoolBroker(const PoolBroker&) = delete;
  PoolBroker& operator=(const PoolBroker&) = delete;

  std::string address() const;  // "127.0.0.1:PORT"
  const std::filesystem::path& token_file() const { return token_file_; }
  DevicePool& pool() const { return *pool_; }

  // pool_status_json of the pool, each worker with "runs": the names of the runs whose jobs it
  // ran, and "runs": [{"name", "state" ("connected" or "gone"), "jobs", "queued", "running",
  // "dropped"}], in the order they connected.
  nlohmann::json status_json() const;

 private:
  struct Client;
  struct Waiting;
  PoolBroker(std::shared_ptr<DevicePool> pool, std::unique_ptr<Listener> listener,
             std::string token, std::filesystem::path token_file);
  void accept_loop();
  void admit(std::unique_ptr<LineChannel> channel);
  void read_loop(const std::shared_ptr<Client>& client);
  void dispatch_loop();
  // The next job and its run, round-robin over the runs with jobs queued; waits for one; nulls
  // when closing. `lock` holds mutex_.
  std::pair<std::shared_ptr<Client>, std::shared_ptr<Waiting>> next_job(
      std::unique_lock<std::mutex>& lock);

  std::shared_ptr<DevicePool> pool_;
  std::unique_ptr<Listener> listener_;
  std::string token_;
  std::filesystem::path token_file_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;  // a job queued, closing
  std::vector<std::shared_ptr<Client>> clients_;
  size_t next_client_ = 0;  // where the round-robin looks first
  std::map<std::string, std::set<std::string>> runs_by_worker_;
  bool closing_ = false;
  std::thread acceptor_;
  std::vector<std::thread> dispatchers_;
};

}  // namespace headway::pool
