#pragma once
// The cpu target as a measure::PairedDevice: head and candidate, each in its own runner process
// over the same input pages (TimedKernel::start_sharing_inputs), timed one reading at a time.
#include <filesystem>
#include <memory>
#include <string>

#include "measure/calibration.h"
#include "measure/pair_runner.h"
#include "targets/cpu/cpu_timing.h"

namespace headway::cpu {

class CpuPairedDevice final : public measure::PairedDevice {
 public:
  // Starts both runners on inputs from `seed` and runs one warm-up reading of each.
  // nullptr with *error set when either cannot start or its warm-up fails.
  static std::unique_ptr<CpuPairedDevice> start(const KernelContract& kernel,
                                                const std::filesystem::path& head,
                                                const std::filesystem::path& candidate,
                                                const ProcessLimits& limits, uint64_t seed,
                                                std::string* error);
  // One reading of `arm`; throws std::runtime_error when the run fails. With an injected
  // slowdown (set_injected_slowdown) the slowed arm's reading is stretched by that fraction.
  double run_once(measure::Arm arm, nlohmann::json* clock_out) override;

  // Makes `arm` slower by `fraction` of its measured time (a synthetic, known effect used to
  // check the power of the test on real noise).
  void set_injected_slowdown(measure::Arm arm, double fraction);

 private:
  CpuPairedDevice() = default;
  std::unique_ptr<TimedKernel> head_, candidate_;
  measure::Arm slowed_ = measure::Arm::kHead;
  double slowdown_ = 0.0;
};

// The calibration device maker for target "cpu" (register it under that name): builds the
// baseline of request.kernel (default attn_out) twice, as two separate objects (the A/A copy),
// and gives every decision a fresh CpuPairedDevice. A request with effect_pct e > 0 slows the
// head by e%, e < 0 slows the candidate by |e|%. Throws std::runtime_error with a clear message
// for an unknown kernel or a failed build.
measure::DeviceFactory cpu_calibration_device_factory(const measure::CalibrateRequest& request);

}  // namespace headway::cpu
