#pragma once
// The sim target's devices when it simulates a pool of them (SimTargetConfig::devices): each
// reading takes one device for its simulated time, as a worker of a real pool runs one job at a
// time, and waits while every device is taken. What they did is accounted as a pool's is
// (pool::PoolStats): readings, the time the devices were held and the time they were busy.
// Thread-safe.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace headway::sim {

struct SimDeviceUse {
  int devices = 0;
  int64_t readings = 0;
  double held_seconds = 0;  // devices times the time since the devices were made
  double busy_seconds = 0;  // readings' simulated time
  int most_busy_at_once = 0;
  int busy_now = 0;  // devices busy at the moment the use was read
  double busy_share() const { return held_seconds > 0 ? busy_seconds / held_seconds : 0; }
};

class SimDevices {
 public:
  // `devices` >= 1; a reading of t simulated seconds holds its device t * time_scale real
  // seconds.
  SimDevices(int devices, double time_scale);
  SimDevices(const SimDevices&) = delete;
  SimDevices& operator=(const SimDevices&) = delete;

  // Takes a device (waiting for one to be free), holds it for the reading and gives it back.
  void read(double simulated_seconds);
  SimDeviceUse use() const;

 private:
  using Clock = std::chrono::steady_clock;
  const int devices_;
  const double time_scale_;
  const Clock::time_point made_ = Clock::now();
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  int busy_ = 0;
  SimDeviceUse use_;
};

}  // namespace headway::sim
