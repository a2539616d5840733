#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "knowledge/facts.h"

namespace headway::cli {

namespace {
struct FactsArgs {
  bool json = false;
  bool measure = false;
  std::string workspace;
};

int run_facts(const FactsArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  const std::unique_ptr<targets::Target> target = workspace_target_or_throw(ws);
  const std::string toolchain = knowledge::toolchain_id_of(*target);
  std::vector<knowledge::Fact> facts = knowledge::list_facts(ws);
  bool measured = false;
  if (args.measure || knowledge::list_facts(ws, toolchain).empty()) {
    if (!args.json) fmt::print(stderr, "measuring chip facts for {} ...\n", toolchain);
    knowledge::measure_and_store_facts(ws, *target, toolchain);
    facts = knowledge::list_facts(ws);
    measured = true;
  }
  if (args.json) {
    nlohmann::json out = {{"toolchain", toolchain}, {"measured", measured}, {"facts", nlohmann::json::array()}};
    for (const auto& f : facts) {
      out["facts"].push_back({{"name", f.name}, {"toolchain", f.toolchain}, {"value", f.value},
                              {"unit", f.unit}, {"spread_pct", f.spread ? nlohmann::json(*f.spread) : nlohmann::json()},
                              {"method", f.method}, {"measured_at", f.measured_at}});
    }
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  std::string last;
  for (const auto& f : facts) {
    if (f.toolchain != last) {
      fmt::print("toolchain: {}{}\n", f.toolchain, f.toolchain == toolchain ? " (current)" : "");
      last = f.toolchain;
    }
    fmt::print("  {:<28} {:>12.4f} {:<5} {:<12} {}\n", f.name, f.value, f.unit,
               f.spread ? fmt::format("cv {:.2f}%", *f.spread) : "", f.method);
  }
  return 0;
}
}  // namespace

void add_facts(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<FactsArgs>();
  auto* cmd = app.add_subcommand("facts", "List the chip facts (measuring them first when none are stored)");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->add_flag("--measure", args->measure, "measure again for the current toolchain");
  cmd->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here)");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_facts(*args); }); });
}

}  // namespace headway::cli
