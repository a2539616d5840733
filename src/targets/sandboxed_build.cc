#include "targets/sandboxed_build.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <system_error>

#include "common/compiler_sandbox.h"
#include "common/file_io.h"
#include "common/hash.h"

namespace headway::targets {

namespace fs = std::filesystem;

namespace {

std::string build_name(const SandboxedBuild& build) {
  return fmt::format("{:016x}", hash_bytes(build.key.data(), build.key.size()));
}

}  // namespace

fs::path cached_output(const SandboxedBuild& build, const fs::path& cache_dir) {
  return cache_dir / (build_name(build) + build.extension);
}

BuildOutcome run_sandboxed_build(const SandboxedBuild& build, const fs::path& cache_dir) {
  using Status = BuildOutcome::Status;
  BuildOutcome out;
  const std::string name = build_name(build);
  out.artifact.id = name;
  fs::create_directories(cache_dir);
  const fs::path cached = cached_output(build, cache_dir);
  if (fs::exists(cached)) {
    out.status = Status::kBuilt;
    out.artifact.path = cached;
    out.cached = true;
    return out;
  }
  // Refuse before writing anything.
  if (sandbox::mode() == sandbox::Mode::kRequired) {
    if (std::string why = sandbox::unavailable_reason(); !why.empty())
      throw sandbox::Unavailable(why);
  }
  // A private scratch folder per build: concurrent builds never share files.
  static std::atomic<uint64_t> builds{0};
  const fs::path scratch =
      fs::absolute(cache_dir) / fmt::format("tmp-{}-{}-{}", name, getpid(), builds.fetch_add(1));
  fs::create_directories(scratch);
  for (const auto& f : build.inputs) {
    try {
      write_file_creating_folders(scratch / f.path, f.text);
    } catch (const std::runtime_error&) {
      std::error_code ignored;
      fs::remove_all(scratch, ignored);
      throw;
    }
  }
  sandbox::Policy policy;
  policy.writable = {scratch};
  policy.read_only = build.read_only;
  policy.working_directory = scratch;
  policy.limits = build.limits;
  for (auto [variable, value] : build.environment) {
    for (size_t at; (at = value.find("{scratch}")) != std::string::npos;)
      value.replace(at, 9, scratch.string());
    policy.environment.emplace_back(variable, value);
  }
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = run_process(build.argv(scratch), build.timeout_seconds, policy);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.diagnostics = r.output;
  if (const std::string missing = sandbox_exec_failure(r); !r.started || !missing.empty()) {
    out.status = Status::kToolchainMissing;
    out.diagnostics =
        r.started ? fmt::format("{} not found in the sandbox: {}", build.tool, missing) : r.error;
  } else if (r.timed_out) {
    out.diagnostics += fmt::format("\nheadway: {} ran past {} s and was stopped", build.tool,
                                   build.timeout_seconds);
  } else if (r.ok()) {
    std::error_code ec;
    fs::rename(scratch / build.output, cached, ec);
    if (!ec) {
      out.status = Status::kBuilt;
      out.artifact.path = cached;
    } else {
      out.diagnostics += "\nheadway: cannot move the built file: " + ec.message();
    }
  }
  std::error_code ignored;
  fs::remove_all(scratch, ignored);
  return out;
}

}  // namespace headway::targets
