#pragma once
// For the sim target's pool tests and benchmark: the optimize loop with a round per simulated
// device at once, on kernels declared for the run (`s0001`, ...), the design library proposing;
// the devices' use measured from the first round to the run's end.
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kernels/declared_kernel.h"
#include "knowledge/workspace_target.h"
#include "loop/kernel_registration.h"
#include "loop/library_proposer.h"
#include "loop/optimizer.h"
#include "store/test_temp_dir.h"
#include "targets/sim/sim_target.h"

namespace headway::sim::testing {

struct PoolLoopRun {
  loop::OptimizeSummary summary;
  SimDeviceUse use;             // from the first round to the end
  double wall_seconds = 0;      // the same span
  double loop_cpu_seconds = 0;  // this process's CPU time in that span (the devices sleep)
  // From devices busy at once sampled every 20 ms over the same span: the time until 90% of the
  // devices were first busy at once, the busy share until the budget was spent, and the time
  // from then to the end (the rounds in flight finishing) with the busy share over it.
  double ramp_seconds = 0;
  double busy_share_within_budget = 0;
  double drain_seconds = 0;
  double busy_share_in_drain = 0;
  double busy_share() const {
    return wall_seconds > 0 ? use.busy_seconds / (use.devices * wall_seconds) : 0;
  }
};

// Samples how many of the devices are busy, every 20 ms from start() to stop(), and integrates.
class BusySampler {
 public:
  using Clock = std::chrono::steady_clock;
  explicit BusySampler(const SimTarget& target) : target_(target) {}
  BusySampler(const BusySampler&) = delete;
  BusySampler& operator=(const BusySampler&) = delete;
  ~BusySampler() { stop(); }

  void start() {
    thread_ = std::thread([this] {
      std::unique_lock lock(mutex_);
      while (!stopping_) {
        samples_.push_back({Clock::now(), target_.device_use()->busy_now});
        stop_asked_.wait_for(lock, std::chrono::milliseconds(20));
      }
    });
  }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    stop_asked_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  // After stop(): devices-seconds busy over [from, to) over devices * (to - from).
  double busy_share(Clock::time_point from, Clock::time_point to, int devices) const {
    double busy = 0;
    for (size_t i = 0; i + 1 < samples_.size(); ++i) {
      const auto a = std::max(samples_[i].at, from);
      const auto b = std::min(samples_[i + 1].at, to);
      if (b > a) busy += samples_[i].busy * std::chrono::duration<double>(b - a).count();
    }
    const double span = std::chrono::duration<double>(to - from).count();
    return span > 0 ? busy / (devices * span) : 0;
  }
  // After stop(): the first sample at or after `from` with at least `busy` devices busy.
  std::optional<Clock::time_point> first_busy(Clock::time_point from, int busy) const {
    for (const auto& s : samples_) {
      if (s.at >= from && s.busy >= busy) return s.at;
    }
    return std::nullopt;
  }

 private:
  struct Sample {
    Clock::time_point at;
    int busy = 0;
  };
  const SimTarget& target_;
  std::mutex mutex_;
  std::condition_variable stop_asked_;
  bool stopping_ = false;
  std::vector<Sample> samples_;
  std::thread thread_;
};

// Optimizes `kernels` kernels of `bytes` each on a sim target of `devices` devices whose readings
// hold them `time_scale` times their simulated time, a round per device at once, for `budget`.
inline PoolLoopRun run_loop_on_sim_devices(int devices, int kernels, uint64_t bytes,
                                           double time_scale,
                                           std::chrono::duration<double> budget) {
  using Clock = std::chrono::steady_clock;
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  knowledge::set_workspace_target_name(ws, "sim");
  SimTargetConfig config;
  config.devices = devices;
  config.device_time_scale = time_scale;
  SimTarget target("", config);
  loop::OptimizeOptions options;
  options.kernels.clear();
  for (int i = 1; i <= kernels; ++i) {
    const std::string name = fmt::format("s{:04}", i);
    if (!options.catalog.declare(name, bytes)) throw std::runtime_error("cannot declare " + name);
    options.kernels.push_back(name);
  }
  // The kernels are registered (their baselines timed) before the run, a device's worth at once:
  // the loop registers them one at a time, and this measures its rounds.
  std::mutex build_mutex;
  const loop::BuildFn build = [&](const std::string& source) {
    std::lock_guard lock(build_mutex);
    return target.build(source, dir.path() / "builds");
  };
  loop::register_kernel(ws, target, *options.catalog.find_kernel(options.kernels[0]), build,
                        3);  // facts first
  std::vector<std::thread> registering;
  std::exception_ptr failed;
  const int threads = std::min(devices, kernels);
  for (int t = 0; t < threads; ++t) {
    registering.emplace_back([&, t] {
      try {
        auto own = store::Workspace::open(dir.path()).value();
        for (size_t k = 1 + static_cast<size_t>(t); k < options.kernels.size();
             k += static_cast<size_t>(threads)) {
          loop::register_kernel(own, target, *options.catalog.find_kernel(options.kernels[k]),
                                build, 3);
        }
      } catch (...) {
        std::lock_guard lock(build_mutex);
        if (!failed) failed = std::current_exception();
      }
    });
  }
  for (auto& t : registering) t.join();
  if (failed) std::rethrow_exception(failed);
  options.target = &target;
  options.budget = budget;
  options.concurrent_rounds = devices;
  options.baseline_readings = 3;
  const auto cpu_seconds = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  };
  std::optional<SimDeviceUse> first_use;
  Clock::time_point first_at;
  double first_cpu = 0;
  loop::LibraryProposer proposer(target);
  PoolLoopRun run;
  BusySampler sampler(target);
  sampler.start();
  const Clock::time_point budget_ends =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(budget);
  run.summary = loop::optimize(ws, proposer, options, [&](const loop::Progress& p) {
    if (!first_use && p.stage == "screen") {
      first_use = target.device_use();
      first_at = Clock::now();
      first_cpu = cpu_seconds();
    }
  });
  const SimDeviceUse end = *target.device_use();
  const Clock::time_point ended = Clock::now();
  sampler.stop();
  if (!first_use) return run;
  const auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  run.wall_seconds = seconds(ended - first_at);
  const auto busy_at_once = sampler.first_busy(first_at, (9 * devices + 9) / 10);
  run.ramp_seconds = seconds(busy_at_once.value_or(ended) - first_at);
  const Clock::time_point within = std::min(budget_ends, ended);
  run.busy_share_within_budget = sampler.busy_share(first_at, within, devices);
  run.drain_seconds = seconds(ended - within);
  run.busy_share_in_drain = sampler.busy_share(within, ended, devices);
  run.loop_cpu_seconds = cpu_seconds() - first_cpu;
  run.use = end;
  run.use.readings -= first_use->readings;
  run.use.busy_seconds -= first_use->busy_seconds;
  return run;
}

}  // namespace headway::sim::testing
