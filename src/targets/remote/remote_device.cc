#include "targets/remote/remote_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <future>
#include <optional>
#include <thread>

#include "common/rng.h"
#include "common/sandbox.h"
#include "targets/remote/device_job.h"

namespace headway::remote {

namespace {

using nlohmann::json;
using statistics::Arm;

// Adds every number of `part` to the same field of `sum` (an object of "<activity>_seconds").
void add_accounting(json& sum, const json& part) {
  if (!part.is_object()) return;
  for (const auto& [key, value] : part.items()) {
    if (!value.is_number()) continue;
    sum[key] = sum.value(key, 0.0) + value.get<double>();
  }
}

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

// A race's arms read through jobs; see remote_device.h.
class RemoteSession final : public targets::Session {
 public:
  RemoteSession(RemoteDevice& device, json request, int arms)
      : device_(device),
        request_(std::move(request)),
        buffered_(static_cast<size_t>(arms)),
        out_(static_cast<size_t>(arms)),
        breach_(static_cast<size_t>(arms), false),
        rng_(mix_seed(request_.at("seed").get<uint64_t>(), 0x72656d6f)) {}

  int arms() const override { return static_cast<int>(out_.size()); }

  Result<double> reading(int i) override {
    const auto k = static_cast<size_t>(i);
    if (!out_.at(k).empty()) return environment_error(out_[k]);
    if (buffered_[k].empty()) read_through_jobs();
    if (!out_[k].empty()) return environment_error(out_[k]);
    const double v = buffered_[k].front();
    buffered_[k].pop_front();
    return v;
  }

  std::optional<targets::ArmBreach> verify_arms() override {
    for (size_t a = 0; a < out_.size(); ++a) {
      if (breach_[a]) return targets::ArmBreach{static_cast<int>(a), out_[a]};
    }
    return std::nullopt;
  }
  std::optional<targets::ArmBreach> verify_arm(int arm) override {
    const auto a = static_cast<size_t>(arm);
    if (a < out_.size() && breach_[a]) return targets::ArmBreach{arm, out_[a]};
    return std::nullopt;
  }
  json accounting() const override { return accounting_; }

 private:
  void read_through_jobs() {
    std::vector<size_t> in;
    for (size_t a = 0; a < out_.size(); ++a) {
      if (out_[a].empty()) in.push_back(a);
    }
    std::vector<json> requests;
    for (int d = 0; d < device_.devices(); ++d) {
      json rounds = json::array();
      for (int r = 0; r < device_.options().rounds_per_job; ++r) {
        std::vector<size_t> order = in;
        for (size_t a = order.size(); a > 1; --a)
          std::swap(order[a - 1], order[rng_.next_u64() % a]);
        rounds.push_back(order);
      }
      json request = request_;
      request["rounds"] = rounds;
      request["seed"] = mix_seed(request_["seed"].get<uint64_t>(), static_cast<uint64_t>(jobs_++));
      requests.push_back(std::move(request));
    }
    const auto replies = device_.run_pinned("readings", std::move(requests), model_);
    for (const json& reply : replies) {
      add_accounting(accounting_, reply.value("accounting", json::object()));
      accounting_["jobs"] = accounting_.value("jobs", 0.0) + 1.0;
      const auto& readings = reply.at("readings");
      const auto& out = reply.at("out");
      const auto& breach = reply.at("breach");
      for (size_t a = 0; a < out_.size(); ++a) {
        if (!out_[a].empty()) continue;
        const std::string why = out.at(a).get<std::string>();
        if (!why.empty()) {
          out_[a] = fmt::format("{} (on {})", why, reply.value("worker", "a device"));
          breach_[a] = breach.at(a).get<bool>();
          buffered_[a].clear();
          continue;
        }
        for (const auto& s : readings.at(a)) buffered_[a].push_back(s.get<double>());
      }
    }
  }

