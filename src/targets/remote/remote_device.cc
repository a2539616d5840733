#include "targets/remote/remote_device.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <stdexcept>
#include <thread>

#include "common/sandbox.h"
#include "common/subprocess.h"
#include "targets/remote/device_job.h"
#include "targets/remote/remote_paired_device.h"
#include "targets/remote/remote_session.h"

namespace headway::remote {

namespace {

using nlohmann::json;
using statistics::Arm;

std::string tail(const std::string& text, size_t n = 400) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

// The last line of `output` that is a JSON object (the reply; the job's messages come before it
// or after it on the same stream), or null.
json last_json_line(const std::string& output) {
  size_t end = output.size();
  while (end > 0) {
    const size_t begin = output.rfind('\n', end - 1);
    const size_t from = begin == std::string::npos ? 0 : begin + 1;
    if (output.compare(from, 2, "{\"") == 0) {
      json parsed = json::parse(output.substr(from, end - from), nullptr, false);
      if (parsed.is_object()) return parsed;
    }
    if (begin == std::string::npos) break;
    end = begin;
  }
  return nullptr;
}

}  // namespace

void add_job_accounting(json& sum, const json& part) {
  if (!part.is_object()) return;
  for (const auto& [key, value] : part.items()) {
    if (!value.is_number()) continue;
    sum[key] = sum.value(key, 0.0) + value.get<double>();
  }
  sum["jobs"] = sum.value("jobs", 0.0) + 1.0;
}

std::string device_job_binary() {
  if (const char* env = std::getenv("HEADWAY_DEVICE_JOB_BINARY"); env && *env) return env;
  const auto self = own_executable();
  return self.empty() ? std::string("headway") : self.string();
}

RemoteDevice::RemoteDevice(std::shared_ptr<pool::DevicePool> pool, RemoteOptions options)
    : pool_(std::move(pool)), options_(std::move(options)) {}

json RemoteDevice::request(const std::string& op, const KernelContract* kernel,
                           const std::vector<targets::Artifact>& artifacts, uint64_t seed) const {
  json artifacts_json = json::array();
  for (const auto& a : artifacts) artifacts_json.push_back(artifact_to_json(a));
  json r = {{"target", options_.target},
            {"toolchain", options_.toolchain},
            {"sandbox_disabled", sandbox::mode() == sandbox::Mode::kDisabled},
            {"one_core", options_.one_core},
            {"op", op},
            {"seed", seed},
            {"artifacts", artifacts_json}};
  if (kernel) r["kernel"] = kernel_to_json(*kernel);
  return r;
}

json RemoteDevice::run(const std::string& label, json request) {
  pool::PoolJob job;
  job.label = fmt::format("{} {} ({} artifacts)", label,
                          request.contains("kernel") ? request["kernel"].value("name", "") : "",
                          request.value("artifacts", json::array()).size());
  job.argv = {options_.binary, "device-job", "--request", request.dump()};
  job.timeout_seconds = options_.job_timeout_seconds;
  pool::PoolJobResult result;
  try {
    result = pool_->run(job);
  } catch (const pool::PoolStopped& e) {
    throw targets::DeviceStopped(std::string("the device pool stopped: ") + e.what());
  }
  const ProcessResult& p = result.process;
  if (!p.started || p.timed_out || p.signal != 0 || p.exit_code != 0) {
    throw targets::DeviceStopped(fmt::format(
        "a device job ({}) did not run to its end on {}: {}{}", job.label, result.worker,
        !p.started    ? "it did not start: " + p.error
        : p.timed_out ? fmt::format("it ran past {:.0f} s", job.timeout_seconds)
        : p.signal    ? fmt::format("killed by signal {}", p.signal)
                      : fmt::format("exit status {}", p.exit_code),
        p.output.empty() ? "" : "; it said: " + tail(p.output)));
  }
  json reply = last_json_line(p.output);
  if (!reply.is_object()) {
    throw targets::DeviceStopped(fmt::format("a device job ({}) on {} gave no reply: {}", job.label,
                                             result.worker, tail(p.output)));
  }
  {
    std::lock_guard lock(models_mutex_);
    models_seen_.insert(reply.value("device", json::object()).value("model", ""));
  }
  if (reply.value("other_model", false)) return reply;  // run_pinned's, to run again
  if (reply.contains("error")) {
    const std::string why = fmt::format("{} (on {})", reply.value("error", ""), result.worker);
    if (reply.value("unavailable", false)) throw targets::DeviceUnavailable(why);
    throw targets::DeviceStopped(why);
  }
  reply["worker"] = result.worker;
  return reply;
}

std::vector<json> RemoteDevice::run_many(const std::string& label, std::vector<json> requests) {
  if (requests.size() == 1) return {run(label, std::move(requests.front()))};
  std::vector<std::future<json>> running;
  for (auto& r : requests)
    running.push_back(std::async(std::launch::async, [this, &label, r = std::move(r)]() mutable {
      return run(label, std::move(r));
    }));
  std::vector<json> replies;
  std::exception_ptr first;
  for (auto& f : running) {
    try {
      replies.push_back(f.get());
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
  return replies;
}

std::vector<json> RemoteDevice::run_pinned(const std::string& label, std::vector<json> requests,
                                           std::string& model) {
  const auto model_of = [](const json& reply) {
    return reply.value("device", json::object()).value("model", "");
  };
  if (!model.empty()) {
    for (auto& r : requests) r["model"] = model;
  }
  std::vector<json> replies = run_many(label, requests);
  if (model.empty()) model = model_of(replies.front());
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration<double>(options_.job_timeout_seconds);
  for (double wait = 0.05;; wait = std::min(1.0, 2 * wait)) {
    std::vector<size_t> again;
    for (size_t i = 0; i < replies.size(); ++i) {
      if (replies[i].value("other_model", false) || model_of(replies[i]) != model)
        again.push_back(i);
    }
    if (again.empty()) return replies;
    if (std::chrono::steady_clock::now() > until) {
      throw targets::DeviceStopped(
          fmt::format("no device of model {} took a job ({}) within {:.0f} s", model, label,
                      options_.job_timeout_seconds));
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    std::vector<json> pinned;
    for (size_t i : again) {
      requests[i]["model"] = model;
      pinned.push_back(requests[i]);
    }
    std::vector<json> rerun = run_many(label, std::move(pinned));
    for (size_t k = 0; k < again.size(); ++k) replies[again[k]] = std::move(rerun[k]);
  }
}

targets::CheckOutcome RemoteDevice::check(const KernelContract& kernel,
                                          const targets::Artifact& artifact,
                                          const targets::CheckOptions& options) {
  json r = request("check", &kernel, {artifact}, options.seed.value_or(0));
  if (options.seed) r["check_seed"] = *options.seed;
  if (options.call_timeout_seconds) r["call_timeout"] = *options.call_timeout_seconds;
  return check_from_json(run("check", std::move(r)).at("check"));
}

std::unique_ptr<targets::Session> RemoteDevice::start_session(
    const KernelContract& kernel, const std::vector<targets::Artifact>& artifacts, uint64_t seed) {
  return make_remote_session(*this, request("readings", &kernel, artifacts, seed),
                             static_cast<int>(artifacts.size()));
}

std::vector<targets::Timing> RemoteDevice::time_side_by_side(
    const KernelContract& kernel, const std::vector<targets::Artifact>& artifacts, int readings,
    uint64_t seed) {
  json r = request("side_by_side", &kernel, artifacts, seed);
  r["readings"] = readings;
  const json reply = run("time", std::move(r));
  std::vector<targets::Timing> out;
  for (const auto& t : reply.at("timings")) {
    out.push_back(timing_from_json(t));
    out.back().device_model = reply.value("device", json::object()).value("model", "");
  }
  return out;
}

std::unique_ptr<statistics::PairedDevice> RemoteDevice::paired_device(
    const KernelContract& kernel, const targets::Artifact& head, const targets::Artifact& candidate,
    uint64_t seed, Arm slowed, double slowdown) {
  return make_remote_paired_device(*this, request("pairs", &kernel, {head, candidate}, seed),
                                   slowed, slowdown);
}

std::vector<targets::ChipFact> RemoteDevice::measure_facts(const targets::FactOptions& options) {
  json r = request("facts", nullptr, {}, 0);
  r["readings"] = options.readings;
  r["noise_repeats"] = options.noise_repeats;
  r["max_threads"] = options.max_threads;
  r["only"] = options.only;
  std::string model = options.model;
  if (!model.empty()) {
    const auto models = device_models();
    if (std::find(models.begin(), models.end(), model) == models.end()) {
      throw std::invalid_argument(
          fmt::format("no device of the pool is of model '{}' (they are of {})", model,
                      fmt::join(models, ", ")));
    }
  }
  const json reply = model.empty() ? run("facts", std::move(r))
                                   : run_pinned("facts", {std::move(r)}, model).front();
  std::vector<targets::ChipFact> out;
  for (const auto& f : reply.at("facts")) out.push_back(fact_from_json(f));
  return out;
}

std::vector<std::string> RemoteDevice::device_models() {
  {
    std::lock_guard probing(probe_mutex_);  // a second caller waits for the first's probe
    if (!models_probed_) {
      const json probe_request = request("model", nullptr, {}, 0);
      run_many("model", std::vector<json>(static_cast<size_t>(devices()), probe_request));
      models_probed_ = true;
    }
  }
  std::lock_guard lock(models_mutex_);
  return {models_seen_.begin(), models_seen_.end()};
}

}  // namespace headway::remote
