#pragma once
// The command target: a toolchain reached only through shell commands, described by a TOML
// manifest (manifest.h; format in docs/TARGETS.md). Its toolchain spec is the manifest's path.
//
// A candidate is built in a scratch copy of the user's kernel repository, one copy per
// candidate (<cache_dir>/command/<artifact id>/): the candidate's files are written into it
// (candidate_files.h: only editable files; anything else is rejected before the build), then
// the build command runs there, then the static_cost command when the manifest has one. The
// check command (the value oracle) runs in the same copy with HEADWAY_SEED set. Time readings
// come from jobs (job_runner.h) that run several copies at once; racing and the acceptance
// test read them through job_session.h. The floors use the manifest's memory bandwidth and each
// kernel's bytes (the manifest's, else the contract's). Chip facts are what the manifest
// declares: nothing is measured by headway itself.
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "targets/command/job_runner.h"
#include "targets/command/pack_manifest.h"
#include "targets/target.h"

namespace headway::command {

class CommandTarget final : public targets::Target {
 public:
  // `manifest_path` is the toolchain spec; an invalid manifest leaves the toolchain not found,
  // with the manifest's error (file and line) as the identity's error.
  explicit CommandTarget(const std::string& manifest_path);

  std::string name() const override { return "command"; }
  std::string toolchain() const override { return spec_; }
  targets::ToolchainInfo select_toolchain(const std::string& spec) override;
  const targets::ToolchainInfo& identity() const override { return info_; }

  targets::BuildOutcome build(const std::string& source,
                              const std::filesystem::path& cache_dir) override;
  // The manifest's [device] shares_host (a device reached from here is not timed on its cores
  // unless it says so).
  bool times_on_host() const override;
  std::optional<double> static_cost(const targets::Artifact& artifact) const override;
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
  std::vector<std::string> floor_facts() const override;
  targets::KernelFloors floors(const KernelContract& kernel,
                               const std::map<std::string, double>& facts) const override;

  targets::TargetDocs docs() const override;
  std::string baseline_source(const KernelContract& kernel) const override;
  std::vector<targets::DocFile> design_files(const KernelContract& kernel) const override;
  // The manifest's kernels: the built-in ones first, in their order, then its own, by name.
  std::vector<const KernelContract*> kernels(const KernelCatalog& catalog) const override;
  // The manifest's kernels that are not built in, by name: a spec's contract (read, its reference
  // built when first called for), else one that moves the bytes it states.
  std::vector<std::shared_ptr<const KernelContract>> declared_kernels() const override;
  targets::KernelLanguage kernel_language() const override;
  // The candidate's files (a bundle's, else the kernel's own file) in the manifest's repo.
  Result<SourceFiles> source_files(const KernelContract& kernel,
                                   const std::string& source) const override;
  // Check and time commands run on the pool's devices; builds, static costs and the toolchain's
  // version stay here.
  std::string pool_refusal() const override { return ""; }
  void use_pool(std::shared_ptr<pool::DevicePool> pool) override;

  // The parsed manifest; requires identity().found or a manifest that parsed.
  const PackManifest* manifest() const { return manifest_ ? &*manifest_ : nullptr; }
  // Jobs so far (nullptr before the first timing). They count against the manifest's budget for
  // the life of this object (selecting another manifest starts again).
  const JobRunner* jobs() const { return jobs_.get(); }

 private:
  const PackManifest& manifest_or_throw() const;
  // The job runner, created on first use next to the artifacts (<cache_dir>/command/jobs.log).
  JobRunner& job_runner(const targets::Artifact& any);

  std::string spec_;
  targets::ToolchainInfo info_;
  std::optional<PackManifest> manifest_;
  std::vector<std::shared_ptr<const KernelContract>> declared_;  // by name
  std::shared_ptr<pool::DevicePool> pool_;                       // null: device work runs here
  std::unique_ptr<JobRunner> jobs_;
  std::mutex jobs_mutex_;  // jobs_ is made by the first of the threads that time
};

}  // namespace headway::command
