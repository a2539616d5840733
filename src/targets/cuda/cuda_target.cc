#include "targets/cuda/cuda_target.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <sstream>

#include "common/cache_dir.h"
#include "common/embedded.h"
#include "common/file_io.h"
#include "common/rng.h"
#include "common/stats.h"
#include "kernels/kernel_spec.h"
#include "targets/cuda/emulation.h"
#include "targets/cuda/runner_client.h"
#include "targets/cuda/runner_kernel.h"
#include "targets/error_diagnostics.h"
#include "targets/side_by_side.h"
#include "targets/spec_designs.h"

namespace headway::cuda {
namespace {

using targets::Artifact;
using targets::CheckOutcome;

constexpr double kReplyTimeoutSeconds = 120.0;
constexpr double kCheckTimeoutSeconds = 180.0;

// The GPU's info (`driver`'s: runner_client.h), or DeviceUnavailable with the runner's one line.
nlohmann::json require_gpu(const std::string& driver) {
  auto info = gpu_info(driver);
  if (!info) throw targets::DeviceUnavailable(info.error().message);
  return info.value();
}

std::vector<std::filesystem::path> paths_of(const std::vector<Artifact>& artifacts) {
  std::vector<std::filesystem::path> out;
  for (const auto& a : artifacts) out.push_back(a.path);
  return out;
}

// One reading as the runner reports it.
struct Reply {
  enum class Kind { kReading, kBreach, kFailure } kind = Kind::kFailure;
  int arm = -1;
  double seconds = 0.0;
  unsigned sm_mhz = 0;
  bool throttled = false;
  bool compared = false;  // the call was compared with the other arm's on the same inputs
  std::string reason;
};

Reply parse_reply(const std::string& line) {
  Reply r;
  std::istringstream in(line);
  std::string word;
  in >> word;
  if (word == "ok") {
    int throttled = 0, compared = 0;
    if (in >> r.seconds >> r.sm_mhz >> throttled && r.seconds > 0.0) {
      r.kind = Reply::Kind::kReading;
      r.throttled = throttled != 0;
      r.compared = (in >> compared) && compared != 0;
      return r;
    }
  } else if (word == "breach" || word == "fail") {
    in >> r.arm;
    std::getline(in >> std::ws, r.reason);
    r.kind = word == "breach" ? Reply::Kind::kBreach : Reply::Kind::kFailure;
    return r;
  }
  r.reason = "the cuda runner answered '" + line + "'";
  return r;
}

// A session over a runner in serve mode. Readings at a held-down SM clock are counted.
class CudaSession final : public targets::Session {
 public:
  CudaSession(std::unique_ptr<RunnerProcess> runner, int arms)
      : runner_(std::move(runner)), arms_(arms) {}
  int arms() const override { return arms_; }

  Result<double> reading(int i) override { return reading(i, false); }
  // `paired`: on the inputs of the reading just before, when that was another arm's, and
  // compared with it call for call (Reply::compared says whether it was).
  Result<double> reading(int i, bool paired) {
    auto line = runner_->request(fmt::format("read {}{}", i, paired ? " paired" : ""));
    if (!line) {
      lost_ = true;
      return line.error();
    }
    const Reply r = parse_reply(line.value());
    if (r.kind != Reply::Kind::kReading) {
      if (r.kind == Reply::Kind::kBreach && !breach_) breach_ = targets::ArmBreach{r.arm, r.reason};
      if (r.kind != Reply::Kind::kBreach) lost_ = true;
      return environment_error(r.reason);
    }
    ++readings_;
    compared_ += r.compared;
    if (r.throttled) ++throttled_;
    last_ = r;
    seconds_ += r.seconds;
    return r.seconds;
  }

  // The breach a reading reported, else the runner's verdict on every arm's last call; nothing
  // when the runner is lost (a device failure is not a broken rule).
  std::optional<targets::ArmBreach> verify_arms() override {
    if (breach_) return breach_;
    if (lost_) return std::nullopt;
    auto line = runner_->request("verify");
    if (!line) {  // the runner died computing references: no arm's doing we can name
      lost_ = true;
      return std::nullopt;
    }
    if (line.value() == "verified") return std::nullopt;
    const Reply r = parse_reply(line.value());
    breach_ = targets::ArmBreach{std::max(r.arm, 0), r.reason};
    return breach_;
  }

