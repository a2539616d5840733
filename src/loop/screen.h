#pragma once
// The cheap checks before any timing: lint (legality rules), build, correctness.
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "kernels/contract.h"
#include "knowledge/lint_hook.h"
#include "targets/target.h"
#include "trees/node_status.h"

namespace headway::loop {

struct ScreenResult {
  bool passed = false;
  trees::NodeStatus status = trees::NodeStatus::kProposed;  // the failure status when !passed
  std::string reason;                                       // one line
  nlohmann::json evidence;                                  // diagnostics, seed, worst element, ...
  targets::Artifact artifact;                               // when passed
  double seconds = 0.0;                                     // wall time spent screening
};

// A lint hook: a reason to reject a source before it is built, or nullopt.
using knowledge::LintHook;

// How a source is built: the target's build into a cache folder, or the caller's (which may
// hold a lock around it).
using BuildSource = std::function<targets::BuildOutcome(const std::string& source)>;

// Lints, builds (with `build`, else the target into cache_dir) and checks `source` on fresh
// inputs. Failures map to the node statuses lint-rejected, build-failed, incorrect (also
// forbidden writes and artifacts that do not load), crashed (signals, exits, memory) and
// timed-out.
ScreenResult screen_candidate(const KernelContract& kernel, const std::string& source,
                              targets::Target& target, const std::filesystem::path& cache_dir,
                              const LintHook& lint, const BuildSource& build = nullptr);

}  // namespace headway::loop
