#pragma once
// The cuda target: the three built-in kernels, and kernels made from a spec that names a cuda
// baseline (runner_kernel.h), on an NVIDIA GPU. Candidates are CUDA sources built by nvcc
// into device modules (nvcc.h) that headway-cuda-runner loads, checks against the f64 reference
// and times with CUDA events, the L2 flushed before every reading (runner/runner_main.cc). No
// candidate code runs on the host. Builds need only nvcc; checks, timing and facts need a GPU and
// throw targets::DeviceUnavailable without one (docs/targets/cuda.md). With the toolchain spec
// "emulated" (emulation.h), candidates are built for host threads and run by the stand-in driver
// instead: a check of the machinery on any machine, whose timings are the host's.
#include <string>

#include "targets/cuda/emulation.h"
#include "targets/cuda/nvcc.h"
#include "targets/remote/remote_device.h"
#include "targets/target.h"

namespace headway::cuda {

// The fact the floors use: device-to-device copy bandwidth, bytes read plus written (GB/s).
inline constexpr const char* kCopyBandwidth = "copy_bandwidth";

class CudaTarget final : public targets::Target {
 public:
  explicit CudaTarget(const std::string& toolchain_spec = "");

  std::string name() const override { return "cuda"; }
  std::string toolchain() const override { return spec_; }
  targets::ToolchainInfo select_toolchain(const std::string& spec) override;
  const targets::ToolchainInfo& identity() const override { return info_; }
  const NvccToolchain& nvcc() const { return nvcc_; }
  bool emulated() const { return spec_ == kEmulatedSpec; }
  targets::KernelLanguage kernel_language() const override {
    targets::KernelLanguage cuda;
    cuda.file_extension = ".cu";
    return cuda;
  }

  targets::BuildOutcome build(const std::string& source,
                              const std::filesystem::path& cache_dir) override;
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
  // With a pool, checks, timing and facts run on the pool's nodes, each worker on the GPU its
  // allocation gives it (remote/remote_device.h); builds stay here.
  // The GPU's name as the driver gives it (the emulated toolchain's: the stand-in's), or "".
  std::string device_model() const override;
  std::vector<std::string> device_models() override {
    return remote_ ? remote_->device_models() : std::vector<std::string>{device_model()};
  }
  std::string pool_refusal() const override { return ""; }
  void use_pool(std::shared_ptr<pool::DevicePool> pool) override;

  std::vector<targets::ChipFact> measure_facts(const targets::FactOptions& options) override;
  std::vector<std::string> floor_facts() const override { return {kCopyBandwidth}; }
  // memory_ms: bytes_to_move at the copy bandwidth; no decode ceiling.
  targets::KernelFloors floors(const KernelContract& kernel,
                               const std::map<std::string, double>& facts) const override;

  targets::TargetDocs docs() const override;
  // A built-in kernel's embedded baseline, or the file its spec's `[baselines] cuda` names; throws
  // Failure (invalid input) for a kernel with neither.
  std::string baseline_source(const KernelContract& kernel) const override;
  // The embedded designs of the kernel's name (kernels/cuda/designs/<name>/), after a spec
  // kernel's own cuda designs (spec_designs.h).
  std::vector<targets::DocFile> design_files(const KernelContract& kernel) const override;
  std::vector<targets::DocFile> candidate_headers() const override {
    return cuda_candidate_headers();
  }

 private:
  std::string spec_;
  NvccToolchain nvcc_;
  std::string driver_;  // the driver the runner loads (runner_client.h): the stand-in's, emulated
  targets::ToolchainInfo info_;
  std::unique_ptr<remote::RemoteDevice> remote_;  // null: the device work runs here
};

// The architecture of the GPU present ("sm_90"), or "" when there is none.
std::string detected_arch();

}  // namespace headway::cuda
