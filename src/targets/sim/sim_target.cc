#include "targets/sim/sim_target.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/hash.h"
#include "common/rng.h"
#include "common/stats.h"
#include "statistics/betting_rule.h"
#include "statistics/sim_device.h"
#include "targets/error_diagnostics.h"
#include "targets/fact_names.h"
#include "targets/floors.h"
#include "targets/sim/sim_landscape.h"
#include "targets/toolchain_options.h"

namespace headway::sim {

namespace {

using targets::Artifact;

constexpr const char* kDocs = R"(# The sim target

A simulated device for tests. A candidate is text; its lines steer the model:

- `sim-x F`: the candidate takes F times the kernel's sim baseline time.
- `sim-best P_NAME v PENALTY`: each octave P_NAME is away from v costs PENALTY more time.
- `sim-build-error MESSAGE`: the candidate does not build.
- `sim-wrong`, `sim-crash`, `sim-hang`: the candidate fails its check; each may end in
  `when P_NAME=v`.
- `sim-cheat`: the candidate passes its check, but the verification of its timed calls
  disqualifies it; it may end in `when P_NAME=v` too.
- `sim-cost C`, `sim-cost-best P_NAME v PENALTY`: what the toolchain's cost model believes in
  place of `sim-x` and of P_NAME's `sim-best` line. Every candidate that builds has a static cost:
  its factor by the cost model's beliefs, within a few percent of error drawn from its text.

The design library (the same for every kernel) has the structure of real kernels': two large
gains (`blocked`, then `threaded`, about 5x in all, to 1.2x of the memory floor), many small ones
(three of the `tuned` design's knobs, 1.5-2.5% a step, 12% in all, to 1.05x of the floor),
variants that gain nothing (`tuned`'s P_ALIGN changes no time; its P_SPLIT=2 is 1% slower), a
design the chip cannot run (`wide` needs 512-bit vectors, which the simulated chip's fact
`isa.avx512f` says it lacks: it never builds), and a cost model that is honest but for two knobs
of `tuned`, whose best values it believes slower. Each kernel's baseline takes 6x its floor.

The toolchain spec is a name (default `sim-1`; one starting with `missing` is not found), and
may go on with options, each `:key=value`: `:stop-after=N`, the device stops
(targets::DeviceStopped) once it has served N readings; `:baseline-wrong=KERNEL`, that kernel's
baseline is found wrong when it is timed (it holds a `sim-cheat` line).
)";

// The design library of every kernel: the same four designs (kDocs says what they stand for).
constexpr const char* kBlocked = R"(// headway-design: blocked
// summary: rows in blocks of P_BLOCK, one activation load per block
// param P_BLOCK 1 2 4 8 default 2
//
sim-x 0.7
sim-best P_BLOCK 4 0.2
)";
constexpr const char* kThreaded = R"(// headway-design: threaded
// summary: P_THREADS threads over chunks of P_CHUNK rows
// param P_THREADS 1 2 4 default 1
// param P_CHUNK 8 16 32 default 8
//
sim-x 0.2
sim-best P_THREADS 4 0.6
sim-best P_CHUNK 16 0.05
sim-wrong when P_CHUNK=32
)";
// Knobs of the threaded kernel: three each worth 1.5-2.5% a step from its default to its best (12%
// in all), whose best values but one the cost model believes slower; one that changes nothing
// (P_ALIGN) and one whose other value is 1% slower (P_SPLIT).
constexpr const char* kTuned = R"(// headway-design: tuned
// summary: P_THREADS threads with tuned prefetch distance, unroll and tile
// param P_PREFETCH 1 2 4 8 default 1
// param P_UNROLL 1 2 4 8 default 1
// param P_TILE 16 32 64 128 default 16
// param P_ALIGN 16 32 64 default 16
// param P_SPLIT 1 2 default 1
//
sim-x 0.175
sim-best P_PREFETCH 4 0.02
sim-best P_UNROLL 4 0.015
sim-best P_TILE 64 0.025
sim-cost-best P_PREFETCH 1 0.1
sim-cost-best P_TILE 16 0.1
sim-best P_SPLIT 1 0.01
)";
constexpr const char* kWide = R"(// headway-design: wide
// summary: 512-bit vectors
// requires: avx512f
// param P_UNROLL 1 2 default 1
//
sim-x 0.5
sim-build-error '__m512' was not declared in this scope
)";

