#include "targets/cpu/microbenchmark.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "common/compiler_sandbox.h"
#include "common/file_io.h"
#include "common/sandbox.h"
#include "common/subprocess.h"

namespace headway::cpu {

namespace fs = std::filesystem;

std::vector<std::string> program_flags(const Toolchain& toolchain) {
  std::vector<std::string> flags;
  for (const auto& f : toolchain.flags)
    if (f != "-shared" && f != "-fPIC") flags.push_back(f);
  return flags;
}

targets::MicrobenchmarkOutcome run_microbenchmark(const Toolchain& toolchain,
                                                  const ToolchainIdentity& identity,
                                                  const std::string& source,
                                                  const fs::path& cache_dir, double timeout_s) {
  using Status = targets::MicrobenchmarkOutcome::Status;
  targets::MicrobenchmarkOutcome out;
  if (!identity.found) {
    out.status = Status::kBuildFailed;
    out.output = identity.error;
    return out;
  }
  static std::atomic<uint64_t> runs{0};
  const fs::path scratch =
      fs::absolute(cache_dir) / fmt::format("bench-{}-{}", getpid(), runs.fetch_add(1));
  fs::create_directories(scratch);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } cleanup{scratch};
  write_file(scratch / "bench.cc", source);
  sandbox::Policy policy;
  policy.writable = {scratch};
  policy.working_directory = scratch;
  policy.limits = compiler_limits();
  std::vector<std::string> argv = {toolchain.cxx};
  const auto flags = program_flags(toolchain);
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(),
              {"-x", "c++", (scratch / "bench.cc").string(), "-o", (scratch / "bench").string()});
  const ProcessResult built = run_process(argv, 120.0, policy);
  if (!built.ok()) {
    out.status = Status::kBuildFailed;
    const std::string missing = sandbox_exec_failure(built);
    out.output = !built.started     ? built.error
                 : !missing.empty() ? "compiler not found in the sandbox: " + missing
                 : built.timed_out  ? built.output + "\nheadway: the compiler ran past 120 s"
                                    : built.output;
    return out;
  }
  // The program may use every core for its whole time, no more.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  policy.limits = {};
  policy.limits.address_space_bytes = 8ull << 30;
  policy.limits.file_size_bytes = 256ull << 20;
  policy.limits.cpu_seconds = static_cast<uint64_t>(std::ceil(timeout_s * cores)) + 1;
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult ran = run_process({(scratch / "bench").string()}, timeout_s, policy);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.output = ran.output;
  if (ran.ok()) {
    out.status = Status::kRan;
  } else {
    out.status = Status::kRunFailed;
    out.failure = !ran.started    ? "could not start: " + ran.error
                  : ran.timed_out ? fmt::format("ran past its {:g} s and was stopped", timeout_s)
                  : ran.signal    ? "killed by " + signal_name(ran.signal)
                                  : fmt::format("exited with status {}", ran.exit_code);
  }
  return out;
}

}  // namespace headway::cpu
