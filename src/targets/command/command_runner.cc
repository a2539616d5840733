#include "targets/command/command_runner.h"

#include <fmt/format.h>

#include "common/sandbox.h"
#include "targets/target.h"

namespace headway::command {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

void replace_all(std::string& s, std::string_view from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

}  // namespace

std::string expand_command(const PackManifest& manifest, const CommandSpec& command,
                           const std::vector<std::filesystem::path>& arms) {
  std::string run = command.run;
  std::string arm_list;
  for (const auto& a : arms) arm_list += (arm_list.empty() ? "" : " ") + quoted(a.string());
  replace_all(run, "{pack}", quoted(manifest.pack.string()));
  replace_all(run, "{arms}", arm_list);
  return run;
}

pool::PoolJob command_job(const PackManifest& manifest, const CommandSpec& command,
                          const CommandCall& call, std::string label) {
  pool::PoolJob job;
  job.label = std::move(label);
  job.timeout_seconds = command.timeout_seconds;
  std::vector<std::pair<std::string, std::string>> env = {{"HEADWAY_PACK", manifest.pack.string()},
                                                          {"HEADWAY_REPO", manifest.repo.string()}};
  std::string arms;
  for (const auto& a : call.arms) arms += (arms.empty() ? "" : " ") + a.string();
  if (!call.arms.empty()) env.emplace_back("HEADWAY_ARMS", arms);
  env.insert(env.end(), call.env.begin(), call.env.end());
  env.insert(env.end(), command.env.begin(), command.env.end());
  const std::vector<std::string> bash = {"bash", "-c",
                                         expand_command(manifest, command, call.arms)};
  if (!command.sandbox) {
    // The user's own tool (a scheduler client, a version query): the environment is headway's
    // plus the variables above.
    job.argv = {"env"};
    for (const auto& [k, v] : env) job.argv.push_back(k + "=" + v);
    job.argv.insert(job.argv.end(), bash.begin(), bash.end());
    job.cwd = call.working_folder.string();
    return job;
  }
  sandbox::Policy policy;
  policy.read_only = {manifest.pack, manifest.repo};
  policy.read_only.insert(policy.read_only.end(), manifest.read_only.begin(),
                          manifest.read_only.end());
  policy.read_only.insert(policy.read_only.end(), call.arms.begin(), call.arms.end());
  policy.writable = {call.working_folder};
  policy.working_directory = call.working_folder;
  policy.environment = env;
  policy.limits.address_space_bytes = 8ull << 30;
  policy.limits.cpu_seconds = static_cast<uint64_t>(command.timeout_seconds) + 5;
  policy.limits.file_size_bytes = 1ull << 30;
  job.argv = bash;
  job.policy = std::move(policy);
  job.sandbox_disabled = sandbox::mode() == sandbox::Mode::kDisabled;
  return job;
}

ProcessResult run_command(const PackManifest& manifest, const CommandSpec& command,
                          const CommandCall& call, pool::DevicePool* device) {
  pool::PoolJob job = command_job(manifest, command, call, command.name);
  if (!device) return pool::run_job_here(job);
  try {
    return device->run(job).process;
  } catch (const pool::PoolStopped& e) {
    throw targets::DeviceStopped(e.what());
  }
}

std::string describe_failure(const ProcessResult& r, double timeout_seconds) {
  if (!r.started) return "could not start: " + r.error;
  if (r.timed_out) return fmt::format("timed out after {:g} s", timeout_seconds);
  if (r.signal) return "killed by " + signal_name(r.signal);
  return fmt::format("exited with status {}", r.exit_code);
}

}  // namespace headway::command