std::string hex_id(const std::string& toolchain, const std::string& source) {
  const std::string key = toolchain + '\n' + source;
  return fmt::format("{:016x}", stable_hash_bytes(key.data(), key.size()));
}

double baseline_seconds(const KernelContract& kernel, const SimTargetConfig& c) {
  return c.baseline_over_floor * static_cast<double>(kernel.bytes_to_move()) / (c.read_gbps * 1e9);
}

bool runs(const Artifact& a) { return a.meta.value("behaviour", "correct") == "correct"; }

constexpr const char* kCheatFound =
    "output is wrong in a timed call (simulated: the candidate cheats)";

bool cheats(const Artifact& a) { return a.meta.value("cheats", false); }

}  // namespace

SimTarget::SimTarget(const std::string& toolchain_spec, const SimTargetConfig& config)
    : config_(config),
      devices_(config.devices > 0
                   ? std::make_shared<SimDevices>(config.devices, config.device_time_scale)
                   : nullptr) {
  select_toolchain(toolchain_spec);
}

targets::SimulatedArm SimTarget::arm(const KernelContract& kernel, const Artifact& a) const {
  return {runs(a), *true_seconds(kernel, a), cheats(a)};
}

targets::SimulatedReadings SimTarget::how_it_reads() const {
  targets::HoldDevice hold;
  if (devices_) hold = [devices = devices_](double seconds) { devices->read(seconds); };
  return {config_.cv, targets::ReadingBudget(readings_, config_.stop_after_readings, "sim device"),
          kCheatFound, std::move(hold)};
}

std::optional<SimDeviceUse> SimTarget::device_use() const {
  return devices_ ? std::optional(devices_->use()) : std::nullopt;
}

targets::ToolchainInfo SimTarget::select_toolchain(const std::string& spec) {
  spec_ = spec.empty() ? "sim-1" : spec;
  info_ = {};
  baseline_wrong_.clear();
  for (const auto& [key, value, text] : targets::toolchain_options(spec_)) {
    if (key == "stop-after") {
      const std::optional<int64_t> readings = targets::count_value(value);
      if (!readings) {
        return info_ = targets::refused_toolchain(fmt::format(
                   "sim toolchain '{}': stop-after needs a whole number of readings of at least 1",
                   spec_));
      }
      config_.stop_after_readings = *readings;
    } else if (key == "baseline-wrong" && !value.empty()) {
      baseline_wrong_ = value;
    } else {
      return info_ = targets::refused_toolchain(fmt::format(
                 "sim toolchain '{}': '{}' is neither stop-after=N nor baseline-wrong=KERNEL",
                 spec_, text));
    }
  }
  return info_ = targets::simulated_toolchain(spec_, "sim", "sim");
}

targets::BuildOutcome SimTarget::build(const std::string& source, const std::filesystem::path&) {
  targets::BuildOutcome out;
  if (!info_.found) {
    out.status = targets::BuildOutcome::Status::kToolchainMissing;
    out.diagnostics = info_.error;
    return out;
  }
  const SimModel model = simulate_source(source);
  if (model.build_error) {
    out.diagnostics = *model.build_error;
    return out;
  }
  out.status = targets::BuildOutcome::Status::kBuilt;
  const std::string id = hex_id(info_.id, source);
  out.cached = !built_.insert(id).second;
  if (!out.cached) ++builds_;
  out.artifact = {id,
                  {},
                  {{"toolchain", info_.id},
                   {"time_factor", model.time_factor},
                   {"static_cost", model.static_cost},
                   {"behaviour", std::string(to_string(model.behaviour))},
                   {"cheats", model.cheats}}};
  return out;
}

targets::CheckOutcome SimTarget::check(const KernelContract& kernel, const Artifact& artifact,
                                       const targets::CheckOptions& options) {
  targets::CheckOutcome out;
  out.seed = options.seed.value_or(stable_hash_bytes(artifact.id.data(), artifact.id.size()));
  const std::string behaviour = artifact.meta.value("behaviour", "correct");
  out.kind = behaviour;
  if (behaviour == "wrong") {
    out.status = targets::CheckOutcome::Status::kIncorrect;
    out.description =
        fmt::format("call 1 (seed {}): out[0] = 1 but the reference is 0 (simulated)", out.seed);
  } else if (behaviour == "crash") {
    out.status = targets::CheckOutcome::Status::kCrashed;
    out.description = "call 1 crashed with SIGSEGV (simulated)";
  } else if (behaviour == "hang") {
    out.status = targets::CheckOutcome::Status::kTimedOut;
    out.description = "call 1 timed out (simulated)";
  } else {
    out.description =
        fmt::format("correct: {} on seeds {} and another (simulated)", kernel.name(), out.seed);
  }
  return out;
}

