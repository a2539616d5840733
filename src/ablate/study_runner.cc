#include "ablate/study_runner.h"

#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <system_error>
#include <thread>

#include "common/duration.h"
#include "common/file_io.h"
#include "common/subprocess.h"

namespace headway::ablate {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStopped = "stopped";

// One run's commands; an empty string when it ended with a result, kStopped when the cancel flag
// stopped it, else why not.
std::string run_one(const Study& study, const std::string& arm_name, int run,
                    const RunnerOptions& options, double timeout) {
  const StudySpec& spec = study.spec();
  const Arm arm = parse_arm(arm_name).value();
  const fs::path dir = study.run_dir(arm_name, run);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) return fmt::format("cannot clear {}: {}", dir.string(), ec.message());
  fs::create_directories(dir.parent_path(), ec);

  CommandSpec init;
  const auto command = [&](std::vector<std::string> verb) {
    std::vector<std::string> argv{options.headway.string()};
    argv.insert(argv.end(), options.global_args.begin(), options.global_args.end());
    argv.insert(argv.end(), verb.begin(), verb.end());
    return argv;
  };
  init.argv = command({"init", dir.string(), "--target", spec.target});
  if (!spec.manifest.empty()) init.argv.insert(init.argv.end(), {"--manifest", spec.manifest});
  init.timeout_seconds = 120;
  init.cancel = options.cancel;
  const CommandResult made = run_command(init);
  if (made.cancelled) return kStopped;
  if (!made.ok()) {
    return fmt::format("headway init failed ({}): {}",
                       made.started ? fmt::format("exit {}", made.exit_code) : made.error,
                       made.err_tail);
  }

  CommandSpec optimize;
  optimize.argv = command({"optimize", "--workspace", dir.string(), "--budget", spec.budget,
                           "--seed", std::to_string(study.run_seed(run)), "--json"});
  if (!spec.kernels.empty()) optimize.argv.insert(optimize.argv.end(), {"--kernels", spec.kernels});
  optimize.argv.insert(optimize.argv.end(), arm.optimize_args.begin(), arm.optimize_args.end());
  optimize.argv.insert(optimize.argv.end(), spec.optimize_args.begin(), spec.optimize_args.end());
  optimize.argv.insert(optimize.argv.end(), options.optimize_args.begin(),
                       options.optimize_args.end());
  optimize.timeout_seconds = timeout;
  optimize.stderr_tail = 1u << 20;
  optimize.cancel = options.cancel;
  const CommandResult done = run_command(optimize);
  try {
    write_file(dir / "optimize.log", done.err_tail);
  } catch (const std::exception&) {
    // the log is for the user; the result below is what counts
  }
  if (done.cancelled) return kStopped;
  if (!done.ok()) {
    const std::string why = !done.started    ? done.error
                            : done.timed_out ? fmt::format("killed after {:.0f} s", timeout)
                            : done.signal    ? "killed by " + signal_name(done.signal)
                                             : fmt::format("exit {}", done.exit_code);
    return fmt::format("headway optimize failed ({}); its log: {}", why,
                       (dir / "optimize.log").string());
  }
  const auto result = nlohmann::json::parse(done.out, nullptr, false);
  if (result.is_discarded() || !result.is_object())
    return "headway optimize printed no JSON object";
  try {
    write_file_atomically(dir / "result.json", result.dump(2) + "\n");
  } catch (const std::exception& e) {
    return fmt::format("cannot store the result: {}", e.what());
  }
  return "";
}

}  // namespace

RunnerReport run_pending(const Study& study, const RunnerOptions& options) {
  const auto pending = study.pending();
  const double budget = parse_duration_seconds(study.spec().budget).value_or(0);
  const double timeout = options.timeout_seconds > 0 ? options.timeout_seconds : 2 * budget + 600;
  RunnerReport report;
  std::mutex mutex;
  std::atomic<size_t> next{0};
  const auto say = [&](const std::string& line) {
    if (options.log) options.log(line);  // under `mutex`
  };
  const auto worker = [&] {
    for (size_t i = next++; i < pending.size(); i = next++) {
      if (options.cancel && options.cancel->load()) return;
      const auto& [arm, run] = pending[i];
      {
        std::lock_guard lock(mutex);
        say(fmt::format("{} run {}: started ({} of {})", arm, run, i + 1, pending.size()));
      }
      const std::string why = run_one(study, arm, run, options, timeout);
      std::lock_guard lock(mutex);
      if (why.empty()) {
        ++report.ran;
        say(fmt::format("{} run {}: done", arm, run));
      } else if (why == kStopped) {
        ++report.stopped;
        say(fmt::format("{} run {}: stopped", arm, run));
      } else {
        report.failures.push_back(fmt::format("{} run {}: {}", arm, run, why));
        say(report.failures.back());
      }
    }
  };
  std::vector<std::thread> threads;
  const int jobs = std::max(1, std::min<int>(options.jobs, static_cast<int>(pending.size())));
  for (int j = 0; j < jobs; ++j) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  return report;
}

}  // namespace headway::ablate
