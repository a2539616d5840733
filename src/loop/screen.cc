#include "loop/screen.h"

#include <chrono>

namespace headway::loop {

using trees::NodeStatus;

ScreenResult screen_candidate(const KernelContract& kernel, const std::string& source,
                              targets::Target& target, const std::filesystem::path& cache_dir,
                              const LintHook& lint, const BuildSource& build) {
  const auto start = std::chrono::steady_clock::now();
  ScreenResult r;
  auto done = [&] {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  };
  if (lint) {
    if (auto why = lint(source)) {
      r.status = NodeStatus::kLintRejected;
      r.reason = *why;
      return done();
    }
  }
  const targets::ToolchainInfo& identity = target.identity();
  const targets::BuildOutcome built = build ? build(source) : target.build(source, cache_dir);
  if (!built.built()) {
    r.status = NodeStatus::kBuildFailed;
    r.reason = "does not build with " + identity.version;
    r.evidence = {{"diagnostics", built.diagnostics.substr(0, 4000)}, {"toolchain", identity.id}};
    return done();
  }
  // Correct at every shape set, the first that is not decides.
  targets::CheckOutcome check;
  std::string shape;
  for (const KernelContract* at : kernel.shape_sets()) {
    check = target.check(*at, built.artifact, {});
    shape = at->shape_set_name();
    if (!check.correct()) break;
  }
  if (!check.correct() && kernel.shape_sets().size() > 1)
    check.description = "at shape set " + shape + ": " + check.description;
  r.evidence = {{"seed", check.seed}, {"check", check.description}, {"toolchain", identity.id}};
  switch (check.status) {
    case targets::CheckOutcome::Status::kCorrect:
      r.passed = true;
      r.artifact = built.artifact;
      break;
    case targets::CheckOutcome::Status::kIncorrect:
    case targets::CheckOutcome::Status::kUnloadable:
      r.status = NodeStatus::kIncorrect;
      break;
    case targets::CheckOutcome::Status::kCrashed:
      r.status = NodeStatus::kCrashed;
      break;
    case targets::CheckOutcome::Status::kTimedOut:
      r.status = NodeStatus::kTimedOut;
      break;
    case targets::CheckOutcome::Status::kCheated:
      r.status = NodeStatus::kCheated;
      break;
  }
  r.reason = check.description;
  return done();
}

}  // namespace headway::loop
