#include "targets/cpu/cpu_target.h"

#include <fmt/format.h>

#include <fstream>
#include <map>

#include "common/cache_dir.h"
#include "common/embedded.h"
#include "kernels/declared_kernel.h"
#include "kernels/kernel_spec.h"
#include "targets/candidate_headers.h"
#include "targets/cpu/cpu_check.h"
#include "targets/cpu/cpu_chip_facts.h"
#include "targets/cpu/cpu_paired_device.h"
#include "targets/cpu/host_abi.h"
#include "targets/cpu/isa_facts.h"
#include "targets/cpu/microbenchmark.h"
#include "targets/error_diagnostics.h"
#include "targets/fact_names.h"
#include "targets/floors.h"
#include "targets/side_by_side.h"
#include "targets/spec_designs.h"

namespace headway::cpu {

namespace {

using targets::Artifact;
using targets::CheckOutcome;

constexpr std::string_view kSummaryPath = "docs/targets/cpu-summary.md";
constexpr std::string_view kDocPaths[] = {"docs/KERNELS.md", "kernels/designs/README.md"};

std::vector<std::filesystem::path> paths_of(const std::vector<Artifact>& artifacts) {
  std::vector<std::filesystem::path> out;
  for (const auto& a : artifacts) out.push_back(a.path);
  return out;
}

// A TimedSession as a targets::Session: an arm that fails or breaks a rule is out, and the first
// arm found breaking a rule (in a reading, or by the verification of kept calls) is the breach.
// A reading that follows another arm's runs on that reading's inputs
// (TimedSession::Inputs::kAsLastReading), so that consecutive readings of different arms (a
// race's rounds, side-by-side timings) are verified by comparing their calls pairwise, and only
// the calls the pair disagrees on need the reference; the reading after such a pair starts afresh.
class CpuSession final : public targets::Session {
 public:
  explicit CpuSession(std::unique_ptr<TimedSession> session) : session_(std::move(session)) {}
  int arms() const override { return session_->arms(); }
  Result<double> reading(int i) override {
    if (auto it = out_.find(i); it != out_.end()) return environment_error(it->second);
    const SessionReading r = session_->reading(i, TimedSession::Inputs::kAsLastReading);
    if (r.cheat) {
      note_cheat(*r.cheat);
      // The arm of the reading before, found wrong by this one's calls: this reading stands.
      if (r.cheat->arm != i && r.call.ok()) return r.call.seconds;
      return environment_error(r.cheat->reason);
    }
    if (r.ok()) return r.call.seconds;
    out_[i] = r.failure();
    return environment_error(out_[i]);
  }
  std::optional<targets::ArmBreach> verify_arms() override {
    if (breach_) return breach_;
    if (auto cheat = session_->verify_sampled()) note_cheat(*cheat);
    return breach_;
  }
  std::optional<targets::ArmBreach> verify_arm(int arm) override {
    if (!cheats_.count(arm)) {
      if (auto cheat = session_->verify_sampled(arm)) note_cheat(*cheat);
    }
    if (const auto it = cheats_.find(arm); it != cheats_.end())
      return targets::ArmBreach{arm, it->second};
    return std::nullopt;
  }
  nlohmann::json accounting() const override {
    nlohmann::json j = to_json(session_->costs());
    j["round_trip_seconds"] = session_->round_trip_seconds();
    return j;
  }

