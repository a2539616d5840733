#include "targets/command/job_runner.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "targets/command/command_runner.h"
#include "targets/target.h"

namespace headway::command {

namespace fs = std::filesystem;

JobRunner::JobRunner(const PackManifest& manifest, fs::path scratch, fs::path log,
                     pool::DevicePool* device)
    : manifest_(manifest), scratch_(std::move(scratch)), log_(std::move(log)), device_(device) {}

JobStats JobRunner::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::string JobRunner::budget_text() const {
  std::lock_guard lock(mutex_);
  return budget_text_locked();
}

std::string JobRunner::budget_text_locked() const {
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

void JobRunner::log(int64_t job, const std::string& kernel, size_t arms, int attempt,
                    const std::string& outcome, const std::string& reason, double seconds) {
  fs::create_directories(log_.parent_path());
  std::ofstream out(log_, std::ios::app);
  out << nlohmann::json{{"job", job},         {"kernel", kernel},   {"arms", arms},
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
    int64_t number = 0;
    {
      std::lock_guard lock(mutex_);
      if ((manifest_.budget_jobs > 0 && stats_.jobs >= manifest_.budget_jobs) ||
          (manifest_.budget_device_minutes > 0 &&
           stats_.device_seconds >= 60 * manifest_.budget_device_minutes)) {
        throw targets::DeviceStopped(
            fmt::format("the device budget is spent: {}", budget_text_locked()));
      }
      number = ++stats_.jobs;
    }
    result.attempts = attempt;
    const fs::path folder = scratch_ / fmt::format("job-{}", number);
    fs::remove_all(folder);
    fs::create_directories(folder);
    CommandCall call;
    call.working_folder = folder;
    call.arms = arms;
    call.env = {{"HEADWAY_KERNEL", kernel},
                {"HEADWAY_ENTRY",
                 manifest_.kernels.count(kernel) ? manifest_.kernels.at(kernel).entry : kernel},
                {"HEADWAY_SEED", std::to_string(seed)},
                {"HEADWAY_JOB", std::to_string(number)}};
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = run_command(manifest_, time, call, device_);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!r.ok() && device_fault(r)) {
      const std::string why =
          fmt::format("{} ({})", describe_failure(r, time.timeout_seconds), excerpt(r.output, 120));
      {
        std::lock_guard lock(mutex_);
        stats_.device_seconds += seconds;
        ++stats_.retried;
        log(number, kernel, arms.size(), attempt, "retried", why, seconds);
      }
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
    std::lock_guard lock(mutex_);
    stats_.device_seconds += seconds;
    if (!result.failure.empty()) ++stats_.failed;
    log(number, kernel, arms.size(), attempt, result.failure.empty() ? "ok" : "failed",
        result.failure, seconds);
    return result;
  }
}

std::vector<JobResult> JobRunner::run_many(const std::string& kernel,
                                           const std::vector<JobSpec>& jobs) {
  std::vector<JobResult> results(jobs.size());
  std::vector<std::exception_ptr> errors(jobs.size());
  const auto one = [&](size_t i) {
    try {
      results[i] = run(kernel, jobs[i].arms, jobs[i].seed);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  std::vector<std::thread> others;
  for (size_t i = 1; i < jobs.size(); ++i) others.emplace_back(one, i);
  if (!jobs.empty()) one(0);
  for (auto& t : others) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return results;
}

}  // namespace headway::command
