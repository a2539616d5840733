#include "targets/testing/loop_test_target_test_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/hash.h"
#include "common/rng.h"
#include "common/split_fields.h"
#include "statistics/sim_device.h"
#include "targets/error_diagnostics.h"
#include "targets/fact_names.h"
#include "targets/registry/registry.h"
#include "targets/simulated_device.h"
#include "targets/toolchain_options.h"

namespace headway::targets::testing {

// Names here are unique within src/targets/testing: the folder's test files may be compiled as
// one unit.
namespace {

constexpr double kLoopTestReadGbps = 50.0;
constexpr double kLoopTestBaselineOverFloor = 6.0;
constexpr double kLoopTestCv = 0.01;
constexpr const char* kLoopTestCheatFound =
    "output is wrong in a timed call (the candidate cheats: `cheats: yes`)";

constexpr const char* kLoopTestBlocked = R"(// headway-design: blocked
// summary: rows in blocks of P_BLOCK
// param P_BLOCK 1 2 4 8 default 2
//
time: 0.7
scale: P_BLOCK 1=1.4 2=1.2 8=1.2
)";
constexpr const char* kLoopTestThreaded = R"(// headway-design: threaded
// summary: P_THREADS threads over chunks of P_CHUNK rows
// param P_THREADS 1 2 4 default 1
// param P_CHUNK 8 16 32 default 8
//
time: 0.3
scale: P_THREADS 1=2.2 2=1.6
scale: P_CHUNK 8=1.05 32=1.05
fails: wrong if P_CHUNK=32
)";
constexpr const char* kLoopTestWide = R"(// headway-design: wide
// summary: 512-bit vectors
// param P_UNROLL 1 2 default 1
//
time: 0.5
build-error: 'wide_lanes' was not declared in this scope
)";

// What a candidate's lines say (kLoopTestTargetFormat).
struct LoopTestCandidate {
  double time = 1.0;
  double one_core = 1.0;  // `one-core: F`
  std::optional<double> static_cost;
  std::string build_error;  // the diagnostic; empty: it builds
  std::string fails;        // "wrong", "crash", "hang"; empty: it runs correctly
  bool cheats = false;
  bool cheats_when_paired = false;  // `cheats: when-paired`
};

