#include "targets/cpu/cpu_target.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "common/embedded.h"
#include "targets/cpu/cpu_check.h"
#include "targets/cpu/cpu_chip_facts.h"
#include "targets/cpu/cpu_paired_device.h"
#include "targets/cpu/cpu_timing.h"
#include "targets/cpu/host_abi.h"
#include "targets/cpu/isa_facts.h"
#include "targets/cpu/microbenchmark.h"
#include "targets/error_diagnostics.h"
#include "targets/fact_names.h"
#include "targets/floors.h"

namespace headway::cpu {

namespace {

using targets::Artifact;
using targets::CheckOutcome;

constexpr std::string_view kSummaryPath = "docs/targets/cpu-summary.md";
constexpr std::string_view kDocPaths[] = {"docs/KERNELS.md", "kernels/designs/README.md"};

const char* check_kind(CheckReport::Status s) {
  switch (s) {
    case CheckReport::Status::kCorrect:
      return "correct";
    case CheckReport::Status::kIncorrect:
      return "incorrect";
    case CheckReport::Status::kForbiddenWrite:
      return "forbidden-write";
    case CheckReport::Status::kFailedToRun:
      return "failed-to-run";
    case CheckReport::Status::kLoadFailed:
      return "load-failed";
    case CheckReport::Status::kNoRunner:
      return "no-runner";
    case CheckReport::Status::kMisbehaved:
      return "misbehaved";
  }
  return "failed-to-run";
}

CheckOutcome::Status check_status(const CheckReport& r) {
  switch (r.status) {
    case CheckReport::Status::kCorrect:
      return CheckOutcome::Status::kCorrect;
    case CheckReport::Status::kIncorrect:
    case CheckReport::Status::kForbiddenWrite:
      return CheckOutcome::Status::kIncorrect;
    case CheckReport::Status::kLoadFailed:
      return CheckOutcome::Status::kUnloadable;
    case CheckReport::Status::kMisbehaved:
      return CheckOutcome::Status::kCheated;
    case CheckReport::Status::kNoRunner:
      throw std::runtime_error(r.describe());
    case CheckReport::Status::kFailedToRun:
      break;
  }
  return r.run.status == CallResult::Status::kTimedOut ? CheckOutcome::Status::kTimedOut
                                                       : CheckOutcome::Status::kCrashed;
}

std::vector<std::filesystem::path> paths_of(const std::vector<Artifact>& artifacts) {
  std::vector<std::filesystem::path> out;
  for (const auto& a : artifacts) out.push_back(a.path);
  return out;
}

// A TimedSession as a targets::Session: an arm that fails or breaks a rule is out.
class CpuSession final : public targets::Session {
 public:
  explicit CpuSession(std::unique_ptr<TimedSession> session) : session_(std::move(session)) {}
  int arms() const override { return session_->arms(); }
  Result<double> reading(int i) override {
    if (auto it = out_.find(i); it != out_.end()) return environment_error(it->second);
    const SessionReading r = session_->reading(i);
    if (r.ok()) return r.call.seconds;
    out_[i] = r.failure();
    return environment_error(out_[i]);
  }
  std::optional<targets::ArmBreach> verify_arms() override {
    if (auto cheat = session_->verify_sampled())
      return targets::ArmBreach{cheat->arm, cheat->reason};
    return std::nullopt;
  }
  nlohmann::json accounting() const override { return to_json(session_->costs()); }

