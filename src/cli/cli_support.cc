#include "cli/cli_support.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cli/unsandboxed_runs.h"
#include "knowledge/workspace_target.h"
#include "targets/registry/registry.h"

namespace headway::cli {

namespace fs = std::filesystem;

const KernelContract& kernel_or_throw(const std::string& name) {
  if (const auto* k = find_kernel(name)) return *k;
  std::string known;
  for (const auto& n : kernel_names()) known += (known.empty() ? "" : ", ") + n;
  throw UsageError(fmt::format("unknown kernel '{}' (known: {})", name, known));
}

std::string read_source_or_throw(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw UsageError(fmt::format("cannot read source {}: it is a directory", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw UsageError(fmt::format("cannot read source {}: {}", path.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path build_cache_dir() {
  if (const char* d = std::getenv("HEADWAY_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "headway/builds";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache/headway/builds";
  return fs::temp_directory_path() / "headway-builds";
}

targets::Artifact build_or_throw(targets::Target& target, const std::string& source,
                                 const std::string& label) {
  if (!target.identity().found) throw EnvironmentError(target.identity().error);
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

std::unique_ptr<targets::Target> target_or_throw(const std::string& name,
                                                 const std::string& toolchain) {
  auto target = targets::make_target(name, toolchain);
  if (!target) {
    throw UsageError(fmt::format("target '{}' is not available in this build (available: {})", name,
                                 targets::target_names_text()));
  }
  return target;
}

store::Workspace open_workspace_or_throw(const std::string& dir) {
  auto ws = dir.empty() ? store::Workspace::find(fs::current_path()) : store::Workspace::open(dir);
  if (!ws) throw UsageError(ws.error().message);
  if (sandbox::mode() == sandbox::Mode::kDisabled) {
    record_unsandboxed_runs_in(ws.value().root(), invocation());
  }
  return std::move(ws).value();
}

void print_error(const std::string& message) {
  std::fprintf(stderr, "headway: %s\n", message.c_str());
}

std::string sandbox_refusal(const std::string& reason) {
  return fmt::format("cannot sandbox candidate code: {} (install bubblewrap, or pass --no-sandbox)",
                     reason);
}

std::unique_ptr<targets::Target> workspace_target_or_throw(store::Workspace& ws) {
  try {
    return knowledge::open_workspace_target(ws);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace headway::cli
