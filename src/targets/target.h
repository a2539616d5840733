#pragma once
// A target: one kind of device with its toolchain. The loop, knowledge, measurement and the CLI
// speak only to this interface; implementations (cpu, sim, and later command, cuda) live in
// targets/<name>/ behind the registry (targets/registry/registry.h).
//
// A target builds candidate sources into artifacts, checks an artifact against the kernel's
// contract in isolation, times artifacts side by side, pairs two artifacts on one device for the
// acceptance test, measures chip facts and derives each kernel's floor from them, normalizes its
// toolchain's diagnostics for the legality rules, and carries its docs, baselines and design
// library. Artifacts are opaque to callers: an id, a location and target-specific metadata.
//
// Thread-safety: a Target is used by one thread at a time, except that one given a device pool
// (use_pool) takes check, start_session, time_side_by_side, paired_device and static_cost from
// several threads at once, also while another thread builds. Expected failures (a compile error, a
// wrong result, a crash of the candidate) are values; exceptions are for environment failures.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "kernels/contract.h"
#include "kernels/kernel_catalog.h"
#include "pool/device_pool.h"
#include "statistics/calibration.h"
#include "statistics/pair_runner.h"
#include "targets/kernel_language.h"

namespace headway::targets {

// Which toolchain a target uses and what it reports about itself.
struct ToolchainInfo {
  bool found = false;
  std::string error;    // !found: why the toolchain could not be identified
  std::string version;  // one line, for people (e.g. the compiler's first --version line)
  std::string id;       // the version knowledge is keyed on (facts, rules, timings)
  // What the toolchain's figures are not, for people, where that is not what its target's name
  // says (e.g. the cuda target's emulation: host threads, not a GPU); empty for most.
  std::string caveat;
  // !found: what kind of failure that is: kEnvironment (a compiler or command that is missing or
  // fails) unless the target says it is the user's input (a manifest that does not parse).
  ErrorCode error_code = ErrorCode::kEnvironment;
};

// A built candidate. Only the target that built it interprets it.
struct Artifact {
  std::string id;              // stable for the same source and toolchain (a content hash)
  std::filesystem::path path;  // where it lives, when it is a file; may be empty
  nlohmann::json meta;         // target-specific description
};

struct BuildOutcome {
  enum class Status { kBuilt, kCompileError, kToolchainMissing } status = Status::kCompileError;
  Artifact artifact;        // kBuilt
  std::string diagnostics;  // the toolchain's output (kCompileError: its errors)
  bool cached = false;      // kBuilt from an earlier identical build
  double seconds = 0.0;
  bool built() const { return status == Status::kBuilt; }
};

struct CheckOutcome {
  enum class Status {
    kCorrect,
    kIncorrect,  // a wrong output, or a write where the kernel must not write
    kCrashed,    // died, exited, ran out of memory
    kTimedOut,
    kUnloadable,  // the artifact could not be loaded or started
    kCheated,     // broke a rule of the check: left work running after a call, a forged reply
  } status = Status::kCorrect;
  std::string kind;         // the target's own name for the outcome, e.g. "forbidden-write"
  uint64_t seed = 0;        // the seed of the inputs the check used first
  std::string description;  // one line for people
  nlohmann::json details;   // target-specific evidence (worst element, signal, ...)
  double seconds = 0.0;     // wall time of the whole check
  bool correct() const { return status == Status::kCorrect; }
};

struct CheckOptions {
  std::optional<uint64_t> seed;  // fixed inputs when set; fresh random inputs otherwise
  // The wall-clock seconds one call may take before it counts as timed out; the target's own
  // limit when unset.
  std::optional<double> call_timeout_seconds;
};

// Timed readings of one artifact.
struct Timing {
  std::string failure;          // non-empty: the run failed (or broke a rule) and the readings
                                // are incomplete
  bool cheated = false;         // the failure is a broken rule of timing
  std::vector<double> seconds;  // one per reading
  double median_seconds = 0.0;
  double cv = 0.0;            // coefficient of variation of the readings, a fraction
  nlohmann::json accounting;  // the session's Session::accounting() at its end, or null
  // The model of the device the readings were taken on (Target::device_model) where the target
  // knows it per timing (a pool's device jobs); empty: this process's device.
  std::string device_model = "";
  bool ok() const { return failure.empty(); }
};

// An arm found breaking the rules of timing (a wrong timed output, work outside its calls, a
// failure after it passed the check): its candidate is disqualified (node status cheated).
struct ArmBreach {
  int arm = 0;
  std::string reason;
};

// Several artifacts of one kernel loaded on one device over the same inputs, read one at a time
// in any order the caller chooses (racing). Readings of different arms never overlap.
class Session {
 public:
  virtual ~Session() = default;
  virtual int arms() const = 0;
  // One reading of arm `i` (0 <= i < arms()) in seconds, or an error: the arm failed or broke a
  // rule, and is out of the session.
  virtual Result<double> reading(int i) = 0;
  // Checks what the session kept of its readings (sampled outputs against the reference); the
  // first arm found breaking a rule, if any.
  virtual std::optional<ArmBreach> verify_arms() { return std::nullopt; }
  // Checks what the session kept of arm `arm`'s readings only, leaving the others' kept; its
  // breach, or nullopt. A session that cannot check one arm alone checks them all (verify_arms),
  // and its breach may then be another arm's.
  virtual std::optional<ArmBreach> verify_arm(int /*arm*/) { return verify_arms(); }
  // Where the session's time went so far (an object of "<activity>_seconds"), or null.
  virtual nlohmann::json accounting() const { return nullptr; }
};

// Thrown by a target's sessions and paired devices when the device cannot be used any more in
// this run: its budget (jobs, device minutes) is spent, or its jobs keep failing for reasons
// that are not the candidates'. Nothing measured after it counts; the loop ends its run.
class DeviceStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by a target whose device is not on this machine (the cuda target without a GPU) when
// something needs the device: checks, timing, facts. Builds do not.
class DeviceUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One chip fact as a target measures it; knowledge stores it under a toolchain id.
struct ChipFact {
  std::string name;  // targets/fact_names.h
  double value = 0.0;
  std::string unit;
  std::optional<double> spread;  // coefficient of variation of the readings (%), when known
  std::string method;            // how it was measured, one line
};

struct FactOptions {
  int max_threads = 0;    // <= 0: every core (targets with threads)
  int readings = 11;      // timed readings per benchmark
  int noise_repeats = 5;  // whole repeats for the run-to-run noise floor
  // Empty: every fact the target has. Else the facts wanted (e.g. floor_facts()): the target
  // measures at least these, and may skip the others.
  std::vector<std::string> only;
  // Whether the fact `name` is wanted (every fact when `only` is empty); with `prefix`, whether
  // any fact whose name starts with `name` is.
  bool wants(std::string_view name, bool prefix = false) const {
    if (only.empty()) return true;
    for (const auto& n : only) {
      if (prefix ? std::string_view(n).starts_with(name) : n == name) return true;
    }
    return false;
  }
  // Non-empty: measure on a device of this model (one of Target::device_models(); a pool's facts
  // job pinned to it). Empty: any device.
  std::string model = "";
};

// What became of a microbenchmark an agent wrote (Target::run_microbenchmark).
struct MicrobenchmarkOutcome {
  enum class Status {
    kRan,          // built and exited 0; `output` is what it printed
    kBuildFailed,  // `output`: the toolchain's diagnostics
    kRunFailed,    // crashed, exited non-zero or ran past its time; `output` and `failure` say
    kUnsupported,  // the target cannot run microbenchmarks; `failure` says why
  } status = Status::kUnsupported;
  std::string output;    // stdout and stderr, interleaved
  std::string failure;   // one line, for kRunFailed and kUnsupported
  double seconds = 0.0;  // wall time of the run (build excluded)
};

// The time a kernel cannot beat on this target, from chip facts.
struct KernelFloors {
  double memory_ms = 0.0;                // moving bytes_to_move() at the read bandwidth
  std::optional<double> instruction_ms;  // decoding the weights at the decode ceiling, if known
};

// A toolchain diagnostic reduced for the legality rules.
struct Diagnostic {
  std::string signature;  // abstracted first error (paths, numbers, names); empty: no error line
  std::string line;       // the first error as the toolchain wrote it
};

// A file of the target's documentation, as onboarding indexes it.
struct DocFile {
  std::string path;  // relative, e.g. "docs/KERNELS.md"
  std::string text;
};

struct TargetDocs {
  std::vector<DocFile> files;
  std::string summary_path;  // the cited summary's path, for messages
  std::string summary;       // a cited summary of `files` (may be empty)
};

// Its methods come in groups, by what a target can do. A new target overrides name() and the pure
// methods of the four required groups, fourteen in all (MinimalTarget in target_test.cc is such
// a target); every optional group has a default that does without it, and says so where a user
// asks for it.
class Target {
 public:
  virtual ~Target() = default;
  virtual std::string name() const = 0;

