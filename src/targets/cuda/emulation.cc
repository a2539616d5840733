#include "targets/cuda/emulation.h"

#include <fmt/format.h>

#include <cstdlib>
#include <regex>
#include <set>

#include "common/compiler_sandbox.h"
#include "common/embedded.h"
#include "common/subprocess.h"
#include "targets/cuda/nvcc.h"
#include "targets/cuda/runner_client.h"
#include "targets/sandboxed_build.h"

namespace headway::cuda {
namespace fs = std::filesystem;
namespace {

constexpr const char* kCompiler = "g++";
constexpr std::string_view kEmulationHeader = "src/targets/cuda/fake_driver/cuda_emulation.h";

}  // namespace

fs::path stand_in_driver() {
  if (const char* env = std::getenv("HEADWAY_CUDA_DRIVER"); env && *env) return env;
  return runner_executable().parent_path() / "libheadway_fake_libcuda.so";
}

targets::ToolchainInfo identify_emulation() {
  targets::ToolchainInfo info;
  std::vector<std::string> missing;
  if (!fs::exists(runner_executable()))
    missing.push_back(fmt::format("the cuda runner {}", runner_executable().string()));
  if (!fs::exists(stand_in_driver()))
    missing.push_back(fmt::format("the stand-in driver {}", stand_in_driver().string()));
  if (!missing.empty()) {
    info.error = fmt::format(
        "the emulated cuda toolchain needs {} (built with headway where the CUDA driver header "
        "cuda.h is found)",
        fmt::join(missing, " and "));
    return info;
  }
  const ProcessResult r = run_process({"/usr/bin/env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin",
                                       "HOME=/nonexistent", kCompiler, "--version"},
                                      30.0);
  if (!r.ok()) {
    info.error = fmt::format("the emulated cuda toolchain needs the host C++ compiler {}: {}",
                             kCompiler, r.started ? r.output.substr(0, 200) : r.error);
    return info;
  }
  info.found = true;
  info.version = "emulated on host threads (not a GPU): " + r.output.substr(0, r.output.find('\n'));
  info.id = info.version;
  info.caveat =
      "the cuda target is emulated on host threads: its timings, facts and floors are the "
      "host's, never a GPU's";
  return info;
}

std::string emulated_kernel_of(const std::string& source) {
  static const std::regex args_type("\\bhw_([a-z0-9_]+)_args\\b");
  std::set<std::string> kernels;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), args_type);
       it != std::sregex_iterator(); ++it)
    kernels.insert((*it)[1].str());
  return kernels.size() == 1 ? *kernels.begin() : "";
}

targets::BuildOutcome build_emulated(const targets::ToolchainInfo& id, const std::string& source,
                                     const fs::path& cache_dir, double timeout_seconds) {
  targets::BuildOutcome out;
  if (!id.found) {
    out.status = targets::BuildOutcome::Status::kToolchainMissing;
    out.diagnostics = id.error;
    return out;
  }
  const std::string kernel = emulated_kernel_of(source);
  if (kernel.empty()) {
    out.status = targets::BuildOutcome::Status::kCompileError;
    out.diagnostics =
        "candidate.cu: error: the emulated toolchain needs the source to name exactly one "
        "kernel's argument struct (hw_<kernel>_args), the type its kernels take";
    return out;
  }
  targets::SandboxedBuild build;
  build.inputs = cuda_candidate_headers();
  build.inputs.push_back({"cuda_emulation.h", std::string(embedded_file(kEmulationHeader))});
  build.inputs.push_back({"candidate.cu", source});
  // The module: the kernel file, then the launcher the stand-in driver calls for its launches.
  build.inputs.push_back({"module.cc", fmt::format("#include \"candidate.cu\"\n"
                                                   "HW_EMULATION_LAUNCHER(hw_{}_args)\n",
                                                   kernel)});
  build.key = id.id;
  for (const auto& input : build.inputs) build.key += '\0' + input.text;
  build.extension = ".so";
  build.output = "module.so";
  build.argv = [](const fs::path& scratch) {
    return std::vector<std::string>{kCompiler,
                                    "-std=c++20",
                                    "-O2",
                                    "-shared",
                                    "-fPIC",
                                    "-pthread",
                                    "-include",
                                    (scratch / "cuda_emulation.h").string(),
                                    "-I",
                                    scratch.string(),
                                    (scratch / "module.cc").string(),
                                    "-o",
                                    (scratch / "module.so").string()};
  };
  build.tool = "compiler";
  build.limits = compiler_limits();
  build.timeout_seconds = timeout_seconds;
  out = targets::run_sandboxed_build(build, cache_dir);
  out.artifact.meta = {{"toolchain", id.id}, {"emulated", true}};
  return out;
}

}  // namespace headway::cuda
