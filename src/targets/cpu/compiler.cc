#include "targets/cpu/compiler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <system_error>

#include "common/embedded.h"
#include "common/hash.h"
#include "common/subprocess.h"

namespace headway::cpu {

namespace fs = std::filesystem;

ToolchainIdentity identify(const Toolchain& toolchain) {
  ToolchainIdentity id;
  const ProcessResult r = run_process({toolchain.cxx, "--version"}, 30.0);
  if (!r.ok()) {
    id.error = r.started ? fmt::format("`{} --version` failed: {}", toolchain.cxx, r.output)
                         : fmt::format("compiler not found: {}", r.error);
    return id;
  }
  id.found = true;
  id.version = r.output.substr(0, r.output.find('\n'));
  id.id = id.version;
  for (const auto& f : toolchain.flags) id.id += " " + f;
  return id;
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
  const std::string key = identity.id + '\0' + source;
  const std::string name = fmt::format("{:016x}", hash_bytes(key.data(), key.size()));
  fs::create_directories(cache_dir);
  const fs::path so = cache_dir / (name + ".so");
  if (fs::exists(so)) {
    result.status = BuildResult::Status::kBuilt;
    result.shared_object = so;
    result.cached = true;
    return result;
  }
  // A private scratch directory per build: concurrent builds never share files.
  const fs::path scratch = cache_dir / fmt::format("tmp-{}-{}", name, getpid());
  fs::create_directories(scratch);
  write_file(scratch / "headway_kernel.h", embedded_file("include/headway/kernel_abi.h"));
  write_file(scratch / "headway_support.h", embedded_file("include/headway/kernel_support.h"));
  write_file(scratch / "candidate.cc", source);

  std::vector<std::string> argv = {toolchain.cxx};
  argv.insert(argv.end(), toolchain.flags.begin(), toolchain.flags.end());
  argv.insert(argv.end(), {"-I", scratch.string(), "-x", "c++", (scratch / "candidate.cc").string(),
                           "-o", (scratch / "candidate.so").string()});
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = run_process(argv, timeout_seconds);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.diagnostics = r.output;
  if (!r.started) {
    result.status = BuildResult::Status::kToolchainMissing;
    result.diagnostics = r.error;
  } else if (r.timed_out) {
    result.diagnostics += fmt::format("\nheadway: the compiler ran past {} s and was stopped", timeout_seconds);
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
