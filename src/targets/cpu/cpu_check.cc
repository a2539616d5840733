#include "targets/cpu/cpu_check.h"

#include <fmt/format.h>

#include <chrono>
#include <random>

#include "common/rng.h"
#include "targets/cpu/timed_session.h"

namespace headway::cpu {

std::string CheckReport::describe() const {
  const std::string call = failed_call == 2 ? " on the second call (new inputs at the same addresses)" : "";
  switch (status) {
    case Status::kCorrect: return fmt::format("correct (seed {})", seed);
    case Status::kIncorrect:
      return fmt::format("incorrect{} (seed {}): {}", call, seed, violation->describe());
    case Status::kForbiddenWrite:
      return fmt::format("forbidden write{} (seed {}): {}", call, seed, violation->describe());
    case Status::kFailedToRun: return fmt::format("the kernel {}{} (seed {})", run.describe(), call, seed);
    case Status::kMisbehaved: return fmt::format("the kernel {}{} (seed {})", run.message, call, seed);
    case Status::kLoadFailed:
    case Status::kNoRunner: return run.describe();
  }
  return "";
}

CheckReport check_candidate(const KernelContract& kernel, const std::filesystem::path& shared_object,
                            const CheckOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CheckReport report;
  report.seed = options.seed ? *options.seed : std::random_device{}() * 0x100000001ull ^ std::random_device{}();
  auto finish = [&] {
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  };
  SharedBuffers buffers(kernel.regions());
  RunnerSpec spec;
  spec.kernel = &kernel;
  spec.inputs = buffers.input_memory();
  spec.set_bytes = buffers.layout().input_bytes;
  spec.writable = {buffers.writable_memory()};
  spec.objects = {shared_object};
  spec.limits = options.limits;
  auto host = RunnerHost::start(spec, &report.run);
  auto process = host ? host->spawn(0, 0, 1, &report.run) : nullptr;
  if (!process) {
    report.status = report.run.status == CallResult::Status::kLoadFailed ? CheckReport::Status::kLoadFailed
                    : report.run.status == CallResult::Status::kNoRunner ? CheckReport::Status::kNoRunner
                                                                          : CheckReport::Status::kFailedToRun;
    return finish();
  }
  for (int call = 1; call <= 2; ++call) {
    kernel.generate(call == 1 ? report.seed : mix_seed(report.seed, 2), buffers);
    const auto expected = kernel.reference(buffers);
    poison_outputs(buffers, expected);
    const Snapshot before = take_snapshot(buffers);
    const CallResult r = process->call(0);
    if (r.ok()) {
      if (auto breach = idle_breach(*process)) {
        report.status = CheckReport::Status::kMisbehaved;
        report.failed_call = call;
        report.run.message = *breach;
        return finish();
      }
    }
    if (!r.ok()) {
      report.status = CheckReport::Status::kFailedToRun;
      report.failed_call = call;
      report.run = r;
      return finish();
    }
    if (auto v = verify(kernel, buffers, before, expected)) {
      const bool forbidden = v->kind == Violation::Kind::kWroteInput ||
                             v->kind == Violation::Kind::kWroteOutsideRows;
      report.status = forbidden ? CheckReport::Status::kForbiddenWrite : CheckReport::Status::kIncorrect;
      report.failed_call = call;
      report.violation = v;
      return finish();
    }
  }
  return finish();
}

}  // namespace headway::cpu
