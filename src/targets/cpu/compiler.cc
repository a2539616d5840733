#include "targets/cpu/compiler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <system_error>

#include "common/compiler_sandbox.h"
#include "common/embedded.h"
#include "common/hash.h"
#include "common/sandbox.h"
#include "common/subprocess.h"

namespace headway::cpu {

namespace fs = std::filesystem;

ToolchainIdentity identify(const Toolchain& toolchain) {
  ToolchainIdentity id;
  sandbox::Policy policy;
  policy.limits = compiler_limits();
  // `cxx --version` runs no candidate code: with --no-sandbox, or where the sandbox cannot be set
  // up (build_candidate then refuses), it runs outside with the sandbox's clean environment, and
  // is not counted as an unsandboxed run.
  const bool outside =
      sandbox::mode() == sandbox::Mode::kDisabled || !sandbox::unavailable_reason().empty();
  const ProcessResult r =
      outside ? run_process({"/usr/bin/env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin",
                             "HOME=/nonexistent", toolchain.cxx, "--version"},
                            30.0)
              : run_process({toolchain.cxx, "--version"}, 30.0, policy);
  if (!r.ok()) {
    const std::string missing = sandbox_exec_failure(r);
    id.error = !missing.empty() ? fmt::format("compiler not found in the sandbox: {}", missing)
               : r.started      ? fmt::format("`{} --version` failed: {}", toolchain.cxx, r.output)
                                : fmt::format("compiler not found: {}", r.error);
    return id;
  }
  id.found = true;
  id.version = r.output.substr(0, r.output.find('\n'));
  id.id = id.version;
  for (const auto& f : toolchain.flags) id.id += " " + f;
  std::string macros_error;
  id.target_macros = predefined_macros(toolchain, &macros_error);
  return id;
}

std::string predefined_macros(const Toolchain& toolchain, std::string* error) {
  sandbox::Policy policy;
  policy.limits = compiler_limits();
  const bool outside =
      sandbox::mode() == sandbox::Mode::kDisabled || !sandbox::unavailable_reason().empty();
  std::vector<std::string> argv = {toolchain.cxx};
  for (const auto& f : toolchain.flags) {
    if (f != "-shared") argv.push_back(f);
  }
  for (const char* a : {"-dM", "-E", "-x", "c++", "/dev/null"}) argv.emplace_back(a);
  if (outside) {
    argv.insert(argv.begin(),
                {"/usr/bin/env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent"});
  }
  const ProcessResult r = outside ? run_process(argv, 30.0) : run_process(argv, 30.0, policy);
  if (!r.ok()) {
    *error = r.started
                 ? fmt::format("`{} -dM -E` failed: {}", toolchain.cxx, r.output.substr(0, 200))
                 : fmt::format("compiler not found: {}", r.error);
    return "";
  }
  return r.output;
}

namespace {
void write_file(const fs::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}
}  // namespace

BuildResult build_candidate(const Toolchain& toolchain, const ToolchainIdentity& identity,
                            const std::string& source, const fs::path& cache_dir,
                            double timeout_seconds) {
  BuildResult result;
  if (!identity.found) {
    result.status = BuildResult::Status::kToolchainMissing;
    result.diagnostics = identity.error;
    return result;
  }
  // The headers a candidate includes are part of what it is: a headway with other headers must
  // not reuse a build made with these.
  static const std::string headers = [] {
    std::string all;
    for (const auto& h : kCandidateHeaders)
      all += '\0' + std::string(embedded_file(h.embedded_path));
    return all;
  }();
  const std::string key = identity.id + '\0' + identity.target_macros + '\0' + source + headers;
  const std::string name = fmt::format("{:016x}", hash_bytes(key.data(), key.size()));
  fs::create_directories(cache_dir);
  const fs::path so = cache_dir / (name + ".so");
  if (fs::exists(so)) {
    result.status = BuildResult::Status::kBuilt;
    result.shared_object = so;
    result.cached = true;
    return result;
  }
  // Refuse before writing anything.
  if (sandbox::mode() == sandbox::Mode::kRequired) {
    if (std::string why = sandbox::unavailable_reason(); !why.empty())
      throw sandbox::Unavailable(why);
  }
  // A private scratch directory per build: concurrent builds never share files.
  static std::atomic<uint64_t> builds{0};
  const fs::path scratch =
      fs::absolute(cache_dir) / fmt::format("tmp-{}-{}-{}", name, getpid(), builds.fetch_add(1));
  fs::create_directories(scratch);
  for (const auto& h : kCandidateHeaders)
    write_file(scratch / h.include_name, embedded_file(h.embedded_path));
  write_file(scratch / "candidate.cc", source);

  std::vector<std::string> argv = {toolchain.cxx};
  argv.insert(argv.end(), toolchain.flags.begin(), toolchain.flags.end());
  argv.insert(argv.end(), {"-I", scratch.string(), "-x", "c++", (scratch / "candidate.cc").string(),
                           "-o", (scratch / "candidate.so").string()});
  const auto start = std::chrono::steady_clock::now();
  sandbox::Policy policy;
  policy.writable = {scratch};
  policy.working_directory = scratch;
  policy.limits = compiler_limits();
  const ProcessResult r = run_process(argv, timeout_seconds, policy);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.diagnostics = r.output;
  if (const std::string missing = sandbox_exec_failure(r); !r.started || !missing.empty()) {
    result.status = BuildResult::Status::kToolchainMissing;
    result.diagnostics = r.started ? "compiler not found in the sandbox: " + missing : r.error;
  } else if (r.timed_out) {
    result.diagnostics +=
        fmt::format("\nheadway: the compiler ran past {} s and was stopped", timeout_seconds);
  } else if (r.ok()) {
    std::error_code ec;
    fs::rename(scratch / "candidate.so", so, ec);
    if (!ec) {
      result.status = BuildResult::Status::kBuilt;
      result.shared_object = so;
    } else {
      result.diagnostics += "\nheadway: cannot move the built object: " + ec.message();
    }
  }
  std::error_code ignored;
  fs::remove_all(scratch, ignored);
  return result;
}

}  // namespace headway::cpu
