#pragma once
// The cpu target behind the Target interface: candidates are C++ sources built into shared
// objects by the host compiler (compiler.h), checked (cpu_check.h) and timed (timed_session.h,
// cpu_paired_device.h) in runner processes; chip facts come from the host microbenchmarks
// (cpu_chip_facts.h). An artifact's path is the shared object; its id is the object's name.
#include <memory>

#include "targets/cpu/compiler.h"
#include "targets/remote/remote_device.h"
#include "targets/target.h"

namespace headway::cpu {

class CpuTarget final : public targets::Target {
 public:
  // Selects `toolchain_spec` (a compiler; empty: g++) with the default flags.
  explicit CpuTarget(const std::string& toolchain_spec = "");

  std::string name() const override { return "cpu"; }
  std::string toolchain() const override { return toolchain_.cxx; }
  targets::ToolchainInfo select_toolchain(const std::string& spec) override;
  const targets::ToolchainInfo& identity() const override { return identity_; }

  targets::BuildOutcome build(const std::string& source,
                              const std::filesystem::path& cache_dir) override;
  // With a pool (use_pool) the device work runs on the pool's nodes (remote/remote_device.h).
  bool times_on_host() const override { return remote_ == nullptr; }
  std::string time_on_one_core(bool on) override {
    one_core_ = on;
    if (remote_) remote_->set_one_core(on);
    return "";
  }
  // /proc/cpuinfo's first "model name".
  std::string device_model() const override;
  std::vector<std::string> device_models() override {
    return remote_ ? remote_->device_models() : std::vector<std::string>{device_model()};
  }
  std::string pool_refusal() const override { return ""; }
  void use_pool(std::shared_ptr<pool::DevicePool> pool) override;
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

  std::vector<targets::ChipFact> measure_facts(const targets::FactOptions& options) override;
  std::string microbenchmark_language() const override;
  targets::MicrobenchmarkOutcome run_microbenchmark(const std::string& source,
                                                    const std::filesystem::path& cache_dir,
                                                    double timeout_s) override;
  std::vector<std::string> floor_facts() const override;
  std::vector<std::string> memory_floor_facts() const override;
  targets::KernelFloors floors(const KernelContract& kernel,
                               const std::map<std::string, double>& facts) const override;

  targets::TargetDocs docs() const override;
  // The built-in kernels, then every spec of the catalog with a cpu baseline.
  std::vector<const KernelContract*> kernels(const KernelCatalog& catalog) const override;
  std::string baseline_source(const KernelContract& kernel) const override;
  // A built-in kernel's embedded designs (kernels/designs/NAME/); a spec kernel's own designs
  // (its `[designs]` cpu files) and then the embedded ones of its name, if any.
  std::vector<targets::DocFile> design_files(const KernelContract& kernel) const override;
  std::vector<targets::DocFile> candidate_headers() const override;

  // The selected toolchain as the cpu runner files take it.
  const Toolchain& cpu_toolchain() const { return toolchain_; }

 private:
  Toolchain toolchain_;
  bool one_core_ = false;
  ToolchainIdentity identity_;
  std::unique_ptr<remote::RemoteDevice> remote_;  // null: the device work runs here
};

}  // namespace headway::cpu