  RemoteDevice& device_;
  json request_;
  std::string model_;  // the model every job runs on (run_pinned)
  std::vector<std::deque<double>> buffered_;
  std::vector<std::string> out_;  // non-empty: why the arm is out
  std::vector<bool> breach_;      // out for breaking a rule
  Rng rng_;
  int jobs_ = 0;
  json accounting_ = json::object();
};

// Head and candidate paired through jobs; see remote_device.h.
class RemotePairedDevice final : public statistics::PairedDevice {
 public:
  RemotePairedDevice(RemoteDevice& device, json request, Arm slowed, double slowdown)
      : device_(device), request_(std::move(request)), slowed_(slowed), slowdown_(slowdown) {}

  double run_once(Arm arm, json* clock_out) override {
    if (pending_ && pending_->first == arm) {
      const double v = pending_->second;
      pending_.reset();
      if (clock_out) *clock_out = clock(1);
      return v;
    }
    pending_.reset();
    if (prepared_.empty() || prepared_.front().first != arm) run_jobs({arm});
    Entry e = std::move(prepared_.front());
    prepared_.pop_front();
    if (!e.stop.is_null()) {
      const Arm who = statistics::parse_arm(e.stop.value("arm", "")).value_or(arm);
      const std::string reason = fmt::format("{} (on {})", e.stop.value("reason", ""), e.worker);
      if (e.stop.value("kind", "") == "disqualified")
        throw statistics::ArmDisqualified(who, reason);
      throw std::runtime_error(reason);
    }
    worker_ = e.worker;
    pending_ = std::make_pair(statistics::other(arm), slowed(statistics::other(arm), e.second));
    if (clock_out) *clock_out = clock(0);
    return slowed(arm, e.first_seconds);
  }
  void begin_pair() override { pending_.reset(); }
  int pairs_at_once() const override {
    return device_.devices() * std::max(1, device_.options().pairs_per_job);
  }
  void prepare_pairs(const std::vector<Arm>& firsts) override { run_jobs(firsts); }
  void verify_arms() override {
    if (breach_) throw statistics::ArmDisqualified(breach_->first, breach_->second);
  }
  int64_t verified_calls(Arm arm) const override { return verified_[arm == Arm::kHead ? 0 : 1]; }
  bool run_confirming_reading() override {
    std::vector<json> requests;
    for (int d = 0; d < device_.devices(); ++d) {
      json request = request_;
      request["op"] = "confirm";
      request["readings"] = device_.options().confirming_readings_per_job;
      request["seed"] = mix_seed(request_["seed"].get<uint64_t>(), static_cast<uint64_t>(jobs_++));
      requests.push_back(std::move(request));
    }
    int confirmed = 0;
    for (const json& reply : device_.run_pinned("confirm", std::move(requests), model_)) {
      take(reply);
      confirmed += reply.value("confirmed", 0);
    }
    verify_arms();
    return confirmed > 0;
  }
  json accounting() const override { return accounting_; }

 private:
  struct Entry {
    Arm first = Arm::kHead;
    double first_seconds = 0.0;
    double second = 0.0;
    json stop;  // non-null: the job stopped here (device_job.h)
    std::string worker;
  };

  // A reading's clock: where it was read (the worker, its node, the device's model).
  json clock(int position) const {
    return {{"job", jobs_}, {"position", position}, {"worker", worker_}, {"model", model_}};
  }

  double slowed(Arm arm, double seconds) const {
    return arm == slowed_ ? seconds * (1.0 + slowdown_) : seconds;
  }

  // The job's verified calls and accounting, and a breach it found.
  void take(const json& reply) {
    add_accounting(accounting_, reply.value("accounting", json::object()));
    accounting_["jobs"] = accounting_.value("jobs", 0.0) + 1.0;
    const auto& verified = reply.at("verified");
    for (size_t a = 0; a < 2; ++a) {
      const int64_t n = verified.at(a).get<int64_t>();
      verified_[a] = n < 0 || verified_[a] < 0 ? -1 : verified_[a] + n;
    }
    const json& stop = reply.value("stop", json());
    if (!breach_ && stop.is_object() && stop.value("kind", "") == "disqualified") {
      breach_ = std::make_pair(
          statistics::parse_arm(stop.value("arm", "")).value_or(Arm::kCandidate),
          fmt::format("{} (on {})", stop.value("reason", ""), reply.value("worker", "a device")));
    }
  }

