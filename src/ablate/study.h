#pragma once
// An ablation study (`headway ablate`, docs/ABLATIONS.md): for each arm (the full loop, or the
// loop with one part switched off or swapped), `runs` runs of `headway optimize` on one target,
// each in a fresh workspace kept under the study's folder:
//   DIR/study.json                  the study's spec (StudySpec), written once
//   DIR/runs/ARM/RUN/               run RUN (0-based) of ARM: a workspace
//   DIR/runs/ARM/RUN/result.json    optimize's --json output, written once the run ended well
//   DIR/runs/ARM/RUN/optimize.log   the run's progress (standard error)
// A run without result.json has not ended well (never started, killed, failed) and is run again
// from an empty workspace, so that every stored run had the whole budget.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace headway::ablate {

// An arm: its name and what it adds to optimize's command line.
//   full                  nothing
//   without-PART          --without PART, for each part of loop/optimize_switches.h
//   rule-RULE             --acceptance-rule RULE, for each rule of statistics/rule_kind.h but
//                         betting (the full loop's)
//   beam-K                --beam K, for K of 2, 3 and 4 (loop/beam.h)
struct Arm {
  std::string name;
  std::vector<std::string> optimize_args;
};

// Every arm name, full first.
std::vector<std::string> known_arms();
// An unknown name is an error that lists the known ones.
Result<Arm> parse_arm(std::string_view name);

struct StudySpec {
  std::string target = "sim";
  std::string manifest;  // the command target's manifest, an absolute path; else empty
  std::string kernels;   // comma-separated; empty: the target's
  std::string budget = "60s";
  int runs = 5;
  uint64_t seed = 1;
  std::vector<std::string> arms{"full"};
  // Options every run's optimize gets too, e.g. {"--agent-jobs", "4"}. Not the options the study
  // sets itself (--workspace, --budget, --seed, --json, --kernels, --target), an arm does
  // (--without, --acceptance-rule, --beam), or the study's pool does (kPoolOptions).
  std::vector<std::string> optimize_args;
  // The one device pool every run's device work goes to (cli/pool_options.h's config: {"kind":
  // "slurm", "workers": 4, ...}), shared by the runs through a broker (pool/pool_broker.h);
  // {"kind": "local"}: each run on this machine.
  nlohmann::json pool = {{"kind", "local"}};
};

// optimize's pool options, which a study gives as its own pool rather than to each run.
inline constexpr std::string_view kPoolOptions[] = {
    "--pool",  "--workers",     "--partition",      "--account",
    "--gres",  "--exclusive",   "--worker-time",    "--pool-host",
    "--lease", "--pool-broker", "--pool-token-file"};

// nullopt when valid, else a one-line message: arms known and each once, runs >= 1, a budget
// that parses, a manifest only for the command target and there required, optimize_args without
// an option the study, an arm or its pool sets, a pool of kind local or slurm.
Status validate(const StudySpec& spec);
nlohmann::json to_json(const StudySpec& spec);
Result<StudySpec> study_spec_from_json(const nlohmann::json& j);

class Study {
 public:
  // Creates the study's folder and study.json from `spec` when DIR has no study.json (an invalid
  // spec is an error that writes nothing); else opens it, and a field of `spec` named in
  // `compared` (to_json's keys; nullopt: every field) that differs from the stored one is an
  // error naming it. A `spec` of nullopt: open only.
  static Result<Study> create_or_open(
      const std::filesystem::path& dir, const std::optional<StudySpec>& spec,
      const std::optional<std::vector<std::string>>& compared = std::nullopt);

  const std::filesystem::path& dir() const { return dir_; }
  const StudySpec& spec() const { return spec_; }
  std::filesystem::path run_dir(const std::string& arm, int run) const;
  // Run `run`'s seed (optimize --seed), the same for every arm: arms are compared on the same
  // draws. Never 0.
  uint64_t run_seed(int run) const;
  // The stored result of a run, or nullopt when it has none (or it does not parse).
  std::optional<nlohmann::json> result(const std::string& arm, int run) const;
  // Runs without a result, run by run with the arms interleaved (every arm's run 0 first), so
  // that an interrupted study has comparable runs in every arm.
  std::vector<std::pair<std::string, int>> pending() const;

 private:
  Study(std::filesystem::path dir, StudySpec spec) : dir_(std::move(dir)), spec_(std::move(spec)) {}
  std::filesystem::path dir_;
  StudySpec spec_;
};

}  // namespace headway::ablate