  // ==== Required ====

  // ---- Toolchain. The selected toolchain's spec (for cpu: the compiler), as the workspace
  // stores it under meta "<name>.toolchain".
  virtual std::string toolchain() const = 0;
  // Selects a toolchain by spec (empty: the target's default) and identifies it. The selection
  // stands even when it is not found (builds then report kToolchainMissing).
  virtual ToolchainInfo select_toolchain(const std::string& spec) = 0;
  // The selected toolchain's identity (identified when it was selected).
  virtual const ToolchainInfo& identity() const = 0;

  // ---- Candidates. Builds `source` into an artifact kept under cache_dir; an identical source
  // and toolchain is built once. Never throws for a bad source.
  virtual BuildOutcome build(const std::string& source, const std::filesystem::path& cache_dir) = 0;
  // The kernel's plain baseline on this target: the reference point of every speedup.
  virtual std::string baseline_source(const KernelContract& kernel) const = 0;

  // ---- Device. Checks a built artifact against the kernel's reference, isolated from this
  // process, on inputs from options.seed (fresh ones otherwise) and again on different inputs.
  virtual CheckOutcome check(const KernelContract& kernel, const Artifact& artifact,
                             const CheckOptions& options) = 0;
  // Starts every artifact (each one that passed check) over the same inputs from `seed`.
  virtual Result<std::unique_ptr<Session>> start_session(const KernelContract& kernel,
                                                         const std::vector<Artifact>& artifacts,
                                                         uint64_t seed) = 0;
  // Times artifacts side by side in one session: `readings` rounds of one reading each,
  // rotating the order. One result per artifact, in order; when one
  // fails every result carries the failure.
  virtual std::vector<Timing> time_side_by_side(const KernelContract& kernel,
                                                const std::vector<Artifact>& artifacts,
                                                int readings, uint64_t seed) = 0;
  // Head and candidate paired on one device for the acceptance test. Its run_once throws
  // statistics::ArmDisqualified when an arm breaks a rule; so does its verify_arms().
  virtual Result<std::unique_ptr<statistics::PairedDevice>> paired_device(
      const KernelContract& kernel, const Artifact& head, const Artifact& candidate,
      uint64_t seed) = 0;

