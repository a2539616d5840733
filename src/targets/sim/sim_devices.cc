#include "targets/sim/sim_devices.h"

#include <algorithm>
#include <stdexcept>
#include <thread>

namespace headway::sim {

SimDevices::SimDevices(int devices, double time_scale)
    : devices_(devices), time_scale_(time_scale) {
  if (devices < 1) throw std::invalid_argument("a simulated pool needs at least one device");
  if (!(time_scale >= 0)) throw std::invalid_argument("the time scale must be 0 or more");
  use_.devices = devices;
}

void SimDevices::read(double simulated_seconds) {
  const auto held = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(simulated_seconds * time_scale_));
  {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [this] { return busy_ < devices_; });
    ++busy_;
    use_.most_busy_at_once = std::max(use_.most_busy_at_once, busy_);
  }
  const auto start = Clock::now();
  std::this_thread::sleep_until(start + held);
  const double busy = std::chrono::duration<double>(Clock::now() - start).count();
  {
    std::lock_guard lock(mutex_);
    --busy_;
    ++use_.readings;
    use_.busy_seconds += busy;
  }
  freed_.notify_one();
}

SimDeviceUse SimDevices::use() const {
  std::lock_guard lock(mutex_);
  SimDeviceUse u = use_;
  u.busy_now = busy_;
  u.held_seconds = devices_ * std::chrono::duration<double>(Clock::now() - made_).count();
  return u;
}

}  // namespace headway::sim
