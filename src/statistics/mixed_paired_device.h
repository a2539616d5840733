#pragma once
// One paired device over several: each pair runs on one of them, drawn uniformly and
// independently from a seeded stream when the pair begins. A kernel with several shape sets is
// judged this way (loop/acceptance.h): the acceptance test's pairs are drawn across its shape
// sets, so its decision is about the candidate against the head over the shape sets together
// (the mean log-ratio of a shape set drawn at random), with the test's error rates unchanged:
// the pairs stay independent and identically distributed.
#include <cstdint>
#include <memory>
#include <vector>

#include "common/rng.h"
#include "statistics/pair_runner.h"

namespace headway::statistics {

// The key of a reading's clock (Reading::clock) that holds the index of the device it ran on:
// the shape set, in the kernel's order (0: its first).
inline constexpr const char* kShapeSetKey = "shape_set";

class MixedPairedDevice final : public PairedDevice {
 public:
  // `devices` must not be empty. Readings before the first pair (a warm-up) go to the first.
  MixedPairedDevice(std::vector<std::unique_ptr<PairedDevice>> devices, uint64_t seed);
  // The device's reading; its clock, an object, also holds kShapeSetKey.
  double run_once(Arm arm, nlohmann::json* clock_out) override;
  int64_t now_ns() override;
  void begin_pair() override;
  // On a device drawn as a pair's is; false when that device has no such readings.
  bool run_confirming_reading() override;
  // Every device's, the first breach found wins.
  void verify_arms() override;
  // The devices' counts summed; -1 when none counts.
  int64_t verified_calls(Arm arm) const override;
  // The devices' accountings as one (sum_accountings, statistics/device_accounting.h), and
  // "pairs_per_device"; null when no device accounts.
  nlohmann::json accounting() const override;
  size_t current() const { return current_; }

 private:
  std::vector<std::unique_ptr<PairedDevice>> devices_;
  std::vector<int64_t> pairs_;
  Rng draw_;
  size_t current_ = 0;
};

}  // namespace headway::statistics