  // ---- Chip facts and floors. Runs the target's microbenchmarks (seconds on real hardware).
  virtual std::vector<ChipFact> measure_facts(const FactOptions& options) = 0;
  // The facts floors() needs; a workspace missing any of them measures the facts first.
  virtual std::vector<std::string> floor_facts() const = 0;
  // Of floor_facts(), the ones KernelFloors::memory_ms needs: all a floor recheck measures
  // (loop/floor_recheck.h). Given only these, floors() computes memory_ms and may leave
  // instruction_ms unknown. Default: every floor fact.
  virtual std::vector<std::string> memory_floor_facts() const { return floor_facts(); }
  // Requires every floor_facts() name in `facts`, or every memory_floor_facts() name for
  // memory_ms alone.
  virtual KernelFloors floors(const KernelContract& kernel,
                              const std::map<std::string, double>& facts) const = 0;
  // The target's documentation and its cited summary, for onboarding.
  virtual TargetDocs docs() const = 0;

  // ==== Optional, each group with its default ====

  // ---- Where the device is. True when timing runs on this machine's own cores (the cpu
  // target), so that nothing else may run on them while it times: the loop then builds nothing
  // during timing. Default: a device elsewhere.
  virtual bool times_on_host() const { return false; }
  // The model of the device this process's device work runs on ("AMD EPYC 9R14 96-Core
  // Processor", "NVIDIA H100 80GB HBM3"), so that a pool's devices of different models are told
  // apart; empty (the default) when the target cannot tell.
  virtual std::string device_model() const { return ""; }
  // The distinct models of the devices device work goes to, each once: on a pool, those of its
  // devices (as far as its jobs have shown them); else device_model() alone (the default).
  virtual std::vector<std::string> device_models() { return {device_model()}; }
  // One-core readings: empty when the target can time on one core of this machine, and then
  // start_session and time_side_by_side do so while `on` (each arm's process held to one CPU,
  // the threads it asks of the harness run one after another: what one core does with the
  // kernel, whatever threads the candidate would use); else one line saying why it cannot.
  virtual std::string time_on_one_core(bool /*on*/) {
    return "the " + name() + " target does not time on this machine's cores";
  }
  // Empty when the target can send its device work (checks, timing, the paired device) to a
  // device pool, else one line saying what it does instead.
  virtual std::string pool_refusal() const {
    return "the " + name() + " target runs its device work on this machine";
  }
  // Requires pool_refusal() to be empty: device work goes to `pool`'s devices from now on, and
  // may come from several threads (see Thread-safety above).
  virtual void use_pool(std::shared_ptr<pool::DevicePool> /*pool*/) {}

