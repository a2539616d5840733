#include "targets/command/command_target.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "common/cache_dir.h"
#include "common/file_io.h"
#include "common/rng.h"
#include "common/stats.h"
#include "kernels/declared_kernel.h"
#include "kernels/spec_kernel.h"
#include "targets/command/candidate_files.h"
#include "targets/command/command_build.h"
#include "targets/command/command_runner.h"
#include "targets/command/job_session.h"
#include "targets/error_diagnostics.h"
#include "targets/fact_names.h"

namespace headway::command {

namespace fs = std::filesystem;
using targets::Artifact;
using targets::BuildOutcome;
using targets::CheckOutcome;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The last line of `output` that says something, for a one-line description.
std::string telling_line(const std::string& output) {
  std::string best;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.find("FAILED") != std::string::npos || line.find("error") != std::string::npos ||
        line.find("panicked") != std::string::npos || best.empty()) {
      best = line;
    }
  }
  return best.empty() ? "(no output)" : best;
}

}  // namespace

CommandTarget::CommandTarget(const std::string& manifest_path) { select_toolchain(manifest_path); }

targets::ToolchainInfo CommandTarget::select_toolchain(const std::string& spec) {
  // The device budget counts per target object: selecting the same manifest again (as a verb
  // does before its final timings) keeps the jobs counted so far.
  if (spec != spec_) jobs_.reset();
  spec_ = spec;
  info_ = {};
  manifest_.reset();
  declared_.clear();
  if (spec.empty()) {
    info_.error =
        "the command target needs a manifest (headway init WS --target command --manifest FILE)";
    info_.error_code = ErrorCode::kInvalidInput;
    return info_;
  }
  auto parsed = parse_manifest(spec);
  if (!parsed) {
    info_.error = parsed.error().message;
    info_.error_code = parsed.error().code;
    return info_;
  }
  manifest_ = std::move(parsed).value();
  for (const auto& [name, kernel] : manifest_->kernels) {
    if (is_builtin_kernel(name)) continue;
    // Read, not built: a spec's reference is built when first called for.
    std::shared_ptr<const KernelContract> contract;
    Result<void> declared = valid_kernel_name(name);
    if (declared && kernel.spec.empty()) {
      contract = std::make_shared<DeclaredKernel>(name, *kernel.bytes);
    } else if (declared) {
      auto loaded = load_spec_kernel(kernel.spec, build_cache_dir());
      if (loaded) contract = std::move(loaded).value();
      if (!loaded) declared = loaded.error();
    }
    if (!declared) {
      info_.error = fmt::format("{}: {}", manifest_->path.string(), declared.error().message);
      info_.error_code = ErrorCode::kInvalidInput;
      manifest_.reset();
      declared_.clear();
      return info_;
    }
    declared_.push_back(std::move(contract));
  }
  const CommandSpec& version = *manifest_->command("toolchain_version");
  // The version query runs the user's toolchain, not candidate code: no sandbox needed.
  CommandSpec unsandboxed = version;
  unsandboxed.sandbox = false;
  const ProcessResult r = run_command(*manifest_, unsandboxed, {manifest_->repo, {}, {}});
  if (!r.ok()) {
    info_.error =
        fmt::format("{}:{}: the toolchain_version command {}: {}", manifest_->path.string(),
                    version.line, describe_failure(r, version.timeout_seconds), excerpt(r.output));
    return info_;
  }
  std::smatch m;
  if (!std::regex_search(r.output, m, std::regex(version.parser->pattern))) {
    info_.error = fmt::format(
        "{}:{}: the toolchain_version output does not parse: {} matches nothing in: {}",
        manifest_->path.string(), version.line, version.parser->describe(), excerpt(r.output));
    return info_;
  }
  const std::string v = m.size() > 1 ? m[1].str() : m[0].str();
  info_.found = true;
  info_.version = fmt::format("{} {}", manifest_->name, v);
  info_.id = fmt::format("command:{}:{}", manifest_->name, v);
  return info_;
}

const PackManifest& CommandTarget::manifest_or_throw() const {
  if (!manifest_)
    throw std::runtime_error(info_.error.empty() ? "the command target has no manifest"
                                                 : info_.error);
  return *manifest_;
}

bool CommandTarget::times_on_host() const { return manifest_ && manifest_->shares_host; }

BuildOutcome CommandTarget::build(const std::string& source, const fs::path& cache_dir) {
  if (!info_.found) {
    BuildOutcome out;
    out.status = BuildOutcome::Status::kToolchainMissing;
    out.diagnostics = info_.error;
    return out;
  }
  return build_in_pack(*manifest_, info_.id, source, cache_dir);
}

std::optional<double> CommandTarget::static_cost(const Artifact& artifact) const {
  if (artifact.meta.is_object() && artifact.meta.contains("static_cost") &&
      artifact.meta["static_cost"].is_number()) {
    return artifact.meta["static_cost"].get<double>();
  }
  return std::nullopt;
}