std::vector<std::string> loop_test_words(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string loop_test_trimmed(std::string_view s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return "";
  return std::string(s.substr(a, s.find_last_not_of(" \t\r") - a + 1));
}

// Takes a trailing "if P_NAME=v" off `value`; false when the condition does not hold.
bool loop_test_condition_holds(std::string& value, const std::map<std::string, int>& params) {
  const size_t at = value.rfind(" if P_");
  if (at == std::string::npos) return true;
  const std::string condition = value.substr(at + 4);
  value = loop_test_trimmed(value.substr(0, at));
  const size_t eq = condition.find('=');
  if (eq == std::string::npos) return false;
  const auto it = params.find(condition.substr(0, eq));
  return it != params.end() && std::to_string(it->second) == condition.substr(eq + 1);
}

LoopTestCandidate read_loop_test_candidate(std::string_view source) {
  std::vector<std::string> lines;
  {
    std::istringstream in{std::string(source)};
    for (std::string line; std::getline(in, line);) lines.push_back(loop_test_trimmed(line));
  }
  std::map<std::string, int> params;  // first: conditions and scales may name any of them
  for (const auto& line : lines) {
    const auto w = loop_test_words(line);
    if (w.size() == 3 && w[0] == "#define" && w[1].rfind("P_", 0) == 0)
      params[w[1]] = std::atoi(w[2].c_str());
  }
  LoopTestCandidate c;
  double scale = 1.0;
  for (size_t i = 0; i < lines.size() && c.build_error.empty(); ++i) {
    const std::string& line = lines[i];
    auto error = [&](std::string_view message) {
      c.build_error = fmt::format("candidate:{}:1: error: {}\n", i + 1, message);
    };
    if (line.empty() || line.rfind("//", 0) == 0 || line.rfind("#define ", 0) == 0) continue;
    const size_t colon = line.find(':');
    const std::string key = line.substr(0, colon);
    std::string value = colon == std::string::npos ? "" : loop_test_trimmed(line.substr(colon + 1));
    if (key == "time") {
      const double f = std::strtod(value.c_str(), nullptr);
      if (!(f > 0.0 && std::isfinite(f)))
        error(fmt::format("time '{}' is not a number > 0", value));
      c.time = f;
    } else if (key == "one-core") {
      const double f = std::strtod(value.c_str(), nullptr);
      if (!(f > 0.0 && std::isfinite(f)))
        error(fmt::format("one-core '{}' is not a number > 0", value));
      c.one_core = f;
    } else if (key == "static-cost") {
      const double cost = std::strtod(value.c_str(), nullptr);
      if (!(cost > 0.0 && std::isfinite(cost)))
        error(fmt::format("static-cost '{}' is not a number > 0", value));
      c.static_cost = cost;
    } else if (key == "scale") {
      const auto w = loop_test_words(value);
      const auto param = w.empty() ? params.end() : params.find(w[0]);
      for (size_t k = 1; k < w.size(); ++k) {
        const size_t eq = w[k].find('=');
        if (eq == std::string::npos) error(fmt::format("scale '{}' is not v=f", w[k]));
        if (param != params.end() && w[k].substr(0, eq) == std::to_string(param->second))
          scale *= std::strtod(w[k].c_str() + eq + 1, nullptr);
      }
    } else if (key == "build-error" || key == "fails" || key == "cheats") {
      if (!loop_test_condition_holds(value, params)) continue;
      if (key == "build-error") {
        error(value);
      } else if (key == "cheats") {
        if (value != "yes" && value != "when-paired")
          error(fmt::format("cheats: '{}' is neither yes nor when-paired", value));
        (value == "yes" ? c.cheats : c.cheats_when_paired) = true;
      } else if (value == "wrong" || value == "crash" || value == "hang") {
        c.fails = value;
      } else {
        error(fmt::format("fails: '{}' is none of wrong, crash, hang", value));
      }
    } else {
      error(fmt::format("unknown line '{}'", line));
    }
  }
  c.time *= scale;
  return c;
}

bool loop_test_runs(const targets::Artifact& a) { return a.meta.value("fails", "").empty(); }
bool loop_test_cheats(const targets::Artifact& a, bool paired = false) {
  return a.meta.value("cheats", false) || (paired && a.meta.value("cheats_when_paired", false));
}

class LoopTestTarget final : public targets::Target {
 public:
  explicit LoopTestTarget(const std::string& spec) { select_toolchain(spec); }

  std::string name() const override { return std::string(kLoopTestTargetName); }
  std::string toolchain() const override { return spec_; }
  const targets::ToolchainInfo& identity() const override { return info_; }

  targets::ToolchainInfo select_toolchain(const std::string& spec) override {
    spec_ = spec.empty() ? "test-1" : spec;
    info_ = {};
    served_ = std::make_shared<std::atomic<int64_t>>(0);
    limit_.reset();
    requires_.clear();
    truth_hidden_ = false;
    shared_host_ = false;
    baseline_fault_ = {};
    bandwidths_ = {kLoopTestReadGbps};
    bandwidths_measured_ = 0;
    decodes_.clear();
    decodes_measured_ = 0;
    models_.clear();
    for (const auto& [key, value, text] : targets::toolchain_options(spec_)) {
      if (key == "stop-after" && targets::count_value(value)) {
        limit_ = targets::count_value(value);
      } else if (key == "requires" && !value.empty()) {
        requires_ = value;
      } else if (key == "truth" && value == "hidden") {
        truth_hidden_ = true;
      } else if (key == "host" && value == "shared") {
        shared_host_ = true;
      } else if (key == "baseline-cheats" && !value.empty()) {
        baseline_fault_ = {value, "cheats: yes"};
      } else if (key == "baseline-cheats-paired" && !value.empty()) {
        baseline_fault_ = {value, "cheats: when-paired"};
      } else if (key == "baseline-broken" && !value.empty()) {
        baseline_fault_ = {value, "build-error: 'broken_baseline' was not declared in this scope"};
      } else if (key == "bandwidths" && read_gbps(value, &bandwidths_)) {
        // read into bandwidths_
      } else if (key == "decodes" && read_gbps(value, &decodes_) && !decodes_.empty()) {
        // read into decodes_
      } else if (key == "models" && !value.empty()) {
        models_ = split_fields(value, ',');
      } else {
        return info_ = targets::refused_toolchain(fmt::format(
                   "toolchain '{}': '{}' is neither stop-after=N (N >= 1), requires=EXT, "
                   "truth=hidden, host=shared, baseline-cheats[-paired]=KERNEL, "
                   "baseline-broken=KERNEL, bandwidths=B1,B2,... (each > 0, or none), "
                   "decodes=D1,D2,... (each > 0) nor models=M1,M2,...",
                   spec_, text));
      }
    }
    return info_ = targets::simulated_toolchain(spec_, "loop test", kLoopTestTargetName);
  }

  targets::BuildOutcome build(const std::string& source, const std::filesystem::path&) override {
    targets::BuildOutcome out;
    if (!info_.found) {
      out.status = targets::BuildOutcome::Status::kToolchainMissing;
      out.diagnostics = info_.error;
      return out;
    }
    const LoopTestCandidate c = read_loop_test_candidate(source);
    if (!c.build_error.empty()) {
      out.diagnostics = c.build_error;
      return out;
    }
    const std::string key = info_.id + '\n' + source;
    const std::string id = fmt::format("{:016x}", stable_hash_bytes(key.data(), key.size()));
    out.status = targets::BuildOutcome::Status::kBuilt;
    out.cached = !built_.insert(id).second;
    out.artifact = {id,
                    {},
                    {{"time", c.time},
                     {"one_core", c.one_core},
                     {"fails", c.fails},
                     {"cheats", c.cheats},
                     {"cheats_when_paired", c.cheats_when_paired}}};
    if (c.static_cost) out.artifact.meta["static_cost"] = *c.static_cost;
    return out;
  }

  // `:bandwidths=` or `:decodes=` as the toolchain spec gives it: "none" (nothing) or positive
  // GB/s separated by commas, into `out`.
  static bool read_gbps(const std::string& value, std::vector<double>* out) {
    out->clear();
    if (value == "none") return true;
    for (const std::string& field : split_fields(value, ',')) {
      double gbps = 0.0;
      const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), gbps);
      if (ec != std::errc() || end != field.data() + field.size() || !(gbps > 0)) return false;
      out->push_back(gbps);
    }
    return !out->empty();
  }

  bool times_on_host() const override { return shared_host_; }
  std::string time_on_one_core(bool on) override {
    if (!shared_host_) return targets::Target::time_on_one_core(on);
    one_core_ = on;
    return "";
  }
  std::optional<double> static_cost(const targets::Artifact& artifact) const override {
    const auto cost = artifact.meta.find("static_cost");
    if (cost == artifact.meta.end()) return std::nullopt;
    return cost->get<double>();
  }

  targets::CheckOutcome check(const KernelContract& kernel, const targets::Artifact& artifact,
                              const targets::CheckOptions& options) override {
    targets::CheckOutcome out;
    out.seed = options.seed.value_or(stable_hash_bytes(artifact.id.data(), artifact.id.size()));
    const std::string fails = artifact.meta.value("fails", "");
    out.kind = fails.empty() ? "correct" : fails;
    if (fails == "wrong") {
      out.status = targets::CheckOutcome::Status::kIncorrect;
      out.description = fmt::format(
          "call 1 (seed {}): out[0] = 1 but the reference is 0 "
          "(`fails: wrong`)",
          out.seed);
    } else if (fails == "crash") {
      out.status = targets::CheckOutcome::Status::kCrashed;
      out.description = "call 1 crashed (`fails: crash`)";
    } else if (fails == "hang") {
      out.status = targets::CheckOutcome::Status::kTimedOut;
      out.description = "call 1 timed out (`fails: hang`)";
    } else {
      out.description = fmt::format("correct: {} on seed {} and another", kernel.name(), out.seed);
    }
    return out;
  }

  Result<std::unique_ptr<targets::Session>> start_session(
      const KernelContract& kernel, const std::vector<targets::Artifact>& artifacts,
      uint64_t seed) override {
    std::vector<targets::SimulatedArm> arms;
    for (const auto& a : artifacts) arms.push_back(arm(kernel, a));
    return targets::simulated_session(artifacts, arms, seed, readings());
  }

  std::vector<targets::Timing> time_side_by_side(const KernelContract& kernel,
                                                 const std::vector<targets::Artifact>& artifacts,
                                                 int readings, uint64_t seed) override {
    return targets::time_simulated_side_by_side(start_session(kernel, artifacts, seed), artifacts,
                                                readings);
  }

  Result<std::unique_ptr<statistics::PairedDevice>> paired_device(
      const KernelContract& kernel, const targets::Artifact& head,
      const targets::Artifact& candidate, uint64_t seed) override {
    return targets::simulated_paired_device(arm(kernel, head, true), arm(kernel, candidate, true),
                                            seed, readings());
  }

  statistics::DeviceFactory calibration_devices(const statistics::CalibrateRequest&) override {
    throw std::runtime_error("the loop's test target does not calibrate");
  }
  std::optional<double> known_s0(const statistics::CalibrateRequest&) const override {
    return std::nullopt;
  }

  std::string device_model() const override { return models_.empty() ? "" : models_.front(); }
  std::vector<std::string> device_models() override {
    return models_.empty() ? std::vector<std::string>{""} : models_;
  }

  std::vector<targets::ChipFact> measure_facts(const targets::FactOptions& options) override {
    if (bandwidths_.empty()) return {};
    // With `:models=`, the k-th model's measurement gives the k-th bandwidth, and nothing changes.
    const auto model = std::find(models_.begin(), models_.end(), options.model);
    if (!options.model.empty() && model != models_.end()) {
      const auto k = static_cast<size_t>(model - models_.begin());
      return {{targets::kReadBandwidth, bandwidths_[k % bandwidths_.size()], "GB/s", 0.0,
               "the loop's test target: the bandwidth of model " + options.model}};
    }
    const double gbps = bandwidths_[bandwidths_measured_++ % bandwidths_.size()];
    std::vector<targets::ChipFact> facts = {
        {targets::kReadBandwidth, gbps, "GB/s", 0.0,
         fmt::format("the loop's test target: the toolchain's bandwidths in turn ({} readings)",
                     options.readings)}};
    if (!decodes_.empty() && options.wants(targets::kDecodeF8)) {
      facts.push_back({targets::kDecodeF8, decodes_[decodes_measured_++ % decodes_.size()], "GB/s",
                       0.0, "the loop's test target: the toolchain's decode ceilings in turn"});
    }
    return facts;
  }
  std::vector<std::string> floor_facts() const override {
    if (decodes_.empty()) return {targets::kReadBandwidth};
    return {targets::kReadBandwidth, targets::kDecodeF8};
  }
  std::vector<std::string> memory_floor_facts() const override { return {targets::kReadBandwidth}; }
  targets::KernelFloors floors(const KernelContract& kernel,
                               const std::map<std::string, double>& facts) const override {
    const auto decode = facts.find(targets::kDecodeF8);
    return {memory_seconds(kernel, facts.at(targets::kReadBandwidth)) * 1e3,
            decode == facts.end()
                ? std::nullopt
                : std::optional<double>(memory_seconds(kernel, decode->second) * 1e3)};
  }

  targets::Diagnostic normalize_diagnostic(std::string_view diagnostics) const override {
    return {targets::normalize_diagnostic(diagnostics), targets::first_error_line(diagnostics)};
  }
  targets::TargetDocs docs() const override {
    targets::TargetDocs d;
    d.files.push_back({"docs/targets/loop-test.md", std::string(kLoopTestTargetFormat)});
    return d;
  }
  std::string baseline_source(const KernelContract& kernel) const override {
    return fmt::format("// the plain {} baseline\ntime: 1\nstatic-cost: 1\n{}", kernel.name(),
                       kernel.name() == baseline_fault_.first ? baseline_fault_.second + "\n" : "");
  }
  std::vector<targets::DocFile> design_files(const KernelContract& kernel) const override {
    std::vector<targets::DocFile> out;
    for (const auto& [name, text] : {std::pair{"blocked", kLoopTestBlocked},
                                     {"threaded", kLoopTestThreaded},
                                     {"wide", kLoopTestWide}}) {
      std::string design = text;
      if (!requires_.empty() && std::string_view(name) == "threaded") {
        const size_t after_summary = design.find('\n', design.find("// summary:")) + 1;
        design.insert(after_summary, "// requires: " + requires_ + "\n");
      }
      out.push_back({fmt::format("loop-test/designs/{}/{}.txt", kernel.name(), name), design});
    }
    return out;
  }
  std::optional<double> true_seconds(const KernelContract& kernel,
                                     const targets::Artifact& a) const override {
    if (truth_hidden_) return std::nullopt;
    return device_seconds(kernel, a);
  }

 private:
  static double memory_seconds(const KernelContract& kernel, double read_gbps) {
    return static_cast<double>(kernel.bytes_to_move()) / (read_gbps * 1e9);
  }
  // What the simulated device takes for an artifact, hidden or not.
  static double device_seconds(const KernelContract& kernel, const targets::Artifact& a) {
    return kLoopTestBaselineOverFloor * memory_seconds(kernel, kLoopTestReadGbps) *
           a.meta.value("time", 1.0);
  }

  // The device's readings, counted over every session and paired device started under the
  // toolchain selected, within its stop-after limit.
  targets::SimulatedReadings readings() const {
    return {kLoopTestCv,
            targets::ReadingBudget(served_, limit_, "loop's test device"),
            kLoopTestCheatFound,
            {}};
  }
  targets::SimulatedArm arm(const KernelContract& kernel, const targets::Artifact& a,
                            bool paired = false) const {
    const double one_core = one_core_ && !paired ? a.meta.value("one_core", 1.0) : 1.0;
    return {loop_test_runs(a), device_seconds(kernel, a) * one_core, loop_test_cheats(a, paired)};
  }

  std::string spec_;
  targets::ToolchainInfo info_;
  std::shared_ptr<std::atomic<int64_t>> served_;
  std::optional<int64_t> limit_;
  bool truth_hidden_ = false;  // `:truth=hidden`: true_seconds knows nothing, as on real devices
  bool shared_host_ = false;   // `:host=shared`: times_on_host, as the cpu target's
  bool one_core_ = false;      // time_on_one_core(true), with `:host=shared` only
  // `:baseline-cheats[-paired]=`: the kernel whose baseline cheats, and its `cheats:` value
  // `:baseline-cheats[-paired]=` or `:baseline-broken=`: the kernel whose baseline gets the line.
  std::pair<std::string, std::string> baseline_fault_;
  std::vector<double> bandwidths_;  // `:bandwidths=`: what measure_facts gives in turn
  size_t bandwidths_measured_ = 0;
  std::vector<double> decodes_;  // `:decodes=`: the decode ceilings measure_facts gives in turn
  size_t decodes_measured_ = 0;
  std::vector<std::string> models_;  // `:models=`: its devices' models (device_models)
  std::string requires_;         // `:requires=EXT`: the instruction-set extension "threaded" needs
  std::set<std::string> built_;  // the ids built so far: built again, they come back cached
};

}  // namespace

void register_loop_test_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    targets::register_target(std::string(kLoopTestTargetName), [](const std::string& spec) {
      return std::unique_ptr<targets::Target>(std::make_unique<LoopTestTarget>(spec));
    });
  });
}

namespace {

// Registered when the test binary starts, so that tests above the targets layer make it by name
// through the registry (targets::make_target). This file is linked into the test binary itself,
// not into the headway_core library, so its initializer runs.
const bool kLoopTestTargetRegistered = (register_loop_test_target(), true);

}  // namespace

std::unique_ptr<targets::Target> make_loop_test_target(const std::string& toolchain) {
  register_loop_test_target();
  return targets::make_target(kLoopTestTargetName, toolchain);
}

}  // namespace headway::targets::testing
