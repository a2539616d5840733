// headway-cuda-runner: the process that holds the GPU for the cuda target (src/targets/cuda/).
// It runs no candidate code on the host: a candidate is a device module whose plan (hw_plan) this
// program launches, so the clock (CUDA events around the plan) and the checks are headway's.
//
//   headway-cuda-runner info
//   headway-cuda-runner check --kernel K [--spec FILE --shape-set S] --module FILE --seed N
//   headway-cuda-runner serve --kernel K [--spec FILE --shape-set S] --seed N [--sets S]
//                             --module FILE [--module FILE ...]
//   headway-cuda-runner facts [--readings N]
//
// K is a built-in kernel, or with --spec the kernel of that spec file at shape set S
// (runner_kernel.h: its reference and generator are built in the runner, under the build cache).
// info, check and facts print one JSON object. serve answers one line per request line on stdin:
//   read I   -> "ok SECONDS SM_MHZ THROTTLED COMPARED" (SM_MHZ 0 when unknown; COMPARED below),
//               "breach J REASON" (arm J broke a rule: a wrong timed output, a write into its
//               inputs) or "fail I REASON" (the device failed under arm I; the runner exits after
//               it: the context is lost). A reading is a warm-up launch of arm I's plan on
//               another set, then one timed launch on a set drawn at random and patched anew.
//   read I paired -> the same, on the set and patch of the reading just before when that was
//               another arm's and ended "ok": then the two calls' writes are compared element
//               by element, and where they differ by more than kAgreeShare of the tolerance the
//               reference judges both (a wrong one is a "breach" of its arm). COMPARED is 1 when
//               the comparison was made, else 0 (the reading was a fresh one).
//   verify   -> every arm's last timed call, unless it was verified already, is verified:
//               "verified" or "breach I REASON"
// Exit status: 0 done, 2 bad usage, 3 no usable GPU ("headway-cuda-runner: no GPU is present:
// WHY" on stderr), 4 a driver failure.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/rng.h"
#include "kernels/contract.h"
#include "targets/cuda/runner/checked_call.h"
#include "targets/cuda/runner/device_facts.h"
#include "targets/cuda/runner/gpu.h"
#include "targets/cuda/runner/options.h"
#include "targets/cuda/runner/server.h"

namespace headway::cuda_runner {
namespace {

using nlohmann::json;

int run_check(Gpu& gpu, const Options& o) {
  const cuda::LoadedKernel loaded = kernel_of(o);
  const KernelContract& kernel = *loaded.kernel;
  if (o.modules.size() != 1) usage("check takes one --module");
  json out = {{"seed", o.seed}, {"bytes_to_move", kernel.bytes_to_move()}};
  auto module = gpu.load(o.modules[0]);
  if (!module) {
    out["status"] = "unloadable";
    out["kind"] = "bad-module";
    out["description"] = module.error().message;
    std::cout << out.dump() << "\n";
    return 0;
  }
  SharedBuffers host(kernel.regions());
  DeviceBuffer inputs(gpu, host.layout().input_bytes);
  DeviceBuffer writable(gpu, host.layout().writable_bytes);
  DeviceBuffer scratch(gpu, module.value().plan.scratch_bytes);
  // The second call brings other weights at the same addresses: nothing kept from the first
  // call may be reused.
  const uint64_t seeds[] = {o.seed, mix_seed(o.seed, 0xc0ffee)};
  for (int call = 0; call < 2; ++call) {
    kernel.generate(seeds[call], host);
    std::string violation;
    try {
      violation = checked_call(gpu, kernel, module.value(), host, inputs, writable, scratch);
    } catch (const DriverFailure& e) {
      out["status"] = "crashed";
      out["kind"] = "device-fault";
      out["description"] = std::string("call ") + std::to_string(call + 1) + ": " + e.what();
      std::cout << out.dump() << "\n";
      return 0;
    }
    if (!violation.empty()) {
      out["status"] = "incorrect";
      out["kind"] = call == 0 ? "wrong-output" : "wrong-output-after-new-weights";
      out["description"] = std::string("call ") + std::to_string(call + 1) + ": " + violation;
      std::cout << out.dump() << "\n";
      return 0;
    }
  }
  out["status"] = "correct";
  out["kind"] = "correct";
  out["description"] = "two calls correct (the second with new weights at the same addresses)";
  std::cout << out.dump() << "\n";
  return 0;
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.mode != "info" && o.mode != "check" && o.mode != "serve" && o.mode != "facts")
    usage("unknown mode '" + o.mode + "' (info, check, serve or facts)");
  Gpu gpu;
  if (std::string why = gpu.open(); !why.empty()) {
    std::fprintf(stderr, "headway-cuda-runner: no GPU is present: %s\n", why.c_str());
    return 3;
  }
  try {
    if (o.mode == "info") {
      std::cout << device_json(gpu.info()).dump() << "\n";
      return 0;
    }
    if (o.mode == "check") return run_check(gpu, o);
    if (o.mode == "serve") return run_serve(gpu, o);
    return run_facts(gpu, o);
  } catch (const DriverFailure& e) {
    std::fprintf(stderr, "headway-cuda-runner: %s\n", e.what());
    return 4;
  }
}

}  // namespace
}  // namespace headway::cuda_runner

int main(int argc, char** argv) { return headway::cuda_runner::run(argc, argv); }