std::optional<double> SimTarget::true_seconds(const KernelContract& kernel,
                                              const Artifact& artifact) const {
  return baseline_seconds(kernel, config_) * artifact.meta.value("time_factor", 1.0);
}

Result<std::unique_ptr<targets::Session>> SimTarget::start_session(
    const KernelContract& kernel, const std::vector<Artifact>& artifacts, uint64_t seed) {
  std::vector<targets::SimulatedArm> arms;
  for (const auto& a : artifacts) arms.push_back(arm(kernel, a));
  return targets::simulated_session(artifacts, arms, seed, how_it_reads());
}

std::vector<targets::Timing> SimTarget::time_side_by_side(const KernelContract& kernel,
                                                          const std::vector<Artifact>& artifacts,
                                                          int readings, uint64_t seed) {
  return targets::time_simulated_side_by_side(start_session(kernel, artifacts, seed), artifacts,
                                              readings);
}

Result<std::unique_ptr<statistics::PairedDevice>> SimTarget::paired_device(
    const KernelContract& kernel, const Artifact& head, const Artifact& candidate, uint64_t seed) {
  return targets::simulated_paired_device(arm(kernel, head), arm(kernel, candidate), seed,
                                          how_it_reads());
}

statistics::DeviceFactory SimTarget::calibration_devices(
    const statistics::CalibrateRequest& request) {
  return statistics::sim_device_factory(request);
}

std::optional<double> SimTarget::known_s0(const statistics::CalibrateRequest& request) const {
  return statistics::s0_for_cv(request.cv);
}

std::vector<targets::ChipFact> SimTarget::measure_facts(const targets::FactOptions&) {
  const std::string method = "simulated: the sim target's configuration";
  return {{targets::kReadBandwidth, config_.read_gbps, "GB/s", 0.0, method},
          {targets::kDecodeF8, config_.decode_f8_gbps, "GB/s", 0.0, method},
          {targets::kDecodeNvfp4, config_.decode_nvfp4_gbps, "GB/s", 0.0, method},
          {targets::kNoiseFloor, 100.0 * config_.cv, "%", std::nullopt, method},
          // The simulated chip has no 512-bit vectors (the design library's `wide` needs them).
          {targets::isa_fact_name("avx512f"), 0.0, "", std::nullopt, method}};
}

std::vector<std::string> SimTarget::floor_facts() const {
  return {targets::kReadBandwidth, targets::kDecodeF8, targets::kDecodeNvfp4};
}

targets::KernelFloors SimTarget::floors(const KernelContract& kernel,
                                        const std::map<std::string, double>& facts) const {
  return targets::floors_from_rates(kernel, facts);
}

targets::TargetDocs SimTarget::docs() const {
  targets::TargetDocs d;
  d.files.push_back({"docs/targets/sim.md", kDocs});
  return d;
}

std::optional<double> SimTarget::static_cost(const targets::Artifact& artifact) const {
  const auto cost = artifact.meta.find("static_cost");
  if (cost == artifact.meta.end() || !cost->is_number()) return std::nullopt;
  return cost->get<double>();
}

std::string SimTarget::baseline_source(const KernelContract& kernel) const {
  return fmt::format("// the plain {} baseline (simulated)\nsim-x 1\n{}", kernel.name(),
                     kernel.name() == baseline_wrong_ ? "sim-cheat\n" : "");
}

std::vector<targets::DocFile> SimTarget::design_files(const KernelContract& kernel) const {
  std::vector<targets::DocFile> out;
  for (const auto& [name, text] : {std::pair{"blocked", kBlocked},
                                   {"threaded", kThreaded},
                                   {"tuned", kTuned},
                                   {"wide", kWide}}) {
    out.push_back({fmt::format("sim/designs/{}/{}.sim", kernel.name(), name), text});
  }
  return out;
}

}  // namespace headway::sim