  // Runs `firsts` as pairs, pairs_per_job a job, all at once; prepared_ holds them in order.
  void run_jobs(const std::vector<Arm>& firsts) {
    const size_t per_job = static_cast<size_t>(std::max(1, device_.options().pairs_per_job));
    std::vector<json> requests;
    for (size_t i = 0; i < firsts.size(); i += per_job) {
      json names = json::array();
      for (size_t j = i; j < std::min(firsts.size(), i + per_job); ++j)
        names.push_back(std::string(statistics::to_string(firsts[j])));
      json request = request_;
      request["firsts"] = names;
      request["seed"] = mix_seed(request_["seed"].get<uint64_t>(), static_cast<uint64_t>(jobs_++));
      requests.push_back(std::move(request));
    }
    prepared_.clear();
    const auto replies = device_.run_pinned("pairs", std::move(requests), model_);
    for (const json& reply : replies) take(reply);
    for (size_t r = 0; r < replies.size(); ++r) {
      const json& reply = replies[r];
      const std::string worker = reply.value("worker", "a device");
      const auto& pairs = reply.at("pairs");
      for (size_t p = 0; p < pairs.size(); ++p) {
        Entry e;
        e.first = firsts[r * per_job + p];
        e.first_seconds = pairs[p].at(0).get<double>();
        e.second = pairs[p].at(1).get<double>();
        e.worker = worker;
        prepared_.push_back(std::move(e));
      }
      if (const json& stop = reply.value("stop", json()); stop.is_object()) {
        Entry e;
        e.first = r * per_job + pairs.size() < firsts.size() ? firsts[r * per_job + pairs.size()]
                                                             : firsts.back();
        e.stop = stop;
        e.worker = worker;
        prepared_.push_back(std::move(e));
        break;  // pairs after a stop are not read
      }
    }
  }

  RemoteDevice& device_;
  json request_;
  std::string model_;  // the model every job runs on (run_pinned)
  Arm slowed_;
  double slowdown_;
  std::optional<std::pair<Arm, double>> pending_;
  std::deque<Entry> prepared_;
  std::optional<std::pair<Arm, std::string>> breach_;
  int64_t verified_[2] = {0, 0};
  int jobs_ = 0;
  std::string worker_;
  json accounting_ = json::object();
};

}  // namespace

std::string device_job_binary() {
  if (const char* env = std::getenv("HEADWAY_DEVICE_JOB_BINARY"); env && *env) return env;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("headway") : self.string();
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
  return std::make_unique<RemoteSession>(*this, request("readings", &kernel, artifacts, seed),
                                         static_cast<int>(artifacts.size()));
}

std::vector<targets::Timing> RemoteDevice::time_side_by_side(
    const KernelContract& kernel, const std::vector<targets::Artifact>& artifacts, int readings,
    uint64_t seed) {
  json r = request("side_by_side", &kernel, artifacts, seed);
  r["readings"] = readings;
  const json reply = run("time", std::move(r));
  std::vector<targets::Timing> out;
  for (const auto& t : reply.at("timings")) out.push_back(timing_from_json(t));
  return out;
}

std::unique_ptr<statistics::PairedDevice> RemoteDevice::paired_device(
    const KernelContract& kernel, const targets::Artifact& head, const targets::Artifact& candidate,
    uint64_t seed, Arm slowed, double slowdown) {
  return std::make_unique<RemotePairedDevice>(
      *this, request("pairs", &kernel, {head, candidate}, seed), slowed, slowdown);
}

std::vector<targets::ChipFact> RemoteDevice::measure_facts(const targets::FactOptions& options) {
  json r = request("facts", nullptr, {}, 0);
  r["readings"] = options.readings;
  r["noise_repeats"] = options.noise_repeats;
  r["max_threads"] = options.max_threads;
  r["only"] = options.only;
  const json reply = run("facts", std::move(r));
  std::vector<targets::ChipFact> out;
  for (const auto& f : reply.at("facts")) out.push_back(fact_from_json(f));
  return out;
}

}  // namespace headway::remote
