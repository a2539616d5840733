#include "targets/cpu/cpu_paired_device.h"

#include <fmt/format.h>

#include <stdexcept>

#include "common/rng.h"
#include "targets/cpu/compiler.h"
#include "targets/cpu/host_abi.h"

namespace headway::cpu {

std::unique_ptr<CpuPairedDevice> CpuPairedDevice::start(const KernelContract& kernel,
                                                        const std::filesystem::path& head,
                                                        const std::filesystem::path& candidate,
                                                        const ProcessLimits& limits, uint64_t seed,
                                                        std::string* error) {
  std::unique_ptr<CpuPairedDevice> device(new CpuPairedDevice());
  CallResult failure;
  device->head_ = TimedKernel::start(kernel, head, limits, seed, &failure);
  if (device->head_) device->candidate_ = TimedKernel::start_sharing_inputs(*device->head_, candidate, limits, &failure);
  if (!device->head_ || !device->candidate_) {
    *error = fmt::format("cannot start the {}: {}", device->head_ ? "candidate" : "head", failure.describe());
    return nullptr;
  }
  for (auto* k : {device->head_.get(), device->candidate_.get()}) {
    const CallResult warm = k->reading();
    if (!warm.ok()) {
      *error = fmt::format("warm-up of the {} failed: {}", k == device->head_.get() ? "head" : "candidate",
                           warm.describe());
      return nullptr;
    }
  }
  return device;
}

double CpuPairedDevice::run_once(measure::Arm arm, nlohmann::json* clock_out) {
  TimedKernel& k = arm == measure::Arm::kHead ? *head_ : *candidate_;
  const CallResult r = k.reading();
  if (!r.ok()) {
    throw std::runtime_error(fmt::format("the {} {}", measure::to_string(arm), r.describe()));
  }
  if (clock_out) *clock_out = {{"runner_start_ns", r.start_ns}};
  return arm == slowed_ ? r.seconds * (1.0 + slowdown_) : r.seconds;
}

void CpuPairedDevice::set_injected_slowdown(measure::Arm arm, double fraction) {
  slowed_ = arm;
  slowdown_ = fraction;
}

measure::DeviceFactory cpu_calibration_device_factory(const measure::CalibrateRequest& request) {
  const std::string name = request.kernel.empty() ? "attn_out" : request.kernel;
  const KernelContract* kernel = find_kernel(name);
  if (!kernel) throw std::runtime_error(fmt::format("unknown kernel '{}'", name));
  const Toolchain toolchain;
  const ToolchainIdentity identity = identify(toolchain);
  const std::string source(host_abi(*kernel).baseline_source());
  const auto cache = std::filesystem::temp_directory_path() / "headway-calibrate-builds";
  // The copy differs by a comment only: a separately built object of the same code.
  const BuildResult a = build_candidate(toolchain, identity, source, cache);
  const BuildResult b = build_candidate(toolchain, identity, source + "\n// A/A copy\n", cache);
  if (a.status != BuildResult::Status::kBuilt || b.status != BuildResult::Status::kBuilt) {
    throw std::runtime_error("cannot build the baseline for A/A calibration: " + a.diagnostics + b.diagnostics);
  }
  const double effect = request.effect_pct / 100.0;
  return [kernel, head = a.shared_object, copy = b.shared_object, effect,
          seed = request.seed](int decision) -> std::unique_ptr<measure::PairedDevice> {
    std::string error;
    auto device = CpuPairedDevice::start(*kernel, head, copy, {}, mix_seed(seed, static_cast<uint64_t>(decision)), &error);
    if (!device) throw std::runtime_error(error);
    if (effect > 0) device->set_injected_slowdown(measure::Arm::kHead, effect / (1.0 - effect));
    if (effect < 0) device->set_injected_slowdown(measure::Arm::kCandidate, -effect);
    return device;
  };
}

}  // namespace headway::cpu
