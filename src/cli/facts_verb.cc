#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "agents/microbenchmark_writer.h"
#include "cli/agent_options.h"
#include "cli/cli_support.h"
#include "cli/pool_options.h"
#include "cli/verbs.h"
#include "knowledge/facts.h"

namespace headway::cli {

namespace {
struct FactsArgs {
  bool json = false;
  bool measure = false;
  std::string workspace;
  std::string model;  // --model: the device model's facts alone
  PoolArgs pool;
  // --write: a fact measured by a microbenchmark the agent writes.
  std::string write;
  std::string unit;
  std::string describe;
  int attempts = 3;
  double bench_timeout = 60.0;
  AgentArgs agent;
};

nlohmann::json fact_json(const knowledge::Fact& f) {
  return {{"name", f.name},
          {"toolchain", f.toolchain},
          {"device_model", f.device_model},
          {"value", f.value},
          {"unit", f.unit},
          {"spread_pct", f.spread ? nlohmann::json(*f.spread) : nlohmann::json()},
          {"method", f.method},
          {"measured_at", f.measured_at}};
}

// `facts --write NAME --unit U --describe TEXT --agent SPEC`: exit 0 with the stored fact, 1 when
// no attempt measured it.
int write_fact(const FactsArgs& args) {
  const agents::FactToMeasure fact{args.write, args.unit, args.describe};
  if (std::string bad = agents::check_fact_to_measure(fact); !bad.empty()) throw UsageError(bad);
  if (args.agent.spec.empty())
    throw UsageError("--write needs --agent: an agent writes the benchmark");
  if (args.attempts < 1) throw UsageError("--attempts must be at least 1");
  if (!(args.bench_timeout > 0)) throw UsageError("--bench-timeout must be positive");
  validate_agent_args(args.agent);
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  const std::unique_ptr<targets::Target> target = workspace_target_or_throw(ws);
  const std::string toolchain = knowledge::toolchain_id_of(*target);
  if (target->microbenchmark_language().empty()) {
    fmt::print("{}: not measured: the {} target cannot run microbenchmarks\n", fact.name,
               target->name());
    return kExitNegative;
  }
  if (knowledge::list_facts(ws, toolchain).empty()) {
    // The agent is shown what is known: the target's own facts first.
    if (!args.json) fmt::print(stderr, "measuring chip facts for {} ...\n", toolchain);
    knowledge::measure_and_store_facts(ws, *target, toolchain);
  }
  AgentRun agent_run = start_agent_run(ws, args.agent);
  agents::MicrobenchmarkOptions options;
  options.prompts_dir = prompts_dir(ws);
  options.attempts = args.attempts;
  options.timeout_s = args.bench_timeout;
  options.cache_dir = build_cache_dir();
  agents::MicrobenchmarkResult result;
  try {
    result = agents::write_microbenchmark(
        *agent_run.ledger, ws, *target, toolchain, fact, options,
        [](const std::string& line) { fmt::print(stderr, "{}\n", line); });
  } catch (const agents::AgentError& e) {
    fail_with_agent_error(args.agent, e);
  }
  fmt::print(stderr, "{}\n", agent_run_line(agent_run));
  if (args.json) {
    nlohmann::json out = {{"toolchain", toolchain},
                          {"calls", result.calls},
                          {"fact", result.fact ? fact_json(*result.fact) : nlohmann::json()},
                          {"failure", result.failure}};
    fmt::print("{}\n", out.dump(2));
  } else if (result.fact) {
    fmt::print("{} = {:.6g} {} ({})\n", result.fact->name, result.fact->value, result.fact->unit,
               result.fact->method);
  } else {
    fmt::print("{}: not measured after {} call(s): {}\n", fact.name, result.calls, result.failure);
  }
  return result.fact ? kExitOk : kExitNegative;
}

// The facts of `model` alone (every fact when it is empty). Throws UsageError naming the models
// there are when `toolchain` has none of `model`.
std::vector<knowledge::Fact> facts_of_model(store::Workspace& ws, const std::string& toolchain,
                                            const std::string& model) {
  std::vector<knowledge::Fact> facts = knowledge::list_facts(ws);
  if (model.empty()) return facts;
  std::erase_if(facts, [&](const knowledge::Fact& f) { return f.device_model != model; });
  if (facts.empty()) {
    throw UsageError(fmt::format("no chip facts of device model '{}' for {}: its facts are of {}",
                                 model, toolchain,
                                 knowledge::models_text(knowledge::fact_models(ws, toolchain))));
  }
  return facts;
}

int run_facts(const FactsArgs& args) {
  if (!args.write.empty()) return write_fact(args);
  if (!args.unit.empty() || !args.describe.empty())
    throw UsageError("--unit and --describe go with --write NAME");
  if (!args.agent.spec.empty()) throw UsageError("--agent goes with --write NAME");
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  const std::unique_ptr<targets::Target> target = workspace_target_or_throw(ws);
  const std::string toolchain = knowledge::toolchain_id_of(*target);
  bool measured = false;
  if (args.measure || knowledge::list_facts(ws, toolchain).empty()) {
    if (!args.json) fmt::print(stderr, "measuring chip facts for {} ...\n", toolchain);
    // On the workspace's pool, once per device model there (docs/POOL.md).
    const std::shared_ptr<pool::DevicePool> devices =
        start_pool(pool_config(ws, args.pool), *target, pool_folder(ws));
    targets::FactOptions options;
    options.model = args.model;
    try {
      knowledge::measure_and_store_facts(ws, *target, toolchain, options);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    measured = true;
  } else if (pool_given(args.pool)) {
    throw UsageError("the pool options go with --measure");
  }
  const std::vector<knowledge::Fact> facts = facts_of_model(ws, toolchain, args.model);
  if (args.json) {
    nlohmann::json out = {
        {"toolchain", toolchain}, {"measured", measured}, {"facts", nlohmann::json::array()}};
    for (const auto& f : facts) out["facts"].push_back(fact_json(f));
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  std::string last, last_model;
  for (const auto& f : facts) {
    if (f.toolchain != last) {
      fmt::print("toolchain: {}{}\n", f.toolchain, f.toolchain == toolchain ? " (current)" : "");
      last = f.toolchain;
      last_model.clear();
    }
    if (f.device_model != last_model) {
      fmt::print("device model: {}\n", f.device_model);
      last_model = f.device_model;
    }
    fmt::print("  {:<28} {:>12.4f} {:<5} {:<12} {}\n", f.name, f.value, f.unit,
               f.spread ? fmt::format("cv {:.2f}%", *f.spread) : "", f.method);
  }
  return 0;
}
}  // namespace

void add_facts(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<FactsArgs>();
  auto* cmd = app.add_subcommand("facts",
                                 "List the chip facts (measuring them first when none are stored)");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->add_flag("--measure", args->measure,
                "measure again for the current toolchain: on the workspace's pool, once per "
                "device model there");
  cmd->add_option("--model", args->model,
                  "only the facts of this device model; with --measure, measure on it alone");
  cmd->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here)");
  cmd->add_option("--write", args->write,
                  "measure a new fact NAME with a microbenchmark the agent (--agent) writes");
  cmd->add_option("--unit", args->unit, "with --write: the fact's unit (e.g. GB/s, ns)");
  cmd->add_option("--describe", args->describe,
                  "with --write: what the fact means, for the agent writing the benchmark");
  cmd->add_option(
      "--attempts", args->attempts,
      "with --write: agent calls at most, each shown the last one's failure (default 3)");
  cmd->add_option("--bench-timeout", args->bench_timeout,
                  "with --write: seconds each benchmark may run (default 60)");
  add_agent_options(cmd, args->agent);
  add_pool_options(*cmd, args->pool);
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_facts(*args); }); });
}

}  // namespace headway::cli
