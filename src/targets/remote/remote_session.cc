#include "targets/remote/remote_session.h"

#include <fmt/format.h>

#include <deque>
#include <string>
#include <vector>

#include "common/rng.h"

namespace headway::remote {

namespace {

using nlohmann::json;

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
      add_job_accounting(accounting_, reply.value("accounting", json::object()));
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

}  // namespace

std::unique_ptr<targets::Session> make_remote_session(RemoteDevice& device, json request,
                                                      int arms) {
  return std::make_unique<RemoteSession>(device, std::move(request), arms);
}

}  // namespace headway::remote