CheckOutcome CommandTarget::check(const KernelContract& kernel, const Artifact& artifact,
                                  const targets::CheckOptions& options) {
  CheckOutcome out;
  const auto start = Clock::now();
  const PackManifest& m = manifest_or_throw();
  out.seed = options.seed ? *options.seed : fresh_seed();
  const std::string name(kernel.name());
  const auto entry = m.kernels.find(name);
  const CommandSpec& check = *m.command("check");
  CommandCall call{artifact.path,
                   {},
                   {{"HEADWAY_KERNEL", name},
                    {"HEADWAY_ENTRY", entry == m.kernels.end() ? name : entry->second.entry},
                    {"HEADWAY_SEED", std::to_string(out.seed)}}};
  const ProcessResult r = run_command(m, check, call, pool_.get());
  out.seconds = since(start);
  out.details = {{"output", r.output.substr(0, 4000)}};
  if (r.ok()) {
    out.description =
        fmt::format("correct: the check command passed for {} (seed {})", name, out.seed);
    return out;
  }
  out.kind = describe_failure(r, check.timeout_seconds);
  if (r.timed_out) {
    out.status = CheckOutcome::Status::kTimedOut;
  } else if (!r.started) {
    out.status = CheckOutcome::Status::kUnloadable;
  } else if (r.signal) {
    out.status = CheckOutcome::Status::kCrashed;
  } else {
    out.status = CheckOutcome::Status::kIncorrect;
  }
  out.description =
      fmt::format("the check command {} (seed {}): {}", out.kind, out.seed, telling_line(r.output));
  return out;
}

JobRunner& CommandTarget::job_runner(const Artifact& any) {
  std::lock_guard lock(jobs_mutex_);
  if (!jobs_) {
    const fs::path root = any.path.parent_path();
    jobs_ = std::make_unique<JobRunner>(manifest_or_throw(), root / "jobs", root / "jobs.log",
                                        pool_.get());
  }
  return *jobs_;
}

Result<std::unique_ptr<targets::Session>> CommandTarget::start_session(
    const KernelContract& kernel, const std::vector<Artifact>& artifacts, uint64_t seed) {
  if (artifacts.empty()) return invalid_input("a session needs at least one artifact");
  std::vector<fs::path> arms;
  for (const auto& a : artifacts) {
    if (a.path.empty() || !fs::exists(a.path / kBuiltMarker))
      return invalid_input(fmt::format("{} is not a built command-target artifact", a.id));
    arms.push_back(a.path);
  }
  JobRunner& runner = job_runner(artifacts.front());
  return std::unique_ptr<targets::Session>(std::make_unique<JobSession>(
      runner, std::string(kernel.name()), std::move(arms), seed, manifest_or_throw().max_arms));
}

std::vector<targets::Timing> CommandTarget::time_side_by_side(
    const KernelContract& kernel, const std::vector<Artifact>& artifacts, int readings,
    uint64_t seed) {
  std::vector<targets::Timing> out(artifacts.size());
  auto session = start_session(kernel, artifacts, seed);
  auto fail_all = [&](const std::string& why) {
    for (auto& t : out) t.failure = why;
    return out;
  };
  if (!session) return fail_all(session.error().message);
  try {
    for (int round = 0; round < readings; ++round) {
      for (size_t i = 0; i < artifacts.size(); ++i) {
        auto r = session.value()->reading(static_cast<int>(i));
        if (!r) return fail_all(fmt::format("arm {} failed: {}", i, r.error().message));
        out[i].seconds.push_back(r.value());
      }
    }
  } catch (const targets::DeviceStopped& e) {
    return fail_all(e.what());
  }
  for (auto& t : out) {
    t.median_seconds = median(t.seconds);
    t.cv = coefficient_of_variation(t.seconds);
  }
  return out;
}

Result<std::unique_ptr<statistics::PairedDevice>> CommandTarget::paired_device(
    const KernelContract& kernel, const Artifact& head, const Artifact& candidate, uint64_t seed) {
  for (const auto* a : {&head, &candidate}) {
    if (a->path.empty() || !fs::exists(a->path / kBuiltMarker))
      return invalid_input(fmt::format("{} is not a built command-target artifact", a->id));
  }
  return std::unique_ptr<statistics::PairedDevice>(std::make_unique<JobPairedDevice>(
      job_runner(head), std::string(kernel.name()), head.path, candidate.path, seed));
}

