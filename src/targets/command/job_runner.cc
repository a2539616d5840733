#include "targets/command/job_runner.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "targets/command/command_runner.h"
#include "targets/target.h"

namespace headway::command {

namespace fs = std::filesystem;

JobRunner::JobRunner(const PackManifest& manifest, fs::path scratch, fs::path log,
                     pool::DevicePool* device)
    : manifest_(manifest), scratch_(std::move(scratch)), log_(std::move(log)), device_(device) {}

std::string JobRunner::budget_text() const {
  const std::string jobs = manifest_.budget_jobs > 0
                               ? fmt::format("{} of {} jobs", stats_.jobs, manifest_.budget_jobs)
                               : fmt::format("{} jobs (no limit)", stats_.jobs);
  const std::string minutes =
      manifest_.budget_device_minutes > 0
          ? fmt::format("{:.2f} of {:g} device minutes", stats_.device_seconds / 60,
                        manifest_.budget_device_minutes)
          : fmt::format("{:.2f} device minutes (no limit)", stats_.device_seconds / 60);
  return jobs + ", " + minutes + " used";
}

bool JobRunner::device_fault(const ProcessResult& r) const {
  const RetryPolicy& p = manifest_.retry;
  if (r.started && !r.timed_out && r.signal == 0) {
    for (int code : p.exit_codes) {
      if (r.exit_code == code) return true;
    }
  }
  return p.output_regex && std::regex_search(r.output, std::regex(*p.output_regex));
}

void JobRunner::log(const std::string& kernel, size_t arms, int attempt, const std::string& outcome,
                    const std::string& reason, double seconds) {
  fs::create_directories(log_.parent_path());
  std::ofstream out(log_, std::ios::app);
  out << nlohmann::json{{"job", stats_.jobs}, {"kernel", kernel},   {"arms", arms},
                        {"attempt", attempt}, {"outcome", outcome}, {"reason", reason},
                        {"seconds", seconds}}
             .dump()
      << '\n';
}

JobResult JobRunner::run(const std::string& kernel, const std::vector<fs::path>& arms,
                         uint64_t seed) {
  const CommandSpec& time = *manifest_.command("time");
  JobResult result;
  for (int attempt = 1;; ++attempt) {
    if (manifest_.budget_jobs > 0 && stats_.jobs >= manifest_.budget_jobs) {
      throw targets::DeviceStopped(fmt::format("the device budget is spent: {}", budget_text()));
    }
    if (manifest_.budget_device_minutes > 0 &&
        stats_.device_seconds >= 60 * manifest_.budget_device_minutes) {
      throw targets::DeviceStopped(fmt::format("the device budget is spent: {}", budget_text()));
    }
    ++stats_.jobs;
    result.attempts = attempt;
    const fs::path folder = scratch_ / fmt::format("job-{}", stats_.jobs);
    fs::remove_all(folder);
    fs::create_directories(folder);
    CommandCall call;
    call.working_folder = folder;
    call.arms = arms;
    call.env = {{"HEADWAY_KERNEL", kernel},
                {"HEADWAY_ENTRY",
                 manifest_.kernels.count(kernel) ? manifest_.kernels.at(kernel).entry : kernel},
                {"HEADWAY_SEED", std::to_string(seed)},
                {"HEADWAY_JOB", std::to_string(stats_.jobs)}};
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = run_command(manifest_, time, call, device_);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats_.device_seconds += seconds;
    if (!r.ok() && device_fault(r)) {
      ++stats_.retried;
      const std::string why =
          fmt::format("{} ({})", describe_failure(r, time.timeout_seconds), excerpt(r.output, 120));
      log(kernel, arms.size(), attempt, "retried", why, seconds);
      if (attempt >= manifest_.retry.max_attempts) {
        throw targets::DeviceStopped(
            fmt::format("the device failed {} attempts of one job in a row: {}", attempt, why));
      }
      continue;
    }
    fs::remove_all(folder);
    result.seconds.assign(arms.size(), std::nullopt);
    if (!r.ok()) {
      result.failure = fmt::format("the time job {}: {}", describe_failure(r, time.timeout_seconds),
                                   excerpt(r.output));
    } else {
      auto parsed = time.parser->arm_readings(r.output, static_cast<int>(arms.size()));
      if (!parsed) {
        result.failure = "the time command's output does not parse: " + parsed.error().message;
      } else {
        for (size_t i = 0; i < arms.size(); ++i) {
          const auto& v = parsed.value()[i];
          if (v && *v > 0) result.seconds[i] = *v * manifest_.seconds_per_unit();
        }
      }
    }
    if (!result.failure.empty()) ++stats_.failed;
    log(kernel, arms.size(), attempt, result.failure.empty() ? "ok" : "failed", result.failure,
        seconds);
    return result;
  }
}

}  // namespace headway::command
