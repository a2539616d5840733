#include "targets/remote/device_job.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "kernels/kernel_spec.h"
#include "statistics/reading.h"

namespace headway::remote {

namespace {

using nlohmann::json;
using statistics::Arm;
using Status = targets::CheckOutcome::Status;

constexpr std::array<std::pair<Status, const char*>, 6> kStatusNames = {{
    {Status::kCorrect, "correct"},
    {Status::kIncorrect, "incorrect"},
    {Status::kCrashed, "crashed"},
    {Status::kTimedOut, "timed_out"},
    {Status::kUnloadable, "unloadable"},
    {Status::kCheated, "cheated"},
}};

std::string host_name() {
  char name[256] = "";
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

// $HEADWAY_DEVICE_MODEL when set (a site's own name for its nodes' devices), else the target's.
std::string node_model(const targets::Target& target) {
  if (const char* env = std::getenv("HEADWAY_DEVICE_MODEL"); env && *env) return env;
  return target.device_model();
}

const json& field(const json& request, const char* name) {
  if (!request.contains(name))
    throw std::invalid_argument(std::string("the request has no ") + name);
  return request.at(name);
}

std::vector<targets::Artifact> artifacts_of(const json& request) {
  std::vector<targets::Artifact> out;
  for (const auto& a : field(request, "artifacts")) out.push_back(artifact_from_json(a));
  if (out.empty()) throw std::invalid_argument("the request names no artifact");
  return out;
}

json stop_json(const char* kind, Arm arm, const std::string& reason) {
  return {{"kind", kind}, {"arm", std::string(statistics::to_string(arm))}, {"reason", reason}};
}

json verified_json(const statistics::PairedDevice& device) {
  return json::array({device.verified_calls(Arm::kHead), device.verified_calls(Arm::kCandidate)});
}

std::unique_ptr<statistics::PairedDevice> paired(targets::Target& target,
                                                 const KernelContract& kernel,
                                                 const json& request) {
  const auto artifacts = artifacts_of(request);
  if (artifacts.size() != 2) throw std::invalid_argument("a paired job needs two artifacts");
  auto device = target.paired_device(kernel, artifacts[0], artifacts[1],
                                     field(request, "seed").get<uint64_t>());
  if (!device) throw targets::DeviceStopped(device.error().message);
  return std::move(device).value();
}

json run_check(targets::Target& target, const KernelContract& kernel, const json& request) {
  targets::CheckOptions options;
  if (request.contains("check_seed")) options.seed = request["check_seed"].get<uint64_t>();
  if (request.contains("call_timeout"))
    options.call_timeout_seconds = request["call_timeout"].get<double>();
  return {{"check", check_to_json(target.check(kernel, artifacts_of(request).front(), options))}};
}

json run_readings(targets::Target& target, const KernelContract& kernel, const json& request) {
  const auto artifacts = artifacts_of(request);
  auto session = target.start_session(kernel, artifacts, field(request, "seed").get<uint64_t>());
  if (!session) throw targets::DeviceStopped(session.error().message);
  const size_t arms = artifacts.size();
  std::vector<std::vector<double>> readings(arms);
  std::vector<std::string> out(arms);
  std::vector<bool> breach(arms, false);
  for (const auto& round : field(request, "rounds")) {
    for (const auto& a : round) {
      const size_t arm = a.get<size_t>();
      if (arm >= arms) throw std::invalid_argument("a round names an arm past the artifacts");
      if (!out[arm].empty()) continue;
      auto r = (*session)->reading(static_cast<int>(arm));
      if (r) {
        readings[arm].push_back(r.value());
      } else {
        out[arm] = r.error().message;
      }
    }
  }
  // Every arm, those out too: an arm put out by a breach in a reading is told from one that
  // failed by its breach.
  for (size_t arm = 0; arm < arms; ++arm) {
    if (auto b = (*session)->verify_arm(static_cast<int>(arm))) {
      const auto who = static_cast<size_t>(b->arm);
      if (who >= arms || breach[who]) continue;
      if (out[who].empty()) out[who] = b->reason;
      breach[who] = true;
    }
  }
  return {{"readings", readings},
          {"out", out},
          {"breach", breach},
          {"accounting", (*session)->accounting()}};
}

json run_pairs(targets::Target& target, const KernelContract& kernel, const json& request) {
  auto device = paired(target, kernel, request);
  json pairs = json::array();
  json stop = nullptr;
  Arm running = Arm::kHead;
  try {
    for (const auto& f : field(request, "firsts")) {
      const auto first = statistics::parse_arm(f.get<std::string>());
      if (!first) throw std::invalid_argument("a pair's first arm is head or candidate");
      const Arm second = *first == Arm::kHead ? Arm::kCandidate : Arm::kHead;
      device->begin_pair();
      json clock;
      running = *first;
      const double a = device->run_once(*first, &clock);
      running = second;
      const double b = device->run_once(second, &clock);
      pairs.push_back({a, b});
    }
    device->verify_arms();
  } catch (const statistics::ArmDisqualified& e) {
    stop = stop_json("disqualified", e.arm(), e.what());
  } catch (const targets::DeviceStopped&) {
    throw;
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::runtime_error& e) {
    stop = stop_json("failed", running, e.what());
  }
  return {{"pairs", pairs},
          {"stop", stop},
          {"verified", verified_json(*device)},
          {"accounting", device->accounting()}};
}

json run_confirm(targets::Target& target, const KernelContract& kernel, const json& request) {
  auto device = paired(target, kernel, request);
  const int n = field(request, "readings").get<int>();
  int confirmed = 0;
  json stop = nullptr;
  try {
    while (confirmed < n && device->run_confirming_reading()) ++confirmed;
  } catch (const statistics::ArmDisqualified& e) {
    stop = stop_json("disqualified", e.arm(), e.what());
  }
  return {{"confirmed", confirmed},
          {"stop", stop},
          {"verified", verified_json(*device)},
          {"accounting", device->accounting()}};
}

json run_side_by_side(targets::Target& target, const KernelContract& kernel, const json& request) {
  json timings = json::array();
  for (const auto& t : target.time_side_by_side(kernel, artifacts_of(request),
                                                field(request, "readings").get<int>(),
                                                field(request, "seed").get<uint64_t>()))
    timings.push_back(timing_to_json(t));
  return {{"timings", timings}};
}

json run_facts(targets::Target& target, const json& request) {
  targets::FactOptions options;
  options.readings = request.value("readings", options.readings);
  options.noise_repeats = request.value("noise_repeats", options.noise_repeats);
  options.max_threads = request.value("max_threads", options.max_threads);
  options.only = request.value("only", std::vector<std::string>{});
  json facts = json::array();
  for (const auto& f : target.measure_facts(options)) facts.push_back(fact_to_json(f));
  return {{"facts", facts}};
}

}  // namespace

json artifact_to_json(const targets::Artifact& artifact) {
  return {{"id", artifact.id}, {"path", artifact.path.string()}, {"meta", artifact.meta}};
}

targets::Artifact artifact_from_json(const json& json) {
  targets::Artifact a;
  a.id = json.at("id").get<std::string>();
  a.path = json.at("path").get<std::string>();
  a.meta = json.value("meta", nlohmann::json());
  return a;
}

json check_to_json(const targets::CheckOutcome& outcome) {
  std::string status;
  for (const auto& [s, name] : kStatusNames) {
    if (s == outcome.status) status = name;
  }
  return {{"status", status},           {"kind", outcome.kind},
          {"seed", outcome.seed},       {"description", outcome.description},
          {"details", outcome.details}, {"seconds", outcome.seconds}};
}

targets::CheckOutcome check_from_json(const json& json) {
  targets::CheckOutcome out;
  const std::string status = json.at("status").get<std::string>();
  bool known = false;
  for (const auto& [s, name] : kStatusNames) {
    if (status == name) {
      out.status = s;
      known = true;
    }
  }
  if (!known) throw std::invalid_argument("unknown check status '" + status + "'");
  out.kind = json.value("kind", "");
  out.seed = json.value("seed", uint64_t{0});
  out.description = json.value("description", "");
  out.details = json.value("details", nlohmann::json());
  out.seconds = json.value("seconds", 0.0);
  return out;
}

json timing_to_json(const targets::Timing& timing) {
  return {{"failure", timing.failure}, {"cheated", timing.cheated},
          {"seconds", timing.seconds}, {"median_seconds", timing.median_seconds},
          {"cv", timing.cv},           {"accounting", timing.accounting}};
}

targets::Timing timing_from_json(const json& json) {
  targets::Timing t;
  t.failure = json.value("failure", "");
  t.cheated = json.value("cheated", false);
  t.seconds = json.value("seconds", std::vector<double>{});
  t.median_seconds = json.value("median_seconds", 0.0);
  t.cv = json.value("cv", 0.0);
  t.accounting = json.value("accounting", nlohmann::json());
  return t;
}

json fact_to_json(const targets::ChipFact& fact) {
  json j = {
      {"name", fact.name}, {"value", fact.value}, {"unit", fact.unit}, {"method", fact.method}};
  if (fact.spread) j["spread"] = *fact.spread;
  return j;
}

targets::ChipFact fact_from_json(const json& json) {
  targets::ChipFact f;
  f.name = json.at("name").get<std::string>();
  f.value = json.at("value").get<double>();
  f.unit = json.value("unit", "");
  f.method = json.value("method", "");
  if (json.contains("spread") && json["spread"].is_number())
    f.spread = json["spread"].get<double>();
  return f;
}

json kernel_to_json(const KernelContract& kernel) {
  json j = {{"name", std::string(kernel.name())}};
  if (const KernelSpec* spec = kernel.spec(); spec && spec->origin == SpecOrigin::kDisk) {
    j["spec"] = spec->file.string();
    j["shape_set"] = kernel.shape_set_name();
  }
  return j;
}

json run_device_job(targets::Target& target, const KernelContract* kernel, const json& request) {
  const std::string op = field(request, "op").get<std::string>();
  using Op = json (*)(targets::Target&, const KernelContract&, const json&);
  static const std::map<std::string, Op, std::less<>> kOps = {
      {"check", run_check},     {"readings", run_readings},         {"pairs", run_pairs},
      {"confirm", run_confirm}, {"side_by_side", run_side_by_side},
  };
  const auto it = kOps.find(op);
  const bool kernel_free = op == "facts" || op == "model";
  if (!kernel_free && it == kOps.end()) throw std::invalid_argument("unknown op '" + op + "'");
  if (!kernel_free && !kernel) throw std::invalid_argument("the op " + op + " needs a kernel");
  const std::string model = node_model(target);
  json reply;
  try {
    if (const std::string wanted = request.value("model", ""); !wanted.empty() && wanted != model) {
      reply = {{"error", fmt::format("this device's model is {}, not {}, the model the work is "
                                     "pinned to",
                                     model.empty() ? "unknown" : model, wanted)},
               {"other_model", true}};
    } else {
      reply = op == "model"   ? json::object()
              : op == "facts" ? run_facts(target, request)
                              : it->second(target, *kernel, request);
    }
  } catch (const targets::DeviceUnavailable& e) {
    reply = {{"error", e.what()}, {"unavailable", true}};
  } catch (const targets::DeviceStopped& e) {
    reply = {{"error", e.what()}, {"stopped", true}};
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("a malformed request: ") + e.what());
  }
  reply["device"] = {{"host", host_name()}, {"model", model}};
  return reply;
}

}  // namespace headway::remote
