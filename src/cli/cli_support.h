#pragma once
// Helpers shared by the verbs: turning user input into parts' inputs with clear errors.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/cache_dir.h"
#include "common/result.h"
#include "common/sandbox.h"
#include "kernels/kernel_catalog.h"
#include "store/database.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::cli {

// The exit statuses of every verb (docs/CLI.md, "Exit statuses").
inline constexpr int kExitOk = 0;
inline constexpr int kExitNegative = 1;     // a negative result: a wrong kernel, a broken head
inline constexpr int kExitUsage = 2;        // usage or bad input
inline constexpr int kExitEnvironment = 3;  // the machine lacks something: compiler, database

// The exit status of a verb that stops with an error of this code: kExitUsage for invalid input,
// not found and conflict; kExitEnvironment for environment and database.
int exit_code_for(ErrorCode code);

// The error a verb stops with: run_verb prints "headway: <what>" and exits exit_code_for(code).
using VerbError = Failure;
// The user's input is wrong (exit kExitUsage).
struct UsageError : VerbError {
  explicit UsageError(const std::string& what) : VerbError(invalid_input(what)) {}
};
// The environment cannot do what was asked: no usable compiler, ... (exit kExitEnvironment).
struct EnvironmentError : VerbError {
  explicit EnvironmentError(const std::string& what) : VerbError(environment_error(what)) {}
};

// The kernels a verb knows (kernels/kernel_catalog.h): the built-in ones, the specs the workspace
// `ws` has added (read, not built: a reference is built when a verb needs it) and the kernels
// `target` declares (a command target's manifest's), which replace added ones of their names. A
// spec that does not read is the error.
KernelCatalog kernel_catalog_or_throw(const store::Workspace& ws,
                                      const targets::Target* target = nullptr);
// The kernel of that name in `catalog`, or of the spec at that path (a name with a '/' or ending
// in .toml: read into the catalog, at its first timed shape set); throws UsageError listing the
// known kernels otherwise ("; a kernel added to a workspace needs --workspace" where
// `in_workspace` is false), or the spec's own error. Builds nothing.
const KernelContract& kernel_or_throw(KernelCatalog& catalog, const std::string& name,
                                      bool in_workspace = true);
// A kernel named on the command line of a verb whose workspace is optional, with the catalog that
// holds it: that of the workspace at `workspace` when given (a UsageError when it is not one),
// else of the nearest one up from the current folder, else the built-in kernels, with `target`'s
// declared kernels (kernel_catalog_or_throw). A kernel that is not built in has its reference
// built now: its build's error is thrown.
struct NamedKernel {
  KernelCatalog catalog;
  const KernelContract* kernel = nullptr;
};
NamedKernel named_kernel_or_throw(const std::string& name, const std::string& workspace,
                                  const targets::Target* target = nullptr);

// The --kernel option's help, the same in every verb that takes one.
inline constexpr const char* kKernelOptionHelp =
    "qkv, attn_out, ffn, a kernel added to the workspace (--workspace, else the one here) or a "
    "spec file (TOML)";
// The whole text of a source file; throws UsageError when it is missing or unreadable.
std::string read_source_or_throw(const std::filesystem::path& path);
// Builds source with the target into build_cache_dir(); throws UsageError with the toolchain's
// diagnostics when it does not build, EnvironmentError when the toolchain is missing.
targets::Artifact build_or_throw(targets::Target& target, const std::string& source,
                                 const std::string& label);
// Throws UsageError for the toolchain "emulated" with a target other than cuda.
void refuse_emulation_off_cuda(const std::string& target, const std::string& toolchain);
// The registered target of that name with `toolchain` selected (empty: its default); throws
// UsageError naming the available targets otherwise, and as refuse_emulation_off_cuda.
std::unique_ptr<targets::Target> target_or_throw(const std::string& name,
                                                 const std::string& toolchain = "");
// As above, for a verb that also takes --manifest: the command target's manifest is its
// toolchain (given as either). A manifest with another target, or the command target with
// neither, is a UsageError.
std::unique_ptr<targets::Target> target_or_throw(const std::string& name,
                                                 const std::string& toolchain,
                                                 const std::string& manifest);
// The --manifest option's help, the same in every verb that takes one.
inline constexpr const char* kManifestOptionHelp =
    "the command target's TOML manifest (docs/TARGETS.md); with --target command";

