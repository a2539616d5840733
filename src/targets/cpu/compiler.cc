#include "targets/cpu/compiler.h"

#include <fmt/format.h>

#include "common/cache_dir.h"
#include "common/compiler_sandbox.h"
#include "common/sandbox.h"
#include "common/subprocess.h"
#include "targets/candidate_headers.h"
#include "targets/cpu/precompiled_header.h"
#include "targets/sandboxed_build.h"

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
  const Result<std::string> macros = predefined_macros(toolchain);
  if (macros) id.target_macros = macros.value();
  return id;
}

Result<std::string> predefined_macros(const Toolchain& toolchain) {
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
    return environment_error(
        r.started ? fmt::format("`{} -dM -E` failed: {}", toolchain.cxx, r.output.substr(0, 200))
                  : fmt::format("compiler not found: {}", r.error));
  }
  return r.output;
}

targets::BuildOutcome build_candidate(const Toolchain& toolchain, const ToolchainIdentity& identity,
                                      const std::string& source, const fs::path& cache_dir,
                                      double timeout_seconds) {
  if (!identity.found) {
    targets::BuildOutcome missing;
    missing.status = targets::BuildOutcome::Status::kToolchainMissing;
    missing.diagnostics = identity.error;
    return missing;
  }
  targets::SandboxedBuild build;
  build.key = identity.id + '\0' + identity.target_macros + '\0' + source;
  // The headers a candidate includes are part of what it is: a headway with other headers must
  // not reuse a build made with these.
  const std::vector<targets::DocFile> headers = targets::candidate_headers(kCandidateHeaders);
  for (const auto& header : headers) build.key += '\0' + header.text;
  build.inputs.push_back({"candidate.cc", source});
  build.extension = ".so";
  build.output = "candidate.so";
  // The headers come from a folder with the first one precompiled, where it can be had; else they
  // are written beside the source.
  std::optional<fs::path> precompiled;
  if (toolchain.precompiled_headers && !fs::exists(targets::cached_output(build, cache_dir))) {
    if (const std::string first = first_candidate_include(source, headers); !first.empty())
      precompiled =
          precompiled_header_folder(toolchain, identity, headers, first, build_cache_dir());
  }
  if (precompiled) {
    build.read_only.push_back(*precompiled);
  } else {
    for (const auto& header : headers) build.inputs.push_back(header);
  }
  build.argv = [&toolchain, precompiled](const fs::path& scratch) {
    std::vector<std::string> argv = {toolchain.cxx};
    argv.insert(argv.end(), toolchain.flags.begin(), toolchain.flags.end());
    argv.insert(argv.end(),
                {"-I", precompiled.value_or(scratch).string(), "-x", "c++",
                 (scratch / "candidate.cc").string(), "-o", (scratch / "candidate.so").string()});
    return argv;
  };
  build.tool = "compiler";
  build.limits = compiler_limits();
  build.timeout_seconds = timeout_seconds;
  targets::BuildOutcome built = targets::run_sandboxed_build(build, cache_dir);
  if (built.built()) built.artifact.meta = {{"toolchain", identity.id}};
  return built;
}

}  // namespace headway::cpu
