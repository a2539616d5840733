#include "cli/cli_support.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "cli/unsandboxed_runs.h"
#include "common/file_io.h"
#include "common/rng.h"
#include "knowledge/spec_check.h"
#include "knowledge/workspace_kernels.h"
#include "knowledge/workspace_target.h"
#include "targets/registry/registry.h"
#include "trees/design_tree.h"

namespace headway::cli {

namespace fs = std::filesystem;

namespace {

// The catalog of the workspace at `root` (none where empty) with `target`'s declared kernels.
KernelCatalog catalog_at_or_throw(const fs::path& root, const targets::Target* target) {
  KernelCatalog catalog =
      root.empty() ? KernelCatalog()
                   : value_or_fail(knowledge::workspace_catalog(root, build_cache_dir()));
  if (target) {
    for (const auto& k : target->declared_kernels()) value_or_fail(catalog.add(k));
  }
  return catalog;
}

}  // namespace

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

KernelCatalog kernel_catalog_or_throw(const store::Workspace& ws, const targets::Target* target) {
  return catalog_at_or_throw(ws.root(), target);
}

const KernelContract& kernel_or_throw(KernelCatalog& catalog, const std::string& name,
                                      bool in_workspace) {
  if (const auto* k = catalog.find_kernel(name)) return *k;
  if (name.find('/') != std::string::npos || name.ends_with(".toml"))
    return *value_or_fail(catalog.add_spec(name, build_cache_dir()));
  throw UsageError(
      fmt::format("unknown kernel '{}' (known: {}{})", name, catalog.known_text(),
                  in_workspace ? "" : "; a kernel added to a workspace needs --workspace"));
}

NamedKernel named_kernel_or_throw(const std::string& name, const std::string& workspace,
                                  const targets::Target* target) {
  std::optional<fs::path> root;
  if (!workspace.empty()) {
    root = value_or_fail(store::Workspace::open(workspace)).root();
  } else {
    root = store::Workspace::locate(fs::current_path());
  }
  NamedKernel named{root ? catalog_at_or_throw(*root, target) : catalog_at_or_throw({}, target)};
  named.kernel = &kernel_or_throw(named.catalog, name, root.has_value());
  if (!is_builtin_kernel(named.kernel->name())) value_or_fail(named.kernel->build_reference());
  return named;
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
  return value_or_fail(knowledge::build_source(target, source, label, build_cache_dir()));
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

std::vector<const KernelContract*> shape_sets_named(const KernelContract& kernel,
                                                    const std::string& only, ShapeSetUse use) {
  const bool timed = use == ShapeSetUse::kTimed;
  if (only.empty()) return timed ? timed_shape_sets(kernel) : kernel.shape_sets();
  std::vector<std::string> names;
  for (const KernelContract* at : kernel.shape_sets()) {
    if (at->shape_set_name() == only) {
      if (timed && at->check_only()) {
        throw UsageError(fmt::format(
            "shape set '{}' of kernel {} is check-only: it is checked (headway check), never "
            "timed",
            only, kernel.name()));
      }
      return {at};
    }
    names.push_back(at->shape_set_name().empty() ? "(one, unnamed)" : at->shape_set_name());
  }
  throw UsageError(fmt::format("kernel {} has no shape set '{}' (it has: {})", kernel.name(), only,
                               fmt::join(names, ", ")));
}

targets::CheckOutcome check_at_every_shape_set(targets::Target& target,
                                               const KernelContract& kernel,
                                               const targets::Artifact& artifact,
                                               targets::CheckOptions options,
                                               const std::string& only) {
  // One seed for every shape set, so that the seed said reproduces the whole check.
  if (!options.seed) options.seed = fresh_seed();
  const auto sets = shape_sets_named(kernel, only, ShapeSetUse::kChecked);
  const bool several = kernel.shape_sets().size() > 1;
  std::optional<targets::CheckOutcome> closest;  // the correct one nearest its tolerance
  for (const KernelContract* at : sets) {
    targets::CheckOutcome outcome = target.check(*at, artifact, options);
    if (several && outcome.details.is_object()) outcome.details["shape_set"] = at->shape_set_name();
    if (!outcome.correct()) {
      if (several)
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
  return ws;
}

void print_error(const std::string& message) {
  std::fprintf(stderr, "headway: %s\n", message.c_str());
}

std::string sandbox_refusal(const std::string& reason) {
  return fmt::format("cannot sandbox candidate code: {} (install bubblewrap, or pass --no-sandbox)",
                     reason);
}

std::optional<WorkspaceHead> workspace_head(store::Workspace& ws, const std::string& kernel) {
  auto tree = trees::DesignTree::open(ws, kernel);
  if (!tree) return std::nullopt;
  const int64_t head = tree.value().head().node_id;
  const auto node = tree.value().node(head);
  const auto text = tree.value().source(head);
  if (!node || !text)
    fail_with(database_error(fmt::format("{}: head node {} has no source", kernel, head)));
  return WorkspaceHead{head, node->design, *text, head == tree.value().root().id};
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
