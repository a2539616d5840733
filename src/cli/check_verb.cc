#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "targets/cpu/cpu_check.h"
#include "targets/cpu/cpu_target.h"

namespace headway::cli {

namespace {
struct CheckArgs {
  std::string kernel;
  std::string source;
  std::optional<uint64_t> seed;
  double timeout = 10.0;
  std::string target = "cpu";
  std::string cxx = "g++";
  bool json = false;
};

const char* status_name(cpu::CheckReport::Status s) {
  switch (s) {
    case cpu::CheckReport::Status::kCorrect:
      return "correct";
    case cpu::CheckReport::Status::kIncorrect:
      return "incorrect";
    case cpu::CheckReport::Status::kForbiddenWrite:
      return "forbidden-write";
    case cpu::CheckReport::Status::kFailedToRun:
      return "failed-to-run";
    case cpu::CheckReport::Status::kLoadFailed:
      return "load-failed";
    case cpu::CheckReport::Status::kNoRunner:
      return "no-runner";
    case cpu::CheckReport::Status::kMisbehaved:
      return "misbehaved";
  }
  return "";
}

const char* outcome_name(targets::CheckOutcome::Status s) {
  using S = targets::CheckOutcome::Status;
  switch (s) {
    case S::kCorrect:
      return "correct";
    case S::kIncorrect:
      return "incorrect";
    case S::kCrashed:
      return "crashed";
    case S::kTimedOut:
      return "timed-out";
    case S::kUnloadable:
      return "unloadable";
    case S::kCheated:
      return "cheated";
  }
  return "";
}

// Any target but cpu, through the Target interface. A target whose device is not on this
// machine is an input error (exit 2), said in one line.
int run_target_check(const CheckArgs& args, const KernelContract& kernel,
                     const std::string& source) {
  auto target = target_or_throw(args.target);
  const targets::Artifact artifact = build_or_throw(*target, source, args.source);
  targets::CheckOptions options;
  options.seed = args.seed;
  targets::CheckOutcome outcome;
  try {
    outcome = target->check(kernel, artifact, options);
  } catch (const targets::DeviceUnavailable& e) {
    throw EnvironmentError(e.what());
  }
  if (outcome.status == targets::CheckOutcome::Status::kUnloadable)
    throw UsageError(outcome.description);
  if (args.json) {
    const nlohmann::json j = {
        {"kernel", kernel.name()},    {"source", args.source},
        {"target", args.target},      {"status", outcome_name(outcome.status)},
        {"kind", outcome.kind},       {"seed", outcome.seed},
        {"seconds", outcome.seconds}, {"message", outcome.description},
        {"details", outcome.details}};
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}: {}: {} ({:.1f} s)\n", kernel.name(), outcome_name(outcome.status),
               outcome.description, outcome.seconds);
  }
  return outcome.correct() ? 0 : 1;
}

int run_check(const CheckArgs& args) {
  const KernelContract& kernel = kernel_or_throw(args.kernel);
  const std::string source = read_source_or_throw(args.source);
  if (args.target != "cpu") return run_target_check(args, kernel, source);
  cpu::CpuTarget target(args.cxx);
  const auto so = build_or_throw(target, source, args.source).path;
  cpu::CheckOptions options;
  options.seed = args.seed;
  options.limits.call_timeout_seconds = args.timeout;
  const cpu::CheckReport report = cpu::check_candidate(kernel, so, options);
  // A source without the entry point is an input error, not a wrong kernel.
  if (report.status == cpu::CheckReport::Status::kLoadFailed) throw UsageError(report.describe());
  if (report.status == cpu::CheckReport::Status::kNoRunner) {
    std::fprintf(stderr, "headway: %s\n", report.describe().c_str());
    return 3;
  }
  if (args.json) {
    nlohmann::json j = {{"kernel", kernel.name()},
                        {"source", args.source},
                        {"status", status_name(report.status)},
                        {"seed", report.seed},
                        {"seconds", report.seconds},
                        {"message", report.describe()}};
    if (report.failed_call) j["failed_call"] = report.failed_call;
    if (report.violation) {
      const auto& v = *report.violation;
      j["violation"] = {
          {"region", v.region},     {"index", v.index},         {"got", v.got},
          {"expected", v.expected}, {"tolerance", v.tolerance}, {"failing", v.failing}};
    }
    if (report.status == cpu::CheckReport::Status::kFailedToRun) {
      j["run"] = {{"signal", report.run.signal},
                  {"exit_code", report.run.exit_code},
                  {"message", report.run.describe()}};
    }
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}: {} ({:.1f} s)\n", kernel.name(), report.describe(), report.seconds);
  }
  return report.correct() ? 0 : 1;
}
}  // namespace

void add_check(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand("check", "Build a candidate and check it against the reference");
  cmd->add_option("--kernel", args->kernel, "qkv, attn_out or ffn")->required();
  cmd->add_option("--source", args->source, "candidate source file")->required();
  cmd->add_option("--seed", args->seed, "fixed input seed (default: fresh inputs)");
  cmd->add_option("--timeout", args->timeout, "seconds one call may take")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--target", args->target, "cpu (default), cuda, or another registered target");
  cmd->add_option("--cxx", args->cxx, "C++ compiler (cpu target)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_check(*args); }); });
}

}  // namespace headway::cli
