#include "pool/pool_job.h"

#include <chrono>
#include <filesystem>

#include "common/json_whole.h"

namespace headway::pool {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json paths_to_json(const std::vector<fs::path>& paths) {
  json out = json::array();
  for (const auto& p : paths) out.push_back(p.string());
  return out;
}

json policy_to_json(const sandbox::Policy& p) {
  json env = json::array();
  for (const auto& [k, v] : p.environment) env.push_back({k, v});
  return {{"read_only", paths_to_json(p.read_only)},
          {"writable", paths_to_json(p.writable)},
          {"devices", paths_to_json(p.devices)},
          {"working_directory", p.working_directory.string()},
          {"environment", env},
          {"limits",
           {{"address_space_bytes", p.limits.address_space_bytes},
            {"cpu_seconds", p.limits.cpu_seconds},
            {"file_size_bytes", p.limits.file_size_bytes},
            {"open_files", p.limits.open_files}}}};
}

// The JSON parser's exceptions become one invalid-input Error naming what was being read.
template <class F>
auto parsed(const char* what, F&& f) -> Result<decltype(f())> {
  try {
    return f();
  } catch (const json::exception& e) {
    return invalid_input(std::string("a malformed ") + what + ": " + e.what());
  }
}

std::vector<fs::path> paths_from_json(const json& j) {
  std::vector<fs::path> out;
  for (const auto& p : j) out.emplace_back(p.get<std::string>());
  return out;
}

sandbox::Policy policy_from_json(const json& j) {
  sandbox::Policy p;
  p.read_only = paths_from_json(j.at("read_only"));
  p.writable = paths_from_json(j.at("writable"));
  p.devices = paths_from_json(j.at("devices"));
  p.working_directory = j.at("working_directory").get<std::string>();
  for (const auto& kv : j.at("environment")) {
    p.environment.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
  }
  const json& l = j.at("limits");
  p.limits.address_space_bytes = whole<uint64_t>(l.at("address_space_bytes"));
  p.limits.cpu_seconds = whole<uint64_t>(l.at("cpu_seconds"));
  p.limits.file_size_bytes = whole<uint64_t>(l.at("file_size_bytes"));
  p.limits.open_files = whole<uint64_t>(l.at("open_files"));
  return p;
}

}  // namespace

json job_to_json(const PoolJob& job) {
  json out = {{"label", job.label},
              {"argv", job.argv},
              {"timeout_seconds", job.timeout_seconds},
              {"cwd", job.cwd},
              {"sandbox_disabled", job.sandbox_disabled}};
  if (job.policy) out["policy"] = policy_to_json(*job.policy);
  return out;
}

Result<PoolJob> job_from_json(const json& j) {
  return parsed("job", [&] {
    PoolJob job;
    job.label = j.at("label").get<std::string>();
    job.argv = j.at("argv").get<std::vector<std::string>>();
    job.timeout_seconds = j.at("timeout_seconds").get<double>();
    job.cwd = j.at("cwd").get<std::string>();
    job.sandbox_disabled = j.at("sandbox_disabled").get<bool>();
    if (j.contains("policy")) job.policy = policy_from_json(j.at("policy"));
    if (job.argv.empty()) throw json::other_error::create(501, "the job has no program", &j);
    return job;
  });
}

json process_result_to_json(const ProcessResult& r) {
  return {{"started", r.started},     {"exit_code", r.exit_code}, {"signal", r.signal},
          {"timed_out", r.timed_out}, {"output", r.output},       {"error", r.error}};
}

Result<ProcessResult> process_result_from_json(const json& j) {
  return parsed("process result", [&] {
    ProcessResult r;
    r.started = j.at("started").get<bool>();
    r.exit_code = whole<int>(j.at("exit_code"));
    r.signal = whole<int>(j.at("signal"));
    r.timed_out = j.at("timed_out").get<bool>();
    r.output = j.at("output").get<std::string>();
    r.error = j.at("error").get<std::string>();
    return r;
  });
}

json job_result_to_json(const PoolJobResult& r) {
  return {{"process", process_result_to_json(r.process)},
          {"worker", r.worker},
          {"attempts", r.attempts},
          {"queued_seconds", r.queued_seconds},
          {"run_seconds", r.run_seconds},
          {"transfer_seconds", r.transfer_seconds}};
}

Result<PoolJobResult> job_result_from_json(const json& j) {
  if (!j.is_object()) return invalid_input("cannot read a job result: not a JSON object");
  auto process = process_result_from_json(j.value("process", json()));
  if (!process) return process.error();
  return parsed("job result", [&] {
    PoolJobResult r;
    r.process = std::move(*process);
    r.worker = j.at("worker").get<std::string>();
    r.attempts = whole<int>(j.at("attempts"));
    r.queued_seconds = j.at("queued_seconds").get<double>();
    r.run_seconds = j.at("run_seconds").get<double>();
    r.transfer_seconds = j.at("transfer_seconds").get<double>();
    return r;
  });
}

ProcessResult run_job_here(const PoolJob& job, double* seconds) {
  const auto start = std::chrono::steady_clock::now();
  ProcessResult r = job.policy ? run_process(job.argv, job.timeout_seconds, *job.policy)
                               : run_process(job.argv, job.timeout_seconds, job.cwd);
  if (seconds) {
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return r;
}

}  // namespace headway::pool
