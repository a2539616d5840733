#include "cli/cli_support.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "cli/unsandboxed_runs.h"
#include "common/file_io.h"
#include "common/rng.h"
#include "kernels/declared_kernel.h"
#include "kernels/spec_kernel.h"
#include "knowledge/workspace_kernels.h"
#include "knowledge/workspace_target.h"
#include "targets/registry/registry.h"

namespace headway::cli {

namespace fs = std::filesystem;

int exit_code_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidInput:
    case ErrorCode::kNotFound:
    case ErrorCode::kConflict:
      return kExitUsage;
    case ErrorCode::kEnvironment:
    case ErrorCode::kDatabase:
      return kExitEnvironment;
  }
  return kExitEnvironment;
}

const KernelContract& kernel_or_throw(const std::string& name, const std::string& workspace) {
  if (const auto* k = find_kernel(name)) return *k;
  if (name.find('/') != std::string::npos || name.ends_with(".toml"))
    return *value_or_fail(load_spec_kernel(name, build_cache_dir()));
  std::optional<fs::path> root;
  if (!workspace.empty()) {
    root = value_or_fail(store::Workspace::open(workspace)).root();
  } else {
    root = store::Workspace::locate(fs::current_path());
  }
  std::string added;
  if (root) {
    const fs::path kernels = knowledge::workspace_kernels_dir(*root);
    const fs::path spec = kernels / name / (name + ".toml");
    if (valid_kernel_name(name) && fs::exists(spec))
      return *value_or_fail(load_spec_kernel(spec, build_cache_dir()));
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(kernels, ec)) {
      const std::string n = entry.path().filename().string();
      if (fs::exists(entry.path() / (n + ".toml"))) added += ", " + n;
    }
  }
  std::string known;
  for (const auto& n : kernel_names()) known += (known.empty() ? "" : ", ") + n;
  for (const auto& n : declared_kernel_names()) known += ", " + n;
  throw UsageError(fmt::format("unknown kernel '{}' (known: {}{}{})", name, known, added,
                               root ? "" : "; a kernel added to a workspace needs --workspace"));
}

std::string read_source_or_throw(const fs::path& path) {
  std::optional<std::string> text = read_file(path);
  if (!text) {
    const int error = errno;
    throw UsageError(fmt::format("cannot read source {}: {}", path.string(),
                                 error == EISDIR ? "it is a directory" : std::strerror(error)));
  }
  return std::move(*text);
}

targets::Artifact build_or_throw(targets::Target& target, const std::string& source,
                                 const std::string& label) {
  if (!target.identity().found) {
    fail_with(Error{target.identity().error_code, target.identity().error});
  }
  const auto built = target.build(source, build_cache_dir());
  switch (built.status) {
    case targets::BuildOutcome::Status::kBuilt:
      return built.artifact;
    case targets::BuildOutcome::Status::kToolchainMissing:
      throw EnvironmentError(fmt::format("compiler not usable: {}", built.diagnostics));
    case targets::BuildOutcome::Status::kCompileError:
      break;
  }
  throw UsageError(fmt::format("{} does not build:\n{}", label, built.diagnostics));
}

void refuse_emulation_off_cuda(const std::string& target, const std::string& toolchain) {
  // Emulation stands in for a GPU: only the cuda target has it (docs/targets/cuda.md).
  if (toolchain == "emulated" && target != "cuda") {
    throw UsageError(fmt::format(
        "--toolchain emulated is the cuda target's (its kernels on host threads); the {} target "
        "has no emulated toolchain",
        target));
  }
}

std::unique_ptr<targets::Target> target_or_throw(const std::string& name,
                                                 const std::string& toolchain) {
  refuse_emulation_off_cuda(name, toolchain);
  auto target = targets::make_target(name, toolchain);
  if (!target) {
    throw UsageError(fmt::format("target '{}' is not available in this build (available: {})", name,
                                 targets::target_names_text()));
  }
  return target;
}

std::unique_ptr<targets::Target> target_or_throw(const std::string& name,
                                                 const std::string& toolchain,
                                                 const std::string& manifest) {
  if (manifest.empty()) {
    if (name == "command" && toolchain.empty())
      throw UsageError("--target command needs --manifest FILE (e.g. packs/standin/target.toml)");
    return target_or_throw(name, toolchain);
  }
  if (name != "command") throw UsageError("--manifest is for --target command");
  if (!toolchain.empty())
    throw UsageError(
        "--manifest names the command target's toolchain: give one of --manifest and --toolchain");
  return target_or_throw(name, fs::absolute(manifest).lexically_normal().string());
}

targets::CheckOutcome check_at_every_shape_set(targets::Target& target,
                                               const KernelContract& kernel,
                                               const targets::Artifact& artifact,
                                               targets::CheckOptions options) {
  // One seed for every shape set, so that the seed said reproduces the whole check.
  if (!options.seed) options.seed = fresh_seed();
  const auto sets = kernel.shape_sets();
  std::optional<targets::CheckOutcome> closest;  // the correct one nearest its tolerance
  for (const KernelContract* at : sets) {
    targets::CheckOutcome outcome = target.check(*at, artifact, options);
    if (sets.size() > 1 && outcome.details.is_object())
      outcome.details["shape_set"] = at->shape_set_name();
    if (!outcome.correct()) {
      if (sets.size() > 1)
        outcome.description = "at shape set " + at->shape_set_name() + ": " + outcome.description;
      return outcome;
    }
    const auto share = [](const targets::CheckOutcome& o) {
      return o.details.is_object() && o.details.contains("error_share")
                 ? o.details["error_share"].value("share", 0.0)
                 : 0.0;
    };
    if (!closest || share(outcome) > share(*closest)) closest = std::move(outcome);
  }
  return *closest;
}

store::Workspace open_workspace_or_throw(const std::string& dir) {
  store::Workspace ws = value_or_fail(dir.empty() ? store::Workspace::find(fs::current_path())
                                                  : store::Workspace::open(dir));
  if (sandbox::mode() == sandbox::Mode::kDisabled) {
    record_unsandboxed_runs_in(ws.root(), invocation());
  }
  value_or_fail(knowledge::load_workspace_kernels(ws, build_cache_dir()));
  return ws;
}

void print_error(const std::string& message) {
  std::fprintf(stderr, "headway: %s\n", message.c_str());
}

std::string sandbox_refusal(const std::string& reason) {
  return fmt::format("cannot sandbox candidate code: {} (install bubblewrap, or pass --no-sandbox)",
                     reason);
}

std::unique_ptr<targets::Target> workspace_target_or_throw(store::Workspace& ws) {
  return value_or_fail(knowledge::open_workspace_target(ws));
}

std::unique_ptr<targets::Target> verb_target_or_throw(const std::string& target,
                                                      const std::string& toolchain,
                                                      const std::string& manifest,
                                                      const std::string& workspace) {
  if (!target.empty() || !toolchain.empty() || !manifest.empty())
    return target_or_throw(target.empty() ? "cpu" : target, toolchain, manifest);
  if (!workspace.empty() || store::Workspace::locate(fs::current_path())) {
    // Only its target is read: the kernels it added are kernel_or_throw's to load.
    store::Workspace ws =
        value_or_fail(workspace.empty() ? store::Workspace::find(fs::current_path())
                                        : store::Workspace::open(workspace));
    return workspace_target_or_throw(ws);
  }
  return target_or_throw("cpu");
}

}  // namespace headway::cli
