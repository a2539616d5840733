#include "loop/screen.h"

#include <chrono>

#include "targets/cpu/cpu_check.h"

namespace headway::loop {

using search::NodeStatus;

ScreenResult screen_candidate(const KernelContract& kernel, const std::string& source,
                              const cpu::Toolchain& toolchain,
                              const cpu::ToolchainIdentity& identity,
                              const std::filesystem::path& cache_dir, const LintHook& lint) {
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
  const cpu::BuildResult built = cpu::build_candidate(toolchain, identity, source, cache_dir);
  if (built.status != cpu::BuildResult::Status::kBuilt) {
    r.status = NodeStatus::kBuildFailed;
    r.reason = "does not build with " + identity.version;
    r.evidence = {{"diagnostics", built.diagnostics.substr(0, 4000)}, {"toolchain", identity.id}};
    return done();
  }
  const cpu::CheckReport check = cpu::check_candidate(kernel, built.shared_object, {});
  r.evidence = {{"seed", check.seed}, {"check", check.describe()}, {"toolchain", identity.id}};
  switch (check.status) {
    case cpu::CheckReport::Status::kCorrect:
      r.passed = true;
      r.shared_object = built.shared_object;
      break;
    case cpu::CheckReport::Status::kIncorrect:
    case cpu::CheckReport::Status::kForbiddenWrite:
    case cpu::CheckReport::Status::kLoadFailed:
      r.status = NodeStatus::kIncorrect;
      break;
    case cpu::CheckReport::Status::kMisbehaved:
      r.status = NodeStatus::kCheated;
      break;
    case cpu::CheckReport::Status::kNoRunner:
      throw std::runtime_error(check.describe());
    case cpu::CheckReport::Status::kFailedToRun:
      r.status = check.run.status == cpu::CallResult::Status::kTimedOut ? NodeStatus::kTimedOut
                                                                        : NodeStatus::kCrashed;
      break;
  }
  r.reason = check.describe();
  return done();
}

}  // namespace headway::loop
