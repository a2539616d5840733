#pragma once
// The sim target: a simulated device and toolchain, so that the whole loop (screen, race,
// acceptance test, facts, rules, migration) runs in-process in tests, with no compiler and no
// timing. Sources follow the sim landscape (sim_landscape.h); a kernel's sim baseline takes
// baseline_over_floor x its memory floor; readings are true times with log-normal noise of
// coefficient cv, and the acceptance test pairs arms on a statistics::SimDevice. Everything is a
// deterministic function of sources, seeds and the configuration.
//
// Candidates that cheat (sim-cheat) pass their check and read fast, and are found out by
// the verification of their timed calls: a session's verify_arms names them, a paired device's
// verify_arms throws statistics::ArmDisqualified. A device given a budget of readings
// (SimTargetConfig::stop_after_readings) stops once it is spent: every later reading of any
// session or paired device of the target throws targets::DeviceStopped.
//
// With SimTargetConfig::devices, the device is a pool of that many simulated devices
// (sim_devices.h): each reading holds one for its simulated time, so that the loop's rounds at once
// (OptimizeOptions::concurrent_rounds) can be run and measured at the scale of a cluster,
// in-process. Sessions and paired devices may be used from several threads at once.
//
// Toolchains: any spec (default "sim-1") identifies as id "sim:<spec>", except one that starts
// with "missing", which is not found. Artifacts are kept in memory; their path is empty.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "targets/sim/sim_devices.h"
#include "targets/simulated_device.h"
#include "targets/target.h"

namespace headway::sim {

struct SimTargetConfig {
  double read_gbps = 50.0;  // the simulated read bandwidth (GB/s): the memory floor
  double decode_f8_gbps = 80.0;
  double decode_nvfp4_gbps = 60.0;
  double baseline_over_floor = 6.0;  // how far each kernel's baseline is from its floor
  double cv = 0.01;                  // reading noise, a fraction
  // Readings the device serves, over every session and paired device, before it stops; nullopt:
  // it never stops.
  std::optional<int64_t> stop_after_readings;
  // 0: readings take no time. N: a pool of N simulated devices, each reading holding one for its
  // simulated time times device_time_scale, in real time.
  int devices = 0;
  double device_time_scale = 1.0;
};

class SimTarget final : public targets::Target {
 public:
  explicit SimTarget(const std::string& toolchain_spec = "", const SimTargetConfig& config = {});

  std::string name() const override { return "sim"; }
  std::string toolchain() const override { return spec_; }
  targets::ToolchainInfo select_toolchain(const std::string& spec) override;
  const targets::ToolchainInfo& identity() const override { return info_; }
  targets::KernelLanguage kernel_language() const override {
    targets::KernelLanguage sim;
    sim.file_extension = ".sim";
    return sim;
  }

  targets::BuildOutcome build(const std::string& source,
                              const std::filesystem::path& cache_dir) override;
  // The cost model's prediction for a built source (sim_landscape.h).
  std::optional<double> static_cost(const targets::Artifact& artifact) const override;
  // Its times come from a model of a device, not from the host's cores.
  targets::CheckOutcome check(const KernelContract& kernel, const targets::Artifact& artifact,
                              const targets::CheckOptions& options) override;
  Result<std::unique_ptr<targets::Session>> start_session(
      const KernelContract& kernel, const std::vector<targets::Artifact>& artifacts,
      uint64_t seed) override;
  std::vector<targets::Timing> time_side_by_side(const KernelContract& kernel,
                                                 const std::vector<targets::Artifact>& artifacts,
                                                 int readings, uint64_t seed) override;
  Result<std::unique_ptr<statistics::PairedDevice>> paired_device(
      const KernelContract& kernel, const targets::Artifact& head,
      const targets::Artifact& candidate, uint64_t seed) override;
  statistics::DeviceFactory calibration_devices(
      const statistics::CalibrateRequest& request) override;
  std::optional<double> known_s0(const statistics::CalibrateRequest& request) const override;

  std::vector<targets::ChipFact> measure_facts(const targets::FactOptions& options) override;
  std::vector<std::string> floor_facts() const override;
  targets::KernelFloors floors(const KernelContract& kernel,
                               const std::map<std::string, double>& facts) const override;

  targets::TargetDocs docs() const override;
  std::string baseline_source(const KernelContract& kernel) const override;
  std::vector<targets::DocFile> design_files(const KernelContract& kernel) const override;

  // The true (noise-free) seconds of a built artifact on `kernel`.
  std::optional<double> true_seconds(const KernelContract& kernel,
                                     const targets::Artifact& artifact) const override;
  // Builds so far that were not served from the in-memory cache.
  int builds() const { return builds_; }
  // Readings served so far, over every session and paired device.
  int64_t readings() const { return readings_->load(); }
  // The simulated pool's use so far; nullopt without one (SimTargetConfig::devices 0).
  std::optional<SimDeviceUse> device_use() const;
  // Sets SimTargetConfig::stop_after_readings for the sessions and devices started from now on.
  void set_stop_after_readings(std::optional<int64_t> readings) {
    config_.stop_after_readings = readings;
  }

 private:
  targets::SimulatedArm arm(const KernelContract& kernel, const targets::Artifact& a) const;
  // How the sessions and paired devices started now read.
  targets::SimulatedReadings how_it_reads() const;

  SimTargetConfig config_;
  std::string baseline_wrong_;  // `:baseline-wrong=KERNEL`: that kernel's baseline cheats
  std::string spec_;
  targets::ToolchainInfo info_;
  std::set<std::string> built_;
  int builds_ = 0;
  // Shared with its sessions and paired devices.
  std::shared_ptr<std::atomic<int64_t>> readings_ = std::make_shared<std::atomic<int64_t>>(0);
  std::shared_ptr<SimDevices> devices_;
};

}  // namespace headway::sim