  nlohmann::json accounting() const override {
    return {{"timed_calls_seconds", seconds_},
            {"readings", readings_},
            {"compared_calls", compared_},
            {"throttled_readings", throttled_}};
  }
  const Reply& last() const { return last_; }

 private:
  std::unique_ptr<RunnerProcess> runner_;
  int arms_;
  int readings_ = 0, throttled_ = 0, compared_ = 0;
  double seconds_ = 0.0;
  Reply last_;
  std::optional<targets::ArmBreach> breach_;
  bool lost_ = false;
};

Result<std::unique_ptr<CudaSession>> open_session(const KernelContract& kernel,
                                                  const std::vector<Artifact>& artifacts,
                                                  uint64_t seed, const std::string& driver) {
  require_gpu(driver);
  const RunnerKernel named = runner_kernel(kernel);
  std::vector<std::string> args = {"serve", "--seed", std::to_string(seed)};
  args.insert(args.end(), named.args.begin(), named.args.end());
  std::vector<std::filesystem::path> readable = paths_of(artifacts);
  readable.insert(readable.end(), named.readable.begin(), named.readable.end());
  for (const auto& a : artifacts) {
    args.push_back("--module");
    args.push_back(a.path.string());
  }
  std::unique_ptr<RunnerProcess> runner;
  try {
    runner = std::make_unique<RunnerProcess>(args, readable, kReplyTimeoutSeconds, driver);
  } catch (const std::runtime_error& e) {
    return environment_error(e.what());
  }
  if (runner->first_line().rfind("ready", 0) != 0)
    return environment_error("cannot start the arms: " + runner->first_line());
  return std::make_unique<CudaSession>(std::move(runner), static_cast<int>(artifacts.size()));
}

// Head (arm 0) and candidate (arm 1) in one session. The candidate's readings are multiplied by
// `candidate_factor` (below 1: a known effect for calibration).
class CudaPairedDevice final : public statistics::PairedDevice {
 public:
  explicit CudaPairedDevice(std::unique_ptr<CudaSession> session, double candidate_factor = 1.0)
      : session_(std::move(session)), candidate_factor_(candidate_factor) {}
  void begin_pair() override { readings_in_pair_ = 0; }
  // The second reading of a pair runs on the first's inputs and is compared with it.
  double run_once(statistics::Arm arm, nlohmann::json* clock_out) override {
    const int i = arm == statistics::Arm::kHead ? 0 : 1;
    auto s = session_->reading(i, readings_in_pair_++ == 1);
    if (!s) {
      // A paired reading's breach may be the other arm's (its call, judged by the reference).
      if (auto breach = session_->verify_arms()) {
        throw statistics::ArmDisqualified(
            breach->arm == 0 ? statistics::Arm::kHead : statistics::Arm::kCandidate,
            breach->reason);
      }
      throw std::runtime_error(s.error().message);
    }
    if (clock_out) {
      *clock_out = {{"sm_mhz", session_->last().sm_mhz}, {"throttled", session_->last().throttled}};
    }
    if (session_->last().compared) ++compared_calls_;
    return i == 1 ? s.value() * candidate_factor_ : s.value();
  }
  int64_t verified_calls(statistics::Arm) const override { return compared_calls_; }
  void verify_arms() override {
    if (auto breach = session_->verify_arms()) {
      throw statistics::ArmDisqualified(
          breach->arm == 0 ? statistics::Arm::kHead : statistics::Arm::kCandidate, breach->reason);
    }
  }
  nlohmann::json accounting() const override { return session_->accounting(); }

