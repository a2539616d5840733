#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "agents/agent_proposer.h"
#include "agents/rule_miner.h"
#include "cli/agent_options.h"
#include "cli/cli_support.h"
#include "cli/final_timings.h"
#include "cli/optimize_run_figures.h"
#include "cli/pool_options.h"
#include "cli/progress_line.h"
#include "cli/verbs.h"
#include "common/duration.h"
#include "common/file_io.h"
#include "common/median_interval.h"
#include "common/split_fields.h"
#include "knowledge/facts.h"
#include "knowledge/kernel_timings.h"
#include "knowledge/onboard.h"
#include "knowledge/rule_lint.h"
#include "knowledge/rules.h"
#include "loop/device_time.h"
#include "loop/library_proposer.h"
#include "loop/optimize_switches.h"
#include "loop/optimizer.h"
#include "statistics/rule_kind.h"
#include "store/pool_runs.h"
#include "targets/floor_bracket.h"
#include "trees/design_tree.h"

namespace headway::cli {

namespace {
struct OptimizeArgs {
  std::string kernels;  // empty: the target's (Target::kernels)
  std::string budget = "10m";
  std::string target;  // empty: the workspace's
  std::string workspace;
  bool json = false;
  AgentArgs agent;
  bool library = false;  // with --agent: the design library proposes too
  PoolArgs pool;
  int64_t confirm_calls = -1;  // -1: loop::OptimizeOptions's
  std::string acceptance_rule = "betting";
  std::string without;  // parts of the loop switched off (loop/optimize_switches.h)
  int beam = 1;
  uint64_t seed = 0;  // loop::OptimizeOptions::seed
};

// Records a run's device pool and its use over time in the workspace when the run ends, by an
// exception too (store/pool_runs.h, for the report). Failing to write it is a warning.
class PoolUseRecorder {
 public:
  PoolUseRecorder(store::Workspace& ws, std::shared_ptr<pool::DevicePool> devices)
      : ws_(ws), devices_(std::move(devices)) {}
  PoolUseRecorder(const PoolUseRecorder&) = delete;
  PoolUseRecorder& operator=(const PoolUseRecorder&) = delete;
  ~PoolUseRecorder() {
    if (!devices_) return;
    try {
      store::record_pool_run(ws_.db(), devices_->kind(), pool::pool_use_json(*devices_));
    } catch (const std::exception& e) {
      fmt::print(stderr, "headway: warning: cannot record the pool's use in the workspace: {}\n",
                 e.what());
    }
  }

