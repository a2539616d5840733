#pragma once
// The cpu target as a statistics::PairedDevice: head (arm 0) and candidate (arm 1) of one
// TimedSession, each reading in a fresh sandboxed process. The two readings of a pair run on the
// same inputs, and every timed call of the second is compared with the first's
// (TimedSession::Inputs::kAsLastReading): each call of a pair is verified.
#include <filesystem>
#include <memory>
#include <string>

#include "common/result.h"
#include "statistics/calibration.h"
#include "statistics/pair_runner.h"
#include "targets/cpu/timed_session.h"
#include "targets/target.h"

namespace headway::cpu {

class CpuPairedDevice final : public statistics::PairedDevice {
 public:
  // Starts a session for the two objects with inputs from `seed`; an environment error when it
  // cannot start. Never null.
  static Result<std::unique_ptr<CpuPairedDevice>> start(const KernelContract& kernel,
                                                        const std::filesystem::path& head,
                                                        const std::filesystem::path& candidate,
                                                        const ProcessLimits& limits, uint64_t seed);
  // A device over a session that outlives it (calibration shares one across its decisions).
  explicit CpuPairedDevice(std::shared_ptr<TimedSession> session) : session_(std::move(session)) {}

  // One reading of `arm`. Throws statistics::ArmDisqualified when the arm fails or breaks a rule,
  // or when comparing it shows the pair's first arm wrong (then for that arm).
  // With an injected slowdown (set_injected_slowdown) the slowed arm's reading is stretched by
  // that fraction.
  double run_once(statistics::Arm arm, nlohmann::json* clock_out) override;
  void begin_pair() override { readings_in_pair_ = 0; }
  // Calls compared with the other arm's on the same inputs (each comparison verifies one call of
  // each arm), and the candidate's calls checked in its confirming readings.
  int64_t verified_calls(statistics::Arm arm) const override;
  // A reading of the candidate on inputs whose references the session keeps
  // (TimedSession::Inputs::kConfirming).
  bool run_confirming_reading() override;
  void verify_arms() override;
  nlohmann::json accounting() const override;

  // Makes `arm` slower by `fraction` of its measured time (a synthetic, known effect used to
  // check the power of the test on real noise).
  void set_injected_slowdown(statistics::Arm arm, double fraction);

 private:
  std::shared_ptr<TimedSession> session_;
  int readings_in_pair_ = 2;  // readings since begin_pair (none begun: every reading is fresh)
  int64_t compared_calls_ = 0;
  int64_t paired_calls_ = 0;  // timed calls of both arms' readings within pairs
  statistics::Arm slowed_ = statistics::Arm::kHead;
  double slowdown_ = 0.0;
};

// The session's costs as JSON: seconds per activity and the share of timed calls.
nlohmann::json to_json(const SessionCosts& costs);

// What a cpu calibration times: the baseline of request.kernel (default attn_out) built twice
// under `cache`, as two separate objects (the A/A copy). Throws std::runtime_error with a clear
// message for an unknown kernel or a failed build.
struct CalibrationArms {
  const KernelContract* kernel = nullptr;
  targets::Artifact a, b;
};
CalibrationArms cpu_calibration_arms(const statistics::CalibrateRequest& request,
                                     const std::filesystem::path& cache);

// A calibration's known effect as a slowdown of one arm: effect_pct e > 0 slows the head by
// e / (100 - e) (the candidate then takes e% less time), e < 0 slows the candidate by |e|%.
struct InjectedSlowdown {
  statistics::Arm arm = statistics::Arm::kHead;
  double fraction = 0.0;
};
InjectedSlowdown injected_slowdown(double effect_pct);

// The calibration device maker for target "cpu" (register it under that name): builds the
// baseline of request.kernel (default attn_out) twice, as two separate objects (the A/A copy),
// and runs every decision on one shared session. A request with effect_pct e > 0 slows the
// head by e%, e < 0 slows the candidate by |e|%. Throws std::runtime_error with a clear message
// for an unknown kernel or a failed build.
statistics::DeviceFactory cpu_calibration_device_factory(
    const statistics::CalibrateRequest& request);

}  // namespace headway::cpu