 private:
  std::unique_ptr<TimedSession> session_;
  // `cheat`'s arm is out; the session's breach, if it is the first.
  void note_cheat(const Misbehaviour& cheat) {
    out_[cheat.arm] = cheat.reason;
    cheats_.emplace(cheat.arm, cheat.reason);
    if (!breach_) breach_ = targets::ArmBreach{cheat.arm, cheat.reason};
  }
  std::map<int, std::string> out_;     // arms out of the session, and why
  std::map<int, std::string> cheats_;  // of those, the arms that broke a rule, and which
  std::optional<targets::ArmBreach> breach_;
};

}  // namespace

CpuTarget::CpuTarget(const std::string& toolchain_spec) { select_toolchain(toolchain_spec); }

targets::ToolchainInfo CpuTarget::select_toolchain(const std::string& spec) {
  toolchain_ = Toolchain{};
  if (!spec.empty()) toolchain_.cxx = spec;
  identity_ = identify(toolchain_);
  return identity_;
}

targets::BuildOutcome CpuTarget::build(const std::string& source,
                                       const std::filesystem::path& cache_dir) {
  return build_candidate(toolchain_, identity_, source, cache_dir);
}

CheckOutcome CpuTarget::check(const KernelContract& kernel, const Artifact& artifact,
                              const targets::CheckOptions& options) {
  if (remote_) return remote_->check(kernel, artifact, options);
  return check_candidate(kernel, artifact.path, options);
}

Result<std::unique_ptr<targets::Session>> CpuTarget::start_session(
    const KernelContract& kernel, const std::vector<Artifact>& artifacts, uint64_t seed) {
  if (remote_) return remote_->start_session(kernel, artifacts, seed);
  SessionOptions options;
  options.seed = seed;
  options.one_core = one_core_;
  CallResult failure;
  auto session = TimedSession::start(kernel, paths_of(artifacts), options, &failure);
  if (!session)
    return environment_error(fmt::format("cannot start the session: {}", failure.describe()));
  return std::unique_ptr<targets::Session>(std::make_unique<CpuSession>(std::move(session)));
}

std::vector<targets::Timing> CpuTarget::time_side_by_side(const KernelContract& kernel,
                                                          const std::vector<Artifact>& artifacts,
                                                          int readings, uint64_t seed) {
  if (remote_) return remote_->time_side_by_side(kernel, artifacts, readings, seed);
  auto session = start_session(kernel, artifacts, seed);
  if (!session) {
    std::vector<targets::Timing> out(artifacts.size());
    for (auto& t : out) t.failure = session.error().message;
    return out;
  }
  // No warm-up rounds: a TimedSession probes each arm before its first reading.
  return targets::read_side_by_side(*session.value(), artifacts, readings, 0);
}

Result<std::unique_ptr<statistics::PairedDevice>> CpuTarget::paired_device(
    const KernelContract& kernel, const Artifact& head, const Artifact& candidate, uint64_t seed) {
  if (remote_) return remote_->paired_device(kernel, head, candidate, seed);
  auto device = CpuPairedDevice::start(kernel, head.path, candidate.path, {}, seed);
  if (!device) return device.error();
  return std::unique_ptr<statistics::PairedDevice>(std::move(device).value());
}

statistics::DeviceFactory CpuTarget::calibration_devices(
    const statistics::CalibrateRequest& request) {
  if (!remote_) return cpu_calibration_device_factory(request);
  // Where the pool's nodes find the objects: the build cache, which they share.
  const CalibrationArms arms = cpu_calibration_arms(request, build_cache_dir() / "calibrate");
  const InjectedSlowdown slowdown = injected_slowdown(request.effect_pct);
  return [this, arms, slowdown, seed = request.seed](int decision) {
    return remote_->paired_device(*arms.kernel, arms.a, arms.b,
                                  seed + static_cast<uint64_t>(decision), slowdown.arm,
                                  slowdown.fraction);
  };
}

std::string CpuTarget::device_model() const {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const size_t start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

void CpuTarget::use_pool(std::shared_ptr<pool::DevicePool> pool) {
  remote::RemoteOptions options;
  options.binary = remote::device_job_binary();
  options.target = name();
  options.toolchain = toolchain();
  options.one_core = one_core_;
  remote_ = std::make_unique<remote::RemoteDevice>(std::move(pool), options);
}

std::vector<targets::ChipFact> CpuTarget::measure_facts(const targets::FactOptions& options) {
  if (remote_) return remote_->measure_facts(options);
  std::vector<targets::ChipFact> facts = measure_chip_facts(options);
  // No floor needs the instruction sets: measured only when one is asked for.
  if (!options.wants(targets::isa_fact_name(""), true)) return facts;
  for (auto& f : measure_isa_facts(toolchain_)) {
    if (options.wants(f.name)) facts.push_back(std::move(f));
  }
  return facts;
}

std::vector<std::string> CpuTarget::floor_facts() const {
  return {targets::kReadBandwidth, targets::kDecodeF8, targets::kDecodeNvfp4};
}

std::vector<std::string> CpuTarget::memory_floor_facts() const { return {targets::kReadBandwidth}; }

targets::KernelFloors CpuTarget::floors(const KernelContract& kernel,
                                        const std::map<std::string, double>& facts) const {
  return targets::floors_from_rates(kernel, facts);
}

targets::TargetDocs CpuTarget::docs() const {
  targets::TargetDocs d;
  for (std::string_view path : kDocPaths)
    d.files.push_back({std::string(path), std::string(embedded_file(path))});
  d.summary_path = std::string(kSummaryPath);
  d.summary = std::string(embedded_file(kSummaryPath));
  return d;
}

std::vector<const KernelContract*> CpuTarget::kernels(const KernelCatalog& catalog) const {
  std::vector<const KernelContract*> out = builtin_kernels();
  for (const KernelContract* k : catalog.added()) {
    if (k->spec() && k->spec()->baselines.contains("cpu")) out.push_back(k);
  }
  return out;
}

std::string CpuTarget::baseline_source(const KernelContract& kernel) const {
  return std::string(host_abi(kernel).baseline_source());
}

std::vector<targets::DocFile> CpuTarget::design_files(const KernelContract& kernel) const {
  std::vector<targets::DocFile> out;
  if (kernel.spec() && !is_builtin_kernel(kernel.name()))
    out = targets::spec_design_files(*kernel.spec(), "cpu");
  for (std::string_view path :
       embedded_files_under(fmt::format("kernels/designs/{}/", kernel.name()))) {
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
  return targets::candidate_headers(kCandidateHeaders);
}

}  // namespace headway::cpu