 private:
  std::unique_ptr<TimedSession> session_;
  std::map<int, std::string> out_;  // arms out of the session, and why
};

}  // namespace

CpuTarget::CpuTarget(const std::string& toolchain_spec) { select_toolchain(toolchain_spec); }

targets::ToolchainInfo CpuTarget::select_toolchain(const std::string& spec) {
  toolchain_ = Toolchain{};
  if (!spec.empty()) toolchain_.cxx = spec;
  identity_ = identify(toolchain_);
  info_ = {identity_.found, identity_.error, identity_.version, identity_.id};
  return info_;
}

targets::BuildOutcome CpuTarget::build(const std::string& source,
                                       const std::filesystem::path& cache_dir) {
  const BuildResult built = build_candidate(toolchain_, identity_, source, cache_dir);
  targets::BuildOutcome out;
  out.diagnostics = built.diagnostics;
  out.cached = built.cached;
  out.seconds = built.seconds;
  switch (built.status) {
    case BuildResult::Status::kBuilt:
      out.status = targets::BuildOutcome::Status::kBuilt;
      out.artifact = {
          built.shared_object.stem().string(), built.shared_object, {{"toolchain", identity_.id}}};
      break;
    case BuildResult::Status::kCompileError:
      out.status = targets::BuildOutcome::Status::kCompileError;
      break;
    case BuildResult::Status::kToolchainMissing:
      out.status = targets::BuildOutcome::Status::kToolchainMissing;
      break;
  }
  return out;
}

CheckOutcome CpuTarget::check(const KernelContract& kernel, const Artifact& artifact,
                              const targets::CheckOptions& options) {
  CheckOptions cpu_options;
  cpu_options.seed = options.seed;
  const CheckReport report = check_candidate(kernel, artifact.path, cpu_options);
  CheckOutcome out;
  out.status = check_status(report);
  out.kind = check_kind(report.status);
  out.seed = report.seed;
  out.description = report.describe();
  out.seconds = report.seconds;
  out.details = {{"failed_call", report.failed_call}};
  if (!report.run.ok()) out.details["run"] = report.run.describe();
  return out;
}

Result<std::unique_ptr<targets::Session>> CpuTarget::start_session(
    const KernelContract& kernel, const std::vector<Artifact>& artifacts, uint64_t seed) {
  SessionOptions options;
  options.seed = seed;
  CallResult failure;
  auto session = TimedSession::start(kernel, paths_of(artifacts), options, &failure);
  if (!session)
    return environment_error(fmt::format("cannot start the session: {}", failure.describe()));
  return std::unique_ptr<targets::Session>(std::make_unique<CpuSession>(std::move(session)));
}

std::vector<targets::Timing> CpuTarget::time_side_by_side(const KernelContract& kernel,
                                                          const std::vector<Artifact>& artifacts,
                                                          int readings, uint64_t seed) {
  std::vector<targets::Timing> out;
  for (const TimingResult& r :
       cpu::time_side_by_side(kernel, paths_of(artifacts), readings, {}, seed)) {
    targets::Timing t;
    if (!r.ok()) t.failure = r.describe();
    t.cheated = r.cheat.has_value();
    t.seconds = r.seconds;
    t.median_seconds = r.median_seconds;
    t.cv = r.cv;
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::unique_ptr<measure::PairedDevice>> CpuTarget::paired_device(
    const KernelContract& kernel, const Artifact& head, const Artifact& candidate, uint64_t seed) {
  auto device = CpuPairedDevice::start(kernel, head.path, candidate.path, {}, seed);
  if (!device) return device.error();
  return std::unique_ptr<measure::PairedDevice>(std::move(device).value());
}

measure::DeviceFactory CpuTarget::calibration_devices(const measure::CalibrateRequest& request) {
  return cpu_calibration_device_factory(request);
}

std::vector<targets::ChipFact> CpuTarget::measure_facts(const targets::FactOptions& options) {
  std::vector<targets::ChipFact> facts = measure_chip_facts(options);
  for (auto& f : measure_isa_facts(toolchain_)) facts.push_back(std::move(f));
  return facts;
}

std::vector<std::string> CpuTarget::floor_facts() const {
  return {targets::kReadBandwidth, targets::kDecodeF8, targets::kDecodeNvfp4};
}

targets::KernelFloors CpuTarget::floors(const KernelContract& kernel,
                                        const std::map<std::string, double>& facts) const {
  return targets::floors_from_rates(kernel, facts);
}

targets::Diagnostic CpuTarget::normalize_diagnostic(std::string_view diagnostics) const {
  return {targets::normalize_diagnostic(diagnostics), targets::first_error_line(diagnostics)};
}

targets::TargetDocs CpuTarget::docs() const {
  targets::TargetDocs d;
  for (std::string_view path : kDocPaths)
    d.files.push_back({std::string(path), std::string(embedded_file(path))});
  d.summary_path = std::string(kSummaryPath);
  d.summary = std::string(embedded_file(kSummaryPath));
  return d;
}

std::string CpuTarget::baseline_source(const KernelContract& kernel) const {
  return std::string(host_abi(kernel).baseline_source());
}

std::vector<targets::DocFile> CpuTarget::design_files(std::string_view kernel) const {
  std::vector<targets::DocFile> out;
  for (std::string_view path : embedded_files_under(fmt::format("kernels/designs/{}/", kernel))) {
    out.push_back({std::string(path), std::string(embedded_file(path))});
  }
  return out;
}

std::string CpuTarget::microbenchmark_language() const {
  std::string flags;
  for (const auto& f : program_flags(toolchain_)) flags += " " + f;
  return fmt::format(
      "a C++ program (one file, the standard library and <immintrin.h> only), built "
      "with `{}{}` and run with no arguments",
      toolchain_.cxx, flags);
}

targets::MicrobenchmarkOutcome CpuTarget::run_microbenchmark(const std::string& source,
                                                             const std::filesystem::path& cache_dir,
                                                             double timeout_s) {
  return cpu::run_microbenchmark(toolchain_, identity_, source, cache_dir, timeout_s);
}

std::vector<targets::DocFile> CpuTarget::candidate_headers() const {
  std::vector<targets::DocFile> out;
  for (const auto& h : kCandidateHeaders)
    out.push_back({h.include_name, std::string(embedded_file(h.embedded_path))});
  return out;
}

}  // namespace headway::cpu