// What a verb does at the shape sets it selects: checks them (every one, check-only ones too) or
// times them (never a check-only one).
enum class ShapeSetUse { kChecked, kTimed };
// The shape sets of `kernel` a verb takes: with `only` empty, every one it may use (kTimed:
// timed_shape_sets); else the one of that name. Throws UsageError for a name the kernel lacks
// (listing its names) and, with kTimed, for a check-only set (which `check` takes).
std::vector<const KernelContract*> shape_sets_named(const KernelContract& kernel,
                                                    const std::string& only, ShapeSetUse use);

// The check of `artifact` at every shape set of `kernel` in turn (check-only ones too), or at the
// one named `only`, with one seed (options.seed, else a fresh one): the first outcome that is not
// correct, its description led by its shape set's name, else the correct one whose error came
// nearest its tolerance (details.error_share). Where the kernel has several shape sets,
// details.shape_set names the outcome's. An unknown `only` throws UsageError.
targets::CheckOutcome check_at_every_shape_set(targets::Target& target,
                                               const KernelContract& kernel,
                                               const targets::Artifact& artifact,
                                               targets::CheckOptions options,
                                               const std::string& only = "");

// The workspace at `dir` when given (--workspace), else the nearest one up from the current
// directory; throws VerbError saying which was tried and why it failed (not found: exit 2; a
// database that cannot be opened, read or migrated: exit 3). With --no-sandbox, the
// first unsandboxed run of candidate code is recorded in it (cli/unsandboxed_runs.h). Its kernels
// are in kernel_catalog_or_throw.
store::Workspace open_workspace_or_throw(const std::string& dir);
// A kernel's head in a workspace: its node, design and source; `baseline` when the head is still
// the kernel's baseline.
struct WorkspaceHead {
  int64_t node = 0;
  std::string design;
  std::string source;
  bool baseline = false;
};
// The head of `kernel` in `ws`: nullopt where the kernel has no Design Tree there. Throws a
// Failure (database) when the head node has no source.
std::optional<WorkspaceHead> workspace_head(store::Workspace& ws, const std::string& kernel);
// The workspace's target with its toolchain selected (knowledge/workspace_target.h); throws
// VerbError (not found) when the workspace names a target this build does not know.
std::unique_ptr<targets::Target> workspace_target_or_throw(store::Workspace& ws);
// The target of a verb that takes --target, --toolchain and --manifest (check, compare, bench):
// target_or_throw's when any of the three is given; else the workspace's with its toolchain
// (`workspace`, else the one found from here); else cpu.
std::unique_ptr<targets::Target> verb_target_or_throw(const std::string& target,
                                                      const std::string& toolchain,
                                                      const std::string& manifest,
                                                      const std::string& workspace);

// Exit status of a verb that refuses to build or run candidate code without the sandbox.
inline constexpr int kSandboxExit = kExitEnvironment;
// "cannot sandbox candidate code: <reason> (install bubblewrap, or pass --no-sandbox)".
std::string sandbox_refusal(const std::string& reason);

// Prints the one-line error every verb uses: "headway: <message>" on stderr.
void print_error(const std::string& message);

// Runs a verb body, mapping a VerbError to a one-line message and exit_code_for(its code);
// store::StoreError (the workspace database failed mid-verb) and targets::DeviceUnavailable to one
// line and kExitEnvironment; sandbox::Unavailable (candidate code would run without the sandbox)
// to one line and kSandboxExit.
template <typename F>
void run_verb(int* exit_code, F&& body) {
  try {
    *exit_code = body();
  } catch (const VerbError& e) {
    std::fprintf(stderr, "headway: %s\n", e.what());
    *exit_code = exit_code_for(e.code());
  } catch (const store::StoreError& e) {
    std::fprintf(stderr, "headway: workspace database: %s\n", e.what());
    *exit_code = exit_code_for(ErrorCode::kDatabase);
  } catch (const targets::DeviceUnavailable& e) {
    std::fprintf(stderr, "headway: %s\n", e.what());
    *exit_code = exit_code_for(ErrorCode::kEnvironment);
  } catch (const sandbox::Unavailable& e) {
    std::fprintf(stderr, "headway: %s\n", sandbox_refusal(e.what()).c_str());
    *exit_code = kSandboxExit;
  }
}

}  // namespace headway::cli
