#include "targets/cpu/cpu_paired_device.h"

#include <fmt/format.h>

#include <stdexcept>

#include "common/cache_flush.h"
#include "common/rng.h"
#include "statistics/device_accounting.h"
#include "targets/cpu/compiler.h"
#include "targets/cpu/host_abi.h"

namespace headway::cpu {

namespace {

constexpr int kCandidateArm = 1;

statistics::Arm arm_of(int index) {
  return index == 0 ? statistics::Arm::kHead : statistics::Arm::kCandidate;
}

}  // namespace

Result<std::unique_ptr<CpuPairedDevice>> CpuPairedDevice::start(
    const KernelContract& kernel, const std::filesystem::path& head,
    const std::filesystem::path& candidate, const ProcessLimits& limits, uint64_t seed) {
  SessionOptions options;
  options.limits = limits;
  options.seed = seed;
  CallResult failure;
  std::shared_ptr<TimedSession> session =
      TimedSession::start(kernel, {head, candidate}, options, &failure);
  if (!session) {
    return environment_error(
        fmt::format("cannot start the timing session: {}", failure.describe()));
  }
  return std::make_unique<CpuPairedDevice>(std::move(session));
}

double CpuPairedDevice::run_once(statistics::Arm arm, nlohmann::json* clock_out) {
  const int index = arm == statistics::Arm::kHead ? 0 : 1;
  // The second reading of a pair runs on the first's inputs, and is compared with it call by call.
  const int compared_before = session_->costs().compared_calls;
  const bool in_pair = readings_in_pair_ < 2;
  const SessionReading r =
      session_->reading(index, readings_in_pair_++ == 1 ? TimedSession::Inputs::kAsLastReading
                                                        : TimedSession::Inputs::kFresh);
  compared_calls_ += session_->costs().compared_calls - compared_before;
  if (in_pair && r.ok()) paired_calls_ += r.calls;
  if (r.cheat) throw statistics::ArmDisqualified(arm_of(r.cheat->arm), r.cheat->reason);
  if (!r.ok()) throw statistics::ArmDisqualified(arm, r.failure());
  if (clock_out) {
    *clock_out = {{"start_ns", r.call.start_ns},
                  {"runner_seconds", r.call.runner_seconds},
                  {"round_trip_seconds", session_->round_trip_seconds()}};
  }
  return arm == slowed_ ? r.call.seconds * (1.0 + slowdown_) : r.call.seconds;
}

int64_t CpuPairedDevice::verified_calls(statistics::Arm arm) const {
  return compared_calls_ +
         (arm == statistics::Arm::kCandidate ? session_->confirmed_calls(kCandidateArm) : 0);
}

bool CpuPairedDevice::run_confirming_reading() {
  readings_in_pair_ = 2;  // no pair is open: the next reading of a pair starts afresh
  const SessionReading r = session_->reading(kCandidateArm, TimedSession::Inputs::kConfirming);
  if (r.cheat) throw statistics::ArmDisqualified(arm_of(r.cheat->arm), r.cheat->reason);
  if (!r.ok()) throw statistics::ArmDisqualified(statistics::Arm::kCandidate, r.failure());
  return true;
}

void CpuPairedDevice::verify_arms() {
  if (auto cheat = session_->verify_sampled())
    throw statistics::ArmDisqualified(arm_of(cheat->arm), cheat->reason);
}

nlohmann::json to_json(const SessionCosts& c) {
  nlohmann::json j = {{"inputs_seconds", c.inputs},
                      {"input_bytes", c.input_bytes},
                      {"input_huge_page_bytes", c.input_bytes * c.input_huge_page_share},
                      {"reading_phase_seconds", c.reading_phase()},
                      {"process_start_seconds", c.process_start},
                      {"warm_up_seconds", c.warm_up},
                      {"timed_seconds", c.timed},
                      {"guard_seconds", c.guard.total()},
                      {"guard_steps_seconds",
                       {{"pause", c.guard.pause},
                        {"patch", c.guard.patch},
                        {"flush", c.guard.flush},
                        {"resume", c.guard.resume},
                        {"screen", c.guard.screen},
                        {"idle_watch", c.guard.idle_watch},
                        {"exit", c.guard.exit},
                        {"restore", c.guard.restore},
                        {"reset", c.guard.reset}}},
                      {"flush_instruction", to_string(best_flush_instruction())},
                      {"verification_seconds", c.verification},
                      {"readings", c.readings},
                      {"compared_calls", c.compared_calls},
                      {"disputed_calls", c.disputed_calls}};
  statistics::derive_shares(j);
  return j;
}

nlohmann::json CpuPairedDevice::accounting() const {
  nlohmann::json j = to_json(session_->costs());
  j["round_trip_seconds"] = session_->round_trip_seconds();
  j["paired_calls"] = paired_calls_;
  j["clock_disagreements"] = session_->clock_disagreements();
  j["unstamped_readings"] = session_->unstamped_readings();
  return j;
}

void CpuPairedDevice::set_injected_slowdown(statistics::Arm arm, double fraction) {
  slowed_ = arm;
  slowdown_ = fraction;
}

CalibrationArms cpu_calibration_arms(const statistics::CalibrateRequest& request,
                                     const std::filesystem::path& cache) {
  const std::string name = request.kernel.empty() ? "attn_out" : request.kernel;
  const KernelContract* kernel = builtin_kernel(name);
  if (!kernel) throw std::runtime_error(fmt::format("unknown kernel '{}'", name));
  const Toolchain toolchain;
  const ToolchainIdentity identity = identify(toolchain);
  const std::string source(host_abi(*kernel).baseline_source());
  // The copy differs by a comment only: a separately built object of the same code.
  const targets::BuildOutcome a = build_candidate(toolchain, identity, source, cache);
  const targets::BuildOutcome b =
      build_candidate(toolchain, identity, source + "\n// A/A copy\n", cache);
  if (a.status != targets::BuildOutcome::Status::kBuilt ||
      b.status != targets::BuildOutcome::Status::kBuilt) {
    throw std::runtime_error("cannot build the baseline for A/A calibration: " + a.diagnostics +
                             b.diagnostics);
  }
  return {kernel, a.artifact, b.artifact};
}

statistics::DeviceFactory cpu_calibration_device_factory(
    const statistics::CalibrateRequest& request) {
  const CalibrationArms arms = cpu_calibration_arms(
      request, std::filesystem::temp_directory_path() / "headway-calibrate-builds");
  const KernelContract* kernel = arms.kernel;
  SessionOptions options;
  options.seed = request.seed;
  CallResult failure;
  std::shared_ptr<TimedSession> session =
      TimedSession::start(*kernel, {arms.a.path, arms.b.path}, options, &failure);
  if (!session) throw std::runtime_error("cannot start the timing session: " + failure.describe());
  const InjectedSlowdown slowdown = injected_slowdown(request.effect_pct);
  return [session, slowdown](int) -> std::unique_ptr<statistics::PairedDevice> {
    auto device = std::make_unique<CpuPairedDevice>(session);
    device->set_injected_slowdown(slowdown.arm, slowdown.fraction);
    return device;
  };
}

InjectedSlowdown injected_slowdown(double effect_pct) {
  const double effect = effect_pct / 100.0;
  if (effect > 0) return {statistics::Arm::kHead, effect / (1.0 - effect)};
  if (effect < 0) return {statistics::Arm::kCandidate, -effect};
  return {};
}

}  // namespace headway::cpu
