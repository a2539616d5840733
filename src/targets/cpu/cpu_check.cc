#include "targets/cpu/cpu_check.h"

#include <fmt/format.h>

#include <chrono>

#include "common/rng.h"
#include "kernels/verify.h"
#include "targets/cpu/idle_breach.h"
#include "targets/cpu/timed_session.h"

namespace headway::cpu {

namespace {

using targets::CheckOutcome;

std::string on_call(int call) {
  return call == 2 ? " on the second call (new inputs at the same addresses)" : "";
}

nlohmann::json run_json(const CallResult& run) {
  return {{"status", to_string(run.status)},
          {"signal", run.signal},
          {"exit_code", run.exit_code},
          {"message", run.describe()}};
}

void set_failed_run(CheckOutcome& out, const CallResult& run, int call) {
  out.status = run.status == CallResult::Status::kTimedOut ? CheckOutcome::Status::kTimedOut
                                                           : CheckOutcome::Status::kCrashed;
  out.kind = "failed-to-run";
  out.description =
      fmt::format("the kernel {}{} (seed {})", run.describe(), on_call(call), out.seed);
  out.details["failed_call"] = call;
  out.details["run"] = run_json(run);
}

void set_violation(CheckOutcome& out, const Violation& v, int call) {
  const bool forbidden =
      v.kind == Violation::Kind::kWroteInput || v.kind == Violation::Kind::kWroteOutsideRows;
  out.status = CheckOutcome::Status::kIncorrect;
  out.kind = forbidden ? "forbidden-write" : "incorrect";
  out.description = fmt::format("{}{} (seed {}): {}", forbidden ? "forbidden write" : "incorrect",
                                on_call(call), out.seed, v.describe());
  out.details["failed_call"] = call;
  out.details["violation"] = {{"kind", to_string(v.kind)}, {"region", v.region},
                              {"index", v.index},          {"got", v.got},
                              {"expected", v.expected},    {"tolerance", v.tolerance},
                              {"failing", v.failing}};
}

// details.error_share: a correct check's margin, the element of call `call` whose error came
// closest to its tolerance.
nlohmann::json error_share_json(const ErrorShare& e, int call) {
  return {{"share", e.share},
          {"call", call},
          {"region", e.at->region},
          {"index", e.at->index},
          {"got", e.at->got},
          {"expected", e.at->expected},
          {"tolerance", e.at->tolerance}};
}

}  // namespace

CheckOutcome check_candidate(const KernelContract& kernel,
                             const std::filesystem::path& shared_object,
                             const targets::CheckOptions& options, ProcessLimits limits) {
  const auto start = std::chrono::steady_clock::now();
  CheckOutcome out;
  out.seed = options.seed ? *options.seed : fresh_seed();
  out.kind = "correct";
  out.description = fmt::format("correct (seed {})", out.seed);
  out.details = {{"failed_call", 0}};
  auto finish = [&] {
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  };
  SharedBuffers buffers(kernel.regions());
  RunnerSpec spec;
  spec.kernel = &kernel;
  spec.inputs = buffers.input_memory();
  spec.set_bytes = buffers.layout().input_bytes;
  spec.writable = {buffers.writable_memory()};
  spec.objects = {shared_object};
  spec.limits = limits;
  if (options.call_timeout_seconds)
    spec.limits.call_timeout_seconds = *options.call_timeout_seconds;
  CallResult failure;
  auto host = RunnerHost::start(spec, &failure);
  auto process = host ? host->spawn(0, 0, 1, &failure) : nullptr;
  if (!process) {
    if (failure.status == CallResult::Status::kNoRunner)
      throw targets::DeviceUnavailable(failure.describe());
    if (failure.status != CallResult::Status::kLoadFailed) {
      set_failed_run(out, failure, 0);
      return finish();
    }
    out.status = CheckOutcome::Status::kUnloadable;
    out.kind = "load-failed";
    out.description = failure.describe();
    return finish();
  }
  ErrorShare closest;  // over both calls
  int closest_call = 0;
  for (int call = 1; call <= 2; ++call) {
    kernel.generate(call == 1 ? out.seed : mix_seed(out.seed, 2), buffers);
    const auto expected = kernel.reference(buffers);
    poison_outputs(buffers, expected);
    const Snapshot before = take_snapshot(buffers);
    const CallResult r = process->call(0);
    if (!r.ok()) {
      set_failed_run(out, r, call);
      return finish();
    }
    if (auto breach = idle_breach(*process)) {
      out.status = CheckOutcome::Status::kCheated;
      out.kind = "misbehaved";
      out.description = fmt::format("the kernel {}{} (seed {})", *breach, on_call(call), out.seed);
      out.details["failed_call"] = call;
      return finish();
    }
    if (auto v = verify(kernel, buffers, before, expected)) {
      set_violation(out, *v, call);
      return finish();
    }
    if (ErrorShare e = error_share(kernel, buffers, expected);
        e.at && (!closest.at || e.share > closest.share)) {
      closest = std::move(e);
      closest_call = call;
    }
  }
  if (closest.at) out.details["error_share"] = error_share_json(closest, closest_call);
  return finish();
}

}  // namespace headway::cpu
