#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "agents/porter.h"
#include "cli/agent_options.h"
#include "cli/cli_support.h"
#include "cli/json_null.h"
#include "cli/verbs.h"
#include "common/duration.h"
#include "knowledge/facts.h"
#include "knowledge/migration.h"
#include "loop/workspace_pause.h"

namespace headway::cli {

namespace {
struct MigrateArgs {
  std::string toolchain;
  std::string workspace;
  std::string wait = "10m";
  bool no_remeasure = false;
  bool json = false;
  AgentArgs agent;
};

nlohmann::json report_json(const knowledge::MigrationReport& report, size_t facts_measured,
                           const std::optional<int64_t>& paused_pid) {
  nlohmann::json timings = nlohmann::json::array();
  for (const auto& t : report.timings) {
    timings.push_back(
        {{"kernel", t.kernel},
         {"baseline_node", t.baseline_node},
         {"head_node", t.head_node},
         {"previous_head_node", t.previous_head_node},
         {"baseline_ms", or_null(t.baseline_ms)},
         {"head_ms", or_null(t.head_ms)},
         {"previous_baseline_ms", or_null(t.previous_baseline_ms)},
         {"previous_head_ms", or_null(t.previous_head_ms)},
         {"readings", t.readings},
         {"failure", t.failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.failure)}});
  }
  return {{"from", report.from_id},
          {"to", report.to_id},
          {"mined_new_rules", report.mined_new_rules},
          {"rules",
           {{"total", report.rules},
            {"verified", report.verified},
            {"rewritten", report.rewritten},
            {"retired", report.retired},
            {"carried", report.carried}}},
          {"heads",
           {{"kept", report.heads_kept},
            {"fell_back", report.heads_fell_back},
            {"broken", report.heads_broken},
            {"ports_proposed", report.ports_proposed},
            {"ports_failed", report.ports_failed}}},
          {"notes", report.notes},
          {"timings", timings},
          {"facts_measured", facts_measured},
          {"paused_optimize_pid", or_null(paused_pid)},
          {"summary", report.summary()}};
}

std::string ms_or_dash(const std::optional<double>& ms) {
  return ms ? fmt::format("{:.3f}", *ms) : "-";
}

std::string speedup_or_dash(const std::optional<double>& baseline,
                            const std::optional<double>& head) {
  return baseline && head && *head > 0 ? fmt::format("{:.2f}x", *baseline / *head) : "-";
}

void print_timings(const knowledge::MigrationReport& report) {
  if (report.timings.empty()) return;
  fmt::print(
      "re-measured with the new toolchain (median of {} readings, baseline and head interleaved; "
      "in parentheses the previous toolchain's figures):\n",
      report.timings.front().readings);
  for (const auto& t : report.timings) {
    if (!t.failure.empty()) {
      fmt::print("  {:<9} not measured: {}\n", t.kernel, t.failure);
      continue;
    }
    const std::string head_was =
        t.previous_head_node != 0 && t.previous_head_node != t.head_node
            ? fmt::format("{}, node {}", ms_or_dash(t.previous_head_ms), t.previous_head_node)
            : ms_or_dash(t.previous_head_ms);
    fmt::print("  {:<9} baseline {} ms ({})  head node {} {} ms ({})  speedup {} ({})\n", t.kernel,
               ms_or_dash(t.baseline_ms), ms_or_dash(t.previous_baseline_ms), t.head_node,
               ms_or_dash(t.head_ms), head_was, speedup_or_dash(t.baseline_ms, t.head_ms),
               speedup_or_dash(t.previous_baseline_ms, t.previous_head_ms));
  }
}

int run_migrate(const MigrateArgs& args) {
  const auto wait = parse_duration_seconds(args.wait);
  if (!wait) {
    throw UsageError(fmt::format("--wait '{}' does not parse (examples: 30s, 10m)", args.wait));
  }
  validate_agent_args(args.agent);
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  const std::unique_ptr<targets::Target> to = workspace_target_or_throw(ws);
  refuse_emulation_off_cuda(to->name(), args.toolchain);
  // A toolchain that cannot be used is refused before any optimizer is paused.
  const targets::ToolchainInfo id = to->select_toolchain(args.toolchain);
  if (!id.found) {
    fail_with(Error{id.error_code,
                    fmt::format("cannot use toolchain '{}': {}", args.toolchain, id.error)});
  }

  // Pause a running `headway optimize` (or keep one from starting) for the whole migration.
  loop::LockHolder paused;
  auto pause = loop::WorkspacePause::acquire(
      ws, "migrate", fmt::format("toolchain migration to {}", args.toolchain),
      std::chrono::duration<double>(*wait), [&paused](const loop::LockHolder& holder) {
        paused = holder;
        fmt::print(stderr, "pausing the running optimize ({}) ...\n",
                   holder.pid > 0 ? fmt::format("pid {}", holder.pid) : std::string("pid unknown"));
      });
  if (!pause) fail_with(pause.error());
  if (pause->waited()) fmt::print(stderr, "paused it\n");

  knowledge::MigrateOptions options;
  options.cache_dir = build_cache_dir();
  options.check_heads = true;
  options.remeasure = !args.no_remeasure;
  // With --agent, the porter ports every head that fails under the new toolchain.
  AgentRun agent_run = start_agent_run(ws, args.agent);
  if (agent_run) {
    options.port =
        agents::agent_porter(*agent_run.ledger, *to, prompts_dir(ws),
                             [](const std::string& line) { fmt::print(stderr, "{}\n", line); });
    options.on_ported = agents::record_port(*agent_run.ledger);
  }
  Result<knowledge::MigrationReport> report = invalid_input("");
  try {
    report = knowledge::migrate_toolchain(ws, *to, options);
  } catch (const agents::AgentError& e) {
    pause->release();
    fail_with_agent_error(args.agent, e);
  }
  size_t facts_measured = 0;
  if (report && options.remeasure && knowledge::list_facts(ws, report->to_id).empty()) {
    // Floors and the decode ceiling are kept per toolchain: the new one gets its own, measured
    // while the optimizer is still paused.
    facts_measured = knowledge::measure_and_store_facts(ws, *to, report->to_id).size();
  }
  pause->release();
  if (pause->waited()) fmt::print(stderr, "the optimize (pid {}) resumes\n", paused.pid);
  if (!report) fail_with(report.error());
  const int status = report->heads_broken > 0 ? kExitNegative : kExitOk;
  if (args.json) {
    const std::optional<int64_t> pid =
        pause->waited() ? std::optional<int64_t>(paused.pid) : std::nullopt;
    fmt::print("{}\n", report_json(*report, facts_measured, pid).dump(2));
    return status;
  }
  fmt::print("migrated from {}\n          to {}\n", report->from_id, report->to_id);
  for (const auto& n : report->notes) fmt::print("  {}\n", n);
  if (report->mined_new_rules > 0) {
    fmt::print("{} rules mined from the Design Trees' failures first\n", report->mined_new_rules);
  }
  print_timings(*report);
  if (facts_measured > 0)
    fmt::print("chip facts: {} measured for the new toolchain\n", facts_measured);
  fmt::print("{}\n", report->summary());
  return status;
}
}  // namespace

void add_migrate(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<MigrateArgs>();
  auto* cmd =
      app.add_subcommand("migrate",
                         "Move the workspace to a new toolchain of its target: pause a running "
                         "optimize, re-check rules and heads, re-measure baselines and heads");
  cmd->add_option(
         "--toolchain", args->toolchain,
         "the target's toolchain: cpu, a compiler command (clang++, g++-12, or a path); cuda, "
         "NVCC[@sm_NN] or emulated")
      ->required();
  cmd->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here)");
  cmd->add_option(
      "--wait", args->wait,
      "how long to wait for a running optimize to pause, e.g. 30s, 10m (default 10m); on "
      "timeout nothing changes");
  cmd->add_flag(
      "--no-remeasure", args->no_remeasure,
      "skip re-measuring baselines and heads with the new toolchain (quicker; the loop then "
      "keeps the previous figures)");
  cmd->add_flag("--json", args->json, "print one JSON object (progress goes to stderr)");
  add_agent_options(cmd, args->agent);
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_migrate(*args); }); });
}

}  // namespace headway::cli
