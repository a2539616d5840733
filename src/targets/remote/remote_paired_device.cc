#include "targets/remote/remote_paired_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "common/rng.h"

namespace headway::remote {

namespace {

using nlohmann::json;
using statistics::Arm;

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
    add_job_accounting(accounting_, reply.value("accounting", json::object()));
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

std::unique_ptr<statistics::PairedDevice> make_remote_paired_device(RemoteDevice& device,
                                                                    json request, Arm slowed,
                                                                    double slowdown) {
  return std::make_unique<RemotePairedDevice>(device, std::move(request), slowed, slowdown);
}

}  // namespace headway::remote