  // ---- Calibration (`headway calibrate`). Devices for calibration decisions (A/A or a known
  // effect). Throws std::exception with a message for the user when the request cannot be served
  // (unknown kernel, failed build). Default: the target cannot calibrate, and says so.
  virtual statistics::DeviceFactory calibration_devices(
      const statistics::CalibrateRequest& /*request*/) {
    throw std::runtime_error("the " + name() + " target cannot run calibration decisions");
  }
  // The s0 a calibration uses when none is given and the target knows its own noise
  // (sim: from the configured cv); nullopt (the default): estimate it from a warm-up.
  virtual std::optional<double> known_s0(const statistics::CalibrateRequest& /*request*/) const {
    return std::nullopt;
  }

  // ---- Predictions. What the toolchain predicts for a built artifact's time (e.g. a
  // schedule's makespan; lower is faster; only ratios between artifacts of one kernel mean
  // anything), or nullopt when the target has no static cost.
  virtual std::optional<double> static_cost(const Artifact& /*artifact*/) const {
    return std::nullopt;
  }
  // A simulated device's truth: the noise-free seconds of one reading of a built artifact, for
  // judging the loop's decisions against it (loop/truth_audit.h); nullopt on real devices.
  virtual std::optional<double> true_seconds(const KernelContract& /*kernel*/,
                                             const Artifact& /*artifact*/) const {
    return std::nullopt;
  }

  // ---- Microbenchmarks an agent writes, for a fact the target's own do not measure: a whole
  // program in microbenchmark_language(), built and run isolated from this process (as
  // candidate code), within timeout_s. Never throws for a bad program. Default: unsupported.
  virtual std::string microbenchmark_language() const { return ""; }  // empty: unsupported
  virtual MicrobenchmarkOutcome run_microbenchmark(const std::string& /*source*/,
                                                   const std::filesystem::path& /*cache_dir*/,
                                                   double /*timeout_s*/) {
    MicrobenchmarkOutcome out;
    out.failure = "the " + name() + " target cannot run microbenchmarks";
    return out;
  }

  // ---- Knowledge. The toolchain's diagnostics reduced for the legality rules; the default
  // abstracts the first error line (targets/error_diagnostics.h), which suits a toolchain that
  // writes "error" where it fails.
  virtual Diagnostic normalize_diagnostic(std::string_view diagnostics) const;
  // The design library's files for a kernel (format: kernels/designs/README.md), by path.
  // Default: none (the loop then proposes only what an agent writes).
  virtual std::vector<DocFile> design_files(const KernelContract& /*kernel*/) const { return {}; }
  // The files a candidate source may include, under the names it includes them by (for cpu,
  // "headway_kernel.h" and "headway_support.h"), as agents are shown them. Empty: none.
  virtual std::vector<DocFile> candidate_headers() const { return {}; }

  // ---- Kernels and their sources. The kernels of `catalog` this target can optimize, in its
  // order: by default all of them; a command target's are its manifest's (declared_kernels()
  // among them, held in the catalog or not).
  virtual std::vector<const KernelContract*> kernels(const KernelCatalog& catalog) const {
    return catalog.kernels();
  }
  // The kernels this target declares itself (a command target's manifest's), which a verb adds to
  // its catalog (kernels/kernel_catalog.h); none by default.
  virtual std::vector<std::shared_ptr<const KernelContract>> declared_kernels() const { return {}; }
  // The language candidates are written in: its comment, and how design parameters reach it.
  virtual KernelLanguage kernel_language() const { return {}; }
  // Where a kernel's source goes home (headway export): the files it writes, each by its path in
  // `repository` where the target builds candidates in copies of a repository of the user's (the
  // command target), else one file named for the kernel. An error says why the source's files
  // cannot be told.
  struct SourceFiles {
    std::filesystem::path repository;                        // empty: none
    std::vector<std::pair<std::string, std::string>> files;  // (path, text)
  };
  virtual Result<SourceFiles> source_files(const KernelContract& kernel,
                                           const std::string& source) const {
    return SourceFiles{{},
                       {{std::string(kernel.name()) + kernel_language().file_extension, source}}};
  }
};

}  // namespace headway::targets
