#include "statistics/pair_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <stdexcept>

namespace headway::statistics {

PairedDevice::~PairedDevice() = default;

int64_t PairedDevice::now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

double take(PairedDevice& device, Arm arm, int position, const PairLabel& label,
            ReadingSink& sink) {
  Reading r;
  r.kernel = label.kernel;
  r.node = label.node;
  r.test_id = label.test_id;
  r.pair_index = label.pair_index;
  r.position = position;
  r.arm = arm;
  r.start_ns = device.now_ns();
  r.seconds = device.run_once(arm, &r.clock);
  if (!std::isfinite(r.seconds) || r.seconds <= 0.0) {
    throw std::runtime_error(fmt::format("device returned an invalid duration {} s for the {}",
                                         r.seconds, to_string(arm)));
  }
  const double seconds = r.seconds;
  sink.record(r);
  return seconds;
}

}  // namespace

PairResult run_pair_ordered(PairedDevice& device, Arm first, const PairLabel& label,
                            ReadingSink& sink) {
  device.begin_pair();
  const double t_first = take(device, first, 0, label, sink);
  const double t_second = take(device, other(first), 1, label, sink);
  const double t_head = first == Arm::kHead ? t_first : t_second;
  const double t_candidate = first == Arm::kHead ? t_second : t_first;
  return PairResult{std::log(t_candidate) - std::log(t_head), first};
}

PairResult run_pair(PairedDevice& device, Rng& coin, const PairLabel& label, ReadingSink& sink) {
  const Arm first = coin.coin() ? Arm::kCandidate : Arm::kHead;
  return run_pair_ordered(device, first, label, sink);
}

}  // namespace headway::statistics