 private:
  store::Workspace& ws_;
  std::shared_ptr<pool::DevicePool> devices_;
};

// The names in --kernels; whether the target knows them is checked once it is made.
std::vector<std::string> split_kernels(const std::string& list) {
  std::vector<std::string> out;
  for (const std::string& name : split_fields(list, ',')) {
    if (name.empty()) throw UsageError("--kernels has an empty name");
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  if (out.empty()) throw UsageError("--kernels names no kernel");
  return out;
}

int run_optimize(const OptimizeArgs& args) {
  // Every argument is checked before the workspace is touched.
  loop::OptimizeOptions options;
  if (!args.kernels.empty()) options.kernels = split_kernels(args.kernels);
  const auto seconds = parse_duration_seconds(args.budget);
  if (!seconds)
    throw UsageError(
        fmt::format("--budget '{}' does not parse (examples: 90s, 12m, 1h30m)", args.budget));
  options.budget = std::chrono::duration<double>(*seconds);
  if (args.confirm_calls >= 0) options.acceptance.confirm_calls = args.confirm_calls;
  const auto rule = statistics::parse_rule_kind(args.acceptance_rule);
  if (!rule) throw UsageError("--acceptance-rule: " + rule.error().message);
  options.acceptance.rule = rule.value();
  if (auto off = loop::switch_off(args.without, &options); !off)
    throw UsageError("--without: " + off.error().message);
  options.seed = args.seed;
  options.beam = args.beam;
  if (!args.target.empty()) target_or_throw(args.target);
  validate_agent_args(args.agent);
  if (args.library && args.agent.spec.empty())
    throw UsageError("--library goes with --agent (without one the library alone proposes)");
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  // A workspace optimizes for one target: the first --target sets it.
  const std::string target_name =
      args.target.empty() ? knowledge::workspace_target_name(ws) : args.target;
  if (ws.meta("target") && !ws.meta("target")->empty() && *ws.meta("target") != target_name) {
    throw UsageError(fmt::format("the workspace optimizes for target '{}', not '{}'",
                                 *ws.meta("target"), target_name));
  }
  if (!args.target.empty() && !ws.meta("target"))
    knowledge::set_workspace_target_name(ws, target_name);
  // Its toolchain is the workspace's: `headway migrate` may have moved it.
  const auto workspace_target = [&] {
    return target_or_throw(target_name, knowledge::workspace_toolchain(ws, target_name));
  };
  const auto target = workspace_target();
  options.target = target.get();
  const std::vector<std::string> known = target->kernels();
  if (args.kernels.empty()) options.kernels = known;
  for (const auto& name : options.kernels) {
    kernel_or_throw(name);
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw UsageError(fmt::format("the {} target has no kernel '{}' (it has: {})", target->name(),
                                   name, fmt::join(known, ", ")));
    }
  }
  // Device work goes to the pool, where the target can send it there (docs/POOL.md).
  const std::shared_ptr<pool::DevicePool> devices =
      start_pool(pool_config(ws, args.pool), *target, pool_folder(ws));
  // A round per device at once, each on another kernel.
  if (devices) options.concurrent_rounds = devices->devices();
  const PoolUseRecorder pool_use(ws, devices);
  // Legality rules: learned from every screening failure, applied by the lint stage.
  options.lint = knowledge::rule_lint_following_workspace(ws);
  // Progress goes to stderr, so that stdout holds only the result (text, or --json): a line per
  // progress on a pipe or a file, a status line redrawn in place on a terminal
  // (cli/progress_line.h).
  ProgressDisplay display(stderr, isatty(STDERR_FILENO) == 1,
                          [] { return terminal_columns(STDERR_FILENO); });
  // A line of its own in the progress (on a tty, above the status line).
  const auto log_line = [&display](const std::string& line) { display.line(line); };
  // With --agent, the rule miner gives the rules the built-in miner found no detector for one.
  std::unique_ptr<agents::AgentRuleMiner> rule_miner;
  options.on_screen_failure = [&ws, &rule_miner, &log_line](const std::string& kernel, int64_t) {
    if (auto mined = knowledge::mine_rules_from_tree(ws, kernel); !mined) {
      log_line(fmt::format("headway: warning: cannot learn rules from {}'s failures: {}", kernel,
                           mined.error().message));
    }
    if (rule_miner) rule_miner->mine();
  };
  // The proposers' reads of the workspace (facts, the cheat sheet) may come from several rounds'
  // threads at once: they go through a connection of their own, one at a time.
  store::Workspace proposers_ws = open_workspace_or_throw(ws.root().string());
  std::mutex proposers_ws_mutex;
  // Designs that need an instruction set are proposed only where the facts of the workspace's
  // toolchain say the chip and compiler have it (the loop measures the facts before proposing).
  loop::LibraryProposer library(
      *target,
      [&](const std::string& name) -> std::optional<double> {
        std::lock_guard lock(proposers_ws_mutex);
        const auto f =
            knowledge::find_fact(proposers_ws, name, knowledge::toolchain_id_of(*target));
        return f ? std::optional<double>(f->value) : std::nullopt;
      },
      log_line);
  library.gate_on_isa_facts(options.isa_gating);
  // With --agent, the agent proposes (and the library too with --library), shown the cheat sheet
  // onboarding wrote, or one rendered from the workspace's facts and rules.
  // Each round in flight asks for its own proposals: agent calls scale with the rounds.
  AgentArgs agent_args = args.agent;
  if (!agent_args.jobs) agent_args.jobs = std::min(64, 2 * options.concurrent_rounds);
  AgentRun agent_run = start_agent_run(ws, agent_args);
  std::unique_ptr<agents::AgentProposer> agent_proposer;
  std::unique_ptr<agents::CombinedProposer> combined;
  loop::Proposer* proposer = &library;
  if (agent_run) {
    agents::AgentProposerOptions o;
    o.prompts_dir = prompts_dir(ws);
    if (options.cheat_sheet) {
      o.cheat_sheet = [&] {
        if (auto written = read_file(knowledge::knowledge_dir(ws) / "cheatsheet.md"))
          return std::move(*written);
        std::lock_guard lock(proposers_ws_mutex);
        return knowledge::render_cheatsheet(proposers_ws, knowledge::toolchain_id_of(*target));
      };
    }
    rule_miner = std::make_unique<agents::AgentRuleMiner>(*agent_run.ledger, ws, *target,
                                                          prompts_dir(ws), log_line);
    agent_proposer =
        std::make_unique<agents::AgentProposer>(*target, *agent_run.ledger, std::move(o), log_line);
    proposer = agent_proposer.get();
    if (args.library) {
      combined = std::make_unique<agents::CombinedProposer>(
          std::vector<loop::Proposer*>{agent_proposer.get(), &library});
      proposer = combined.get();
    }
  }
  // Agents answer while the device times; where it is not this machine's cores, a second
  // instance of the target builds their answers meanwhile.
  std::unique_ptr<targets::Target> build_target;
  if (agent_run && !target->times_on_host()) {
    build_target = workspace_target();
    options.build_target = build_target.get();
  }
  const auto on_progress = [&display](const loop::Progress& p) { display.progress(p); };
  loop::OptimizeSummary summary;
  try {
    summary = loop::optimize(ws, *proposer, options, on_progress);
    display.finish();
  } catch (const sandbox::Unavailable&) {
    display.finish();
    throw;  // exit 3 (run_verb)
  } catch (const store::StoreError&) {
    display.finish();
    throw;  // the workspace database failed: exit 3 (run_verb)
  } catch (const targets::DeviceUnavailable& e) {
    display.finish();
    throw EnvironmentError(e.what());
  } catch (const Failure&) {
    display.finish();
    throw;  // the loop's failures carry their code: run_verb exits as it says (docs/CLI.md)
  } catch (const std::runtime_error& e) {
    display.finish();
    throw UsageError(e.what());  // a collaborator's failure without a code (a proposer's)
  }
  const std::string stopped =
      !summary.device_stopped.empty()     ? "device stopped: " + summary.device_stopped
      : summary.budget_spent              ? "budget spent"
      : !summary.proposer_stopped.empty() ? summary.proposer_stopped
      : !summary.near_floor.empty()
          ? fmt::format("nothing left to try (within {:.2f}x of the floor: {})",
                        options.done_within_floor, fmt::join(summary.near_floor, ", "))
          : "nothing left to try";
  if (!args.json) {
    fmt::print("optimize: {} rounds{}, {} proposed, {} tests, {} accepted{}; {}\n", summary.rounds,
               summary.most_rounds_at_once > 1
                   ? fmt::format(" (up to {} at once)", summary.most_rounds_at_once)
                   : "",
               summary.proposed, summary.tests, summary.accepted,
               summary.cost_rejected
                   ? fmt::format(", {} not raced by static cost", summary.cost_rejected)
                   : "",
               stopped);
    for (const auto& [kernel, why] : summary.kernels_stopped)
      fmt::print("optimize: {} stopped, the run went on without it: {}\n", kernel, why);
    fmt::print("optimize: {}\n", loop::describe(loop::decision_rate(ws)));
    if (agent_run) fmt::print("{}\n", agent_run_line(agent_run));
    if (devices) fmt::print("{}", pool_text(pool::pool_status_json(*devices)));
    if (const std::string off = loop::switched_off(options);
        !off.empty() || options.acceptance.rule != statistics::RuleKind::kBetting ||
        options.beam > 1) {
      fmt::print("loop: acceptance rule {}{}{}\n", statistics::to_string(options.acceptance.rule),
                 options.beam > 1 ? fmt::format("; a beam of {}", options.beam) : "",
                 off.empty() ? "" : "; switched off: " + off);
    }
  }
  const nlohmann::json kernels = time_heads_side_by_side(ws, *target, options.kernels);
  // A kernel that could go no further is a negative result, like a broken head.
  const int exit_status = summary.kernels_stopped.empty() ? kExitOk : kExitNegative;
  if (!args.json) {
    print_timed(kernels);
    return exit_status;
  }
  nlohmann::json out = {{"target", target_name},
                        {"rounds", summary.rounds},
                        {"proposed", summary.proposed},
                        {"tests", summary.tests},
                        {"accepted", summary.accepted},
                        {"cheated", summary.cheated},
                        {"not_raced_by_static_cost", summary.cost_rejected},
                        {"most_rounds_at_once", summary.most_rounds_at_once},
                        {"acceptance_rule", statistics::to_string(options.acceptance.rule)},
                        {"switched_off", loop::switched_off(options)},
                        {"seed", options.seed},
                        {"beam", options.beam},
                        {"stopped", stopped},
                        {"kernels_stopped", summary.kernels_stopped},
                        {"decision_rate", loop::to_json(loop::decision_rate(ws))},
                        {"agent", nullptr},
                        {"pool", devices ? pool::pool_status_json(*devices) : nlohmann::json()},
                        {"kernels", kernels}};
  add_run_figures(ws, *target, ws.root() / ".headway" / "builds", &out);
  if (agent_run) {
    const agents::Spent spent = agent_run.ledger->spent();
    out["agent"] = {{"agent", args.agent.spec},
                    {"calls", spent.calls},
                    {"input_tokens", spent.input_tokens},
                    {"output_tokens", spent.output_tokens},
                    {"cost_usd", spent.cost_usd}};
  }
  fmt::print("{}\n", out.dump(2));
  return exit_status;
}
}  // namespace

void add_optimize(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<OptimizeArgs>();
  auto* cmd =
      app.add_subcommand("optimize", "Run the optimize loop (resumes where a killed run stopped)");
  cmd->add_option("--kernels", args->kernels, "comma-separated kernels (default: the target's)");
  cmd->add_option("--budget", args->budget, "wall-clock budget, e.g. 90s, 12m, 1h");
  cmd->add_option("--target", args->target,
                  "a registered target: cpu, sim, command (default: the workspace's, else cpu)");
  cmd->add_option("--workspace", args->workspace, "workspace directory (default: found from here)");
  cmd->add_flag("--json", args->json, "print one JSON object when done (progress goes to stderr)");
  add_agent_options(cmd, args->agent);
  add_pool_options(*cmd, args->pool, PoolOptionsOf::kOptimize);
  cmd->add_flag("--library", args->library, "with --agent: the design library proposes too");
  cmd->add_option("--confirm-calls", args->confirm_calls,
                  "the candidate's calls a FASTER acceptance test verifies before it stands, "
                  "by readings of the candidate alone, or pairs where the target has none (default "
                  "688; 0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--acceptance-rule", args->acceptance_rule,
                  "how an acceptance test decides: betting (default); reference, threshold or "
                  "lowest-mean, kept to measure what betting buys (docs/ABLATIONS.md)");
  cmd->add_option("--without", args->without,
                  fmt::format("parts of the loop to switch off, comma-separated: {} "
                              "(docs/ABLATIONS.md)",
                              fmt::join(loop::switchable_parts(), ", ")));
  cmd->add_option("--beam", args->beam,
                  "vary the K fastest designs measured so far in turn, not the head alone (default "
                  "1; the head still changes only through the acceptance test)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--seed", args->seed,
                  "mixed into every seed of the loop's races and acceptance tests, so that runs "
                  "with different seeds differ on a deterministic target (default 0: the loop's "
                  "fixed seeds)");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_optimize(*args); }); });
}

}  // namespace headway::cli