 private:
  std::unique_ptr<CudaSession> session_;
  double candidate_factor_;
  int readings_in_pair_ = 2;  // readings since begin_pair (none begun: every reading is fresh)
  int64_t compared_calls_ = 0;
};

}  // namespace

std::string detected_arch() {
  auto info = gpu_info();
  return info ? info.value().value("arch", "") : "";
}

CudaTarget::CudaTarget(const std::string& toolchain_spec) { select_toolchain(toolchain_spec); }

std::string CudaTarget::device_model() const {
  auto info = gpu_info(driver_);
  return info ? info.value().value("name", "") : "";
}

void CudaTarget::use_pool(std::shared_ptr<pool::DevicePool> pool) {
  remote::RemoteOptions options;
  options.binary = remote::device_job_binary();
  options.target = name();
  options.toolchain = toolchain();
  remote_ = std::make_unique<remote::RemoteDevice>(std::move(pool), options);
}

targets::ToolchainInfo CudaTarget::select_toolchain(const std::string& spec) {
  spec_ = spec;
  if (emulated()) {
    nvcc_ = {};
    driver_ = stand_in_driver().string();
    info_ = identify_emulation();
    return info_;
  }
  driver_.clear();
  // The GPU is asked only when the spec leaves the architecture open.
  nvcc_ = toolchain_for(spec, spec.find('@') == std::string::npos ? detected_arch() : "");
  info_ = identify(nvcc_);
  return info_;
}

targets::BuildOutcome CudaTarget::build(const std::string& source,
                                        const std::filesystem::path& cache_dir) {
  if (emulated()) return build_emulated(info_, source, cache_dir);
  return build_module(nvcc_, info_, source, cache_dir);
}

CheckOutcome CudaTarget::check(const KernelContract& kernel, const Artifact& artifact,
                               const targets::CheckOptions& options) {
  if (remote_) return remote_->check(kernel, artifact, options);
  require_gpu(driver_);
  CheckOutcome out;
  out.seed = options.seed ? *options.seed : fresh_seed();
  const auto start = std::chrono::steady_clock::now();
  const RunnerKernel named = runner_kernel(kernel);
  std::vector<std::string> args = {"check", "--module", artifact.path.string(), "--seed",
                                   std::to_string(out.seed)};
  args.insert(args.end(), named.args.begin(), named.args.end());
  std::vector<std::filesystem::path> readable = {artifact.path};
  readable.insert(readable.end(), named.readable.begin(), named.readable.end());
  auto result = run_runner(args, readable, kCheckTimeoutSeconds, driver_);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result) {
    const bool timed_out = result.error().message.find("ran past") != std::string::npos;
    out.status = timed_out ? CheckOutcome::Status::kTimedOut : CheckOutcome::Status::kCrashed;
    out.kind = timed_out ? "timed-out" : "runner-failed";
    out.description = result.error().message;
    return out;
  }
  const nlohmann::json& j = result.value();
  const std::string status = j.value("status", "");
  out.kind = j.value("kind", status);
  out.description = j.value("description", "");
  out.details = j;
  if (status == "correct")
    out.status = CheckOutcome::Status::kCorrect;
  else if (status == "incorrect")
    out.status = CheckOutcome::Status::kIncorrect;
  else if (status == "unloadable")
    out.status = CheckOutcome::Status::kUnloadable;
  else
    out.status = CheckOutcome::Status::kCrashed;
  return out;
}

Result<std::unique_ptr<targets::Session>> CudaTarget::start_session(
    const KernelContract& kernel, const std::vector<Artifact>& artifacts, uint64_t seed) {
  if (remote_) return remote_->start_session(kernel, artifacts, seed);
  auto session = open_session(kernel, artifacts, seed, driver_);
  if (!session) return session.error();
  return std::unique_ptr<targets::Session>(std::move(session).value());
}

std::vector<targets::Timing> CudaTarget::time_side_by_side(const KernelContract& kernel,
                                                           const std::vector<Artifact>& artifacts,
                                                           int readings, uint64_t seed) {
  if (remote_) return remote_->time_side_by_side(kernel, artifacts, readings, seed);
  auto session = open_session(kernel, artifacts, seed, driver_);
  if (!session) {
    std::vector<targets::Timing> out(artifacts.size());
    for (auto& t : out) t.failure = session.error().message;
    return out;
  }
  return targets::read_side_by_side(*session.value(), artifacts, readings);
}

Result<std::unique_ptr<statistics::PairedDevice>> CudaTarget::paired_device(
    const KernelContract& kernel, const Artifact& head, const Artifact& candidate, uint64_t seed) {
  if (remote_) return remote_->paired_device(kernel, head, candidate, seed);
  auto session = open_session(kernel, {head, candidate}, seed, driver_);
  if (!session) return session.error();
  return std::unique_ptr<statistics::PairedDevice>(
      std::make_unique<CudaPairedDevice>(std::move(session).value()));
}