statistics::DeviceFactory CommandTarget::calibration_devices(
    const statistics::CalibrateRequest& request) {
  if (request.effect_pct != 0.0) {
    throw std::runtime_error(
        "the command target calibrates A/A decisions only (--effect 0): its device cannot be "
        "given a known effect");
  }
  const PackManifest& m = manifest_or_throw();
  std::vector<std::string> names;
  const KernelContract* contract = nullptr;
  for (const KernelContract* k : kernels(KernelCatalog())) {
    names.emplace_back(k->name());
    if (k->name() == request.kernel || (request.kernel.empty() && !contract)) contract = k;
  }
  if (!contract) {
    throw std::runtime_error(fmt::format("the pack {} has no kernel '{}' (it has: {})", m.name,
                                         request.kernel, fmt::join(names, ", ")));
  }
  const std::string kernel(contract->name());
  // Head and candidate are one build of the pack's own kernel: an A/A decision.
  const BuildOutcome built = build(baseline_source(*contract), build_cache_dir());
  if (!built.built()) {
    throw std::runtime_error(
        fmt::format("the {} baseline does not build: {}", kernel, excerpt(built.diagnostics, 300)));
  }
  JobRunner* runner = &job_runner(built.artifact);
  const fs::path path = built.artifact.path;
  const uint64_t seed = request.seed;
  return [runner, kernel, path, seed](int decision) -> std::unique_ptr<statistics::PairedDevice> {
    return std::make_unique<JobPairedDevice>(*runner, kernel, path, path,
                                             mix_seed(seed, static_cast<uint64_t>(decision)));
  };
}

std::vector<targets::ChipFact> CommandTarget::measure_facts(const targets::FactOptions&) {
  const PackManifest& m = manifest_or_throw();
  return {{targets::kReadBandwidth, m.read_gbps, "GB/s", std::nullopt,
           fmt::format("declared in the manifest {} ([device] read_gbps); not measured by headway",
                       m.path.string())}};
}

std::vector<std::string> CommandTarget::floor_facts() const { return {targets::kReadBandwidth}; }

targets::KernelFloors CommandTarget::floors(const KernelContract& kernel,
                                            const std::map<std::string, double>& facts) const {
  uint64_t bytes = kernel.bytes_to_move();
  if (manifest_) {
    auto it = manifest_->kernels.find(std::string(kernel.name()));
    if (it != manifest_->kernels.end() && it->second.bytes) bytes = *it->second.bytes;
  }
  targets::KernelFloors f;
  f.memory_ms = static_cast<double>(bytes) / (facts.at(targets::kReadBandwidth) * 1e9) * 1e3;
  return f;
}

targets::TargetDocs CommandTarget::docs() const {
  targets::TargetDocs d;
  if (!manifest_ || manifest_->docs.empty()) return d;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(manifest_->docs)) {
    if (e.is_regular_file() && (e.path().extension() == ".md" || e.path().extension() == ".txt"))
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    d.files.push_back({fs::relative(f, manifest_->docs).string(), read_file(f).value_or("")});
  return d;
}

std::string CommandTarget::baseline_source(const KernelContract& kernel) const {
  const PackManifest& m = manifest_or_throw();
  auto it = m.kernels.find(std::string(kernel.name()));
  if (it == m.kernels.end()) {
    throw std::runtime_error(
        fmt::format("the manifest {} has no [kernels.{}]", m.path.string(), kernel.name()));
  }
  return fmt::format("{}\n{}\n{}", targets::marker_line(m.language, "headway-kernel", it->first),
                     targets::marker_line(m.language, "headway-file", it->second.file),
                     read_file(m.repo / it->second.file).value_or(""));
}

std::vector<const KernelContract*> CommandTarget::kernels(const KernelCatalog& catalog) const {
  std::vector<const KernelContract*> out;
  if (!manifest_) return out;
  for (const KernelContract* k : builtin_kernels()) {
    if (manifest_->kernels.count(std::string(k->name()))) out.push_back(k);
  }
  // The manifest's own, which a verb's catalog holds (cli/cli_support.h) or not.
  (void)catalog;
  for (const auto& own : declared_) out.push_back(own.get());
  return out;
}

std::vector<std::shared_ptr<const KernelContract>> CommandTarget::declared_kernels() const {
  return declared_;
}

void CommandTarget::use_pool(std::shared_ptr<pool::DevicePool> pool) {
  pool_ = std::move(pool);
  jobs_.reset();  // the next job runner sends its jobs to the pool
}

Result<targets::Target::SourceFiles> CommandTarget::source_files(const KernelContract& kernel,
                                                                 const std::string& source) const {
  if (!manifest_) return not_found(info_.error);
  const PackManifest& m = *manifest_;
  const auto it = m.kernels.find(std::string(kernel.name()));
  auto files =
      candidate_files(source, it == m.kernels.end() ? "" : it->second.file, m.editable, m.language);
  if (!files) return files.error();
  SourceFiles out{m.repo, {}};
  for (auto& f : files.value()) out.files.emplace_back(std::move(f.path), std::move(f.text));
  return out;
}

targets::KernelLanguage CommandTarget::kernel_language() const {
  return manifest_ ? manifest_->language : PackManifest{}.language;
}

std::vector<targets::DocFile> CommandTarget::design_files(const KernelContract& kernel) const {
  std::vector<targets::DocFile> out;
  if (!manifest_ || manifest_->designs.empty()) return out;
  const fs::path dir = manifest_->designs / std::string(kernel.name());
  if (!fs::is_directory(dir)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    out.push_back({fs::relative(f, manifest_->pack).string(), read_file(f).value_or("")});
  return out;
}

}  // namespace headway::command