statistics::DeviceFactory CudaTarget::calibration_devices(
    const statistics::CalibrateRequest& request) {
  const KernelContract* kernel =
      builtin_kernel(request.kernel.empty() ? "attn_out" : request.kernel);
  if (!kernel) throw std::invalid_argument("unknown kernel '" + request.kernel + "'");
  if (!remote_) require_gpu(driver_);
  // With a pool, where its nodes find the module: the build cache, which they share.
  const auto cache = remote_ ? build_cache_dir() / "calibrate"
                             : std::filesystem::temp_directory_path() / "headway-cuda-calibration";
  const auto built = build(baseline_source(*kernel), cache);
  if (!built.built())
    throw std::runtime_error("the cuda baseline does not build: " + built.diagnostics);
  // Both arms run the baseline; a candidate truly e% faster has its readings scaled by 1 - e/100.
  const double factor = 1.0 - request.effect_pct / 100.0;
  const Artifact a = built.artifact;
  const uint64_t seed = request.seed;
  if (remote_) {
    return [this, kernel, a, seed, factor](int decision) {
      return remote_->paired_device(*kernel, a, a, seed + static_cast<uint64_t>(decision),
                                    statistics::Arm::kCandidate, factor - 1.0);
    };
  }
  return [kernel, a, seed, factor,
          driver = driver_](int decision) -> std::unique_ptr<statistics::PairedDevice> {
    auto session = open_session(*kernel, {a, a}, seed + static_cast<uint64_t>(decision), driver);
    if (!session) throw std::runtime_error(session.error().message);
    return std::make_unique<CudaPairedDevice>(std::move(session).value(), factor);
  };
}

std::vector<targets::ChipFact> CudaTarget::measure_facts(const targets::FactOptions& options) {
  if (remote_) return remote_->measure_facts(options);
  require_gpu(driver_);
  auto result = run_runner({"facts", "--readings", std::to_string(std::max(options.readings, 3))},
                           {}, 300.0, driver_);
  if (!result)
    throw std::runtime_error("cannot measure the GPU's facts: " + result.error().message);
  std::vector<targets::ChipFact> facts;
  for (const auto& f : result.value().at("facts")) {
    targets::ChipFact fact;
    fact.name = f.at("name").get<std::string>();
    fact.value = f.at("value").get<double>();
    fact.unit = f.value("unit", "");
    if (f.contains("spread")) fact.spread = f.at("spread").get<double>();
    fact.method = f.value("method", "");
    // An emulated device's figures are the host's: said with each fact.
    if (emulated()) fact.method = "emulated on host threads: " + fact.method;
    facts.push_back(std::move(fact));
  }
  return facts;
}

targets::KernelFloors CudaTarget::floors(const KernelContract& kernel,
                                         const std::map<std::string, double>& facts) const {
  const double gbps = facts.at(kCopyBandwidth);
  targets::KernelFloors f;
  f.memory_ms = static_cast<double>(kernel.bytes_to_move()) / (gbps * 1e9) * 1e3;
  return f;
}

targets::TargetDocs CudaTarget::docs() const {
  targets::TargetDocs d;
  for (std::string_view path :
       {"docs/targets/cuda.md", "kernels/cuda/designs/README.md", "docs/KERNELS.md"})
    d.files.push_back({std::string(path), std::string(embedded_file(path))});
  return d;
}

std::string CudaTarget::baseline_source(const KernelContract& kernel) const {
  if (is_builtin_kernel(kernel.name()))
    return std::string(embedded_file(fmt::format("kernels/cuda/baselines/{}.cu", kernel.name())));
  const KernelSpec* spec = kernel.spec();
  const std::filesystem::path* file = nullptr;
  if (spec) {
    if (auto it = spec->baselines.find("cuda"); it != spec->baselines.end()) file = &it->second;
  }
  if (!file) {
    fail_with(invalid_input(fmt::format(
        "kernel {} has no cuda baseline: the cuda target runs the built-in kernels ({}) and "
        "kernels whose spec names one (baselines.cuda = \"FILE\")",
        kernel.name(), fmt::join(builtin_kernel_names(), ", "))));
  }
  std::optional<std::string> text = read_file(*file);
  if (!text)
    fail_with(invalid_input(fmt::format("cannot read the cuda baseline {}", file->string())));
  return std::move(*text);
}

std::vector<targets::DocFile> CudaTarget::design_files(const KernelContract& kernel) const {
  std::vector<targets::DocFile> out;
  if (kernel.spec() && !is_builtin_kernel(kernel.name()))
    out = targets::spec_design_files(*kernel.spec(), "cuda");
  for (std::string_view path :
       embedded_files_under(fmt::format("kernels/cuda/designs/{}/", kernel.name())))
    out.push_back({std::string(path), std::string(embedded_file(path))});
  return out;
}

}  // namespace headway::cuda
