#include "knowledge/migration.h"

#include <fmt/format.h>

#include <map>

#include "kernels/contract.h"
#include "knowledge/facts.h"
#include "knowledge/kernel_timings.h"
#include "knowledge/rules.h"
#include "knowledge/workspace_kernels.h"
#include "store/transaction.h"
#include "trees/design_tree.h"

namespace headway::knowledge {

namespace {

struct HeadCheck {
  bool ok = false;
  bool built = false;
  std::string why;
};

HeadCheck check_source(const KernelContract* kernel, const std::string& source,
                       targets::Target& target, const std::filesystem::path& cache) {
  const targets::BuildOutcome built = target.build(source, cache);
  if (!built.built()) {
    const std::string line = target.normalize_diagnostic(built.diagnostics).line;
    return {false, false,
            "does not build: " + (line.empty() ? built.diagnostics.substr(0, 200) : line)};
  }
  if (!kernel) return {true, true, "builds (no contract to check)"};
  const targets::CheckOutcome check = target.check(*kernel, built.artifact, {});
  return {check.correct(), true, check.description};
}

// Asks the porter for a port of the failing head and records it as a variant of that head.
void port_head(trees::DesignTree& tree, int64_t head, const std::string& head_source,
               const std::string& why, const KernelContract* contract, targets::Target& to,
               const std::filesystem::path& cache, const MigrateOptions& options,
               MigrationReport& report) {
  const std::string kernel = tree.kernel();
  const auto port = options.port(kernel, head_source, why);
  if (!port) {
    report.notes.push_back(fmt::format("{}: the porter gave no port of head {}", kernel, head));
    return;
  }
  trees::NewNode n;
  n.kind = trees::NodeKind::kVariant;
  n.parent_id = head;
  n.design = tree.node(head) ? tree.node(head)->design : "";
  n.source = port->source;
  n.proposer = port->proposer;
  auto added = tree.add(n);
  if (!added) {
    report.notes.push_back(fmt::format("{}: the port of head {} was not recorded: {}", kernel, head,
                                       added.error().message));
    return;
  }
  const int64_t node = added->node.id;
  if (port->agent_call && options.on_ported)
    options.on_ported(node, *port->agent_call, added->duplicate);
  if (added->duplicate) {
    report.notes.push_back(
        fmt::format("{}: the port of head {} is node {}, already tried", kernel, head, node));
    return;
  }
  const HeadCheck c = check_source(contract, port->source, to, cache);
  if (c.ok) {
    ++report.ports_proposed;
    report.notes.push_back(
        fmt::format("{}: the port of head {} builds and passes: node {}, proposed for the "
                    "acceptance test of the next optimize run",
                    kernel, head, node));
    return;
  }
  ++report.ports_failed;
  (void)tree.set_status(node,
                        c.built ? trees::NodeStatus::kIncorrect : trees::NodeStatus::kBuildFailed,
                        c.why, {{"toolchain", to.identity().id}, {"ported_from", head}});
  report.notes.push_back(
      fmt::format("{}: the port of head {} fails too (node {}): {}", kernel, head, node, c.why));
}

}  // namespace

std::string MigrationReport::summary() const {
  std::string s = fmt::format(
      "{} rules: {} re-verified, {} rewritten, {} retired, {} carried over unverified; heads: {} "
      "kept, {} fell back",
      rules, verified, rewritten, retired, carried, heads_kept, heads_fell_back);
  if (heads_broken > 0) s += fmt::format(", {} broken", heads_broken);
  if (ports_proposed + ports_failed > 0) {
    s += fmt::format("; ports: {} proposed for testing, {} failed", ports_proposed, ports_failed);
  }
  return s;
}

Result<MigrationReport> migrate_toolchain(store::Workspace& ws, targets::Target& to,
                                          const MigrateOptions& options) {
  const targets::ToolchainInfo id = to.identity();
  if (!id.found)
    return environment_error(
        fmt::format("cannot use toolchain '{}': {}", to.toolchain(), id.error));
  if (id.version.empty()) {
    return environment_error(
        fmt::format("cannot use toolchain '{}': it reports no version", to.toolchain()));
  }
  const std::filesystem::path cache =
      options.cache_dir.empty() ? ws.root() / ".headway" / "builds" : options.cache_dir;
  MigrationReport report;
  report.from_id = current_toolchain_id(ws);
  report.to_id = id.id;

  // The figures before the migration, to print next to the new ones.
  struct Before {
    std::optional<double> baseline_ms, head_ms;
    int64_t head_node = 0;
  };
  std::map<std::string, Before> previous;
  for (const trees::KernelRecord& k : trees::DesignTree::kernels(ws)) {
    auto tree = trees::DesignTree::open(ws, k.name);
    if (!tree) continue;
    previous[k.name] = {current_baseline_ms(ws, *tree, report.from_id),
                        current_head_ms(ws, *tree, report.from_id), tree->head().node_id};
  }

  // Failures no one mined yet (a workspace optimized by an older headway) become rules first.
  for (const trees::KernelRecord& k : trees::DesignTree::kernels(ws)) {
    if (auto mined = mine_rules_from_tree(ws, k.name); mined)
      report.mined_new_rules += mined->new_rules;
  }

  for (const Rule& rule : list_rules(ws)) {
    ++report.rules;
    std::optional<std::string> repro;
    if (rule.repro_hash) repro = ws.artifacts().get(*rule.repro_hash);
    if (!repro) {
      ++report.carried;
      set_rule_status(ws, rule.id, id.id, RuleState::kCarriedUnverified,
                      {{"why", rule.repro_hash ? "the repro artifact is missing" : "no repro"}});
      continue;
    }
    const targets::BuildOutcome built = to.build(*repro, cache);
    if (built.built()) {
      ++report.retired;
      set_rule_status(ws, rule.id, id.id, RuleState::kRetired, {{"why", "the repro builds"}});
      report.notes.push_back(fmt::format("rule {} retired: its repro builds", rule.id));
      continue;
    }
    const targets::Diagnostic diagnostic = to.normalize_diagnostic(built.diagnostics);
    const std::string& signature = diagnostic.signature;
    const std::string& line = diagnostic.line;
    if (signature == rule.signature) {
      ++report.verified;
      set_rule_status(ws, rule.id, id.id, RuleState::kVerified, {{"diagnostic", line}});
    } else if (signature.empty()) {
      // No error line (a timeout, a crash of the compiler): neither confirmed nor contradicted.
      ++report.carried;
      set_rule_status(ws, rule.id, id.id, RuleState::kCarriedUnverified,
                      {{"why", "the repro fails without an error line"},
                       {"output", built.diagnostics.substr(0, 400)}});
    } else {
      ++report.rewritten;
      store::Transaction txn(ws.db());
      set_rule_text(ws, rule.id, fmt::format("the compiler rejects: {}", line));
      set_rule_status(
          ws, rule.id, id.id, RuleState::kRewritten,
          {{"diagnostic", line}, {"signature", signature}, {"previous_text", rule.text}});
      txn.commit();
      report.notes.push_back(fmt::format("rule {} rewritten: {}", rule.id, signature));
    }
  }

  if (options.check_heads) {
    for (const RecordedKernel& recorded : recorded_kernels(ws, options.catalog)) {
      const trees::KernelRecord& k = recorded.record;
      auto tree = trees::DesignTree::open(ws, k.name);
      if (!tree) continue;
      const KernelContract* contract = recorded.contract;
      const std::vector<trees::HeadRecord> history = tree->head_history();
      const int64_t head = history.back().node_id;
      std::string head_why;
      bool done = false;
      for (auto it = history.rbegin(); it != history.rend() && !done; ++it) {
        const auto source = tree->source(it->node_id);
        if (!source) continue;
        const HeadCheck c = check_source(contract, *source, to, cache);
        if (it->node_id == head) {
          if (c.ok) {
            ++report.heads_kept;
            done = true;
          } else {
            head_why = c.why;
          }
          continue;
        }
        if (!c.ok) continue;
        auto set = tree->set_head(
            it->node_id, it->median_ms, std::nullopt,
            fmt::format("toolchain migration to {}: head {} {}", id.version, head, head_why),
            {{"migration", id.id}, {"failed_head", head}, {"why", head_why}});
        if (!set) {
          ws.set_meta("head_override." + k.name, std::to_string(it->node_id));
          report.notes.push_back(
              fmt::format("{}: head {} fails ({}); set_head refused node {} ({}), "
                          "recorded in meta head_override.{}",
                          k.name, head, head_why, it->node_id, set.error().message, k.name));
        } else {
          report.notes.push_back(fmt::format("{}: head {} fails ({}); fell back to node {}", k.name,
                                             head, head_why, it->node_id));
        }
        ++report.heads_fell_back;
        done = true;
      }
      if (!done) {
        ++report.heads_broken;
        report.notes.push_back(
            fmt::format("{}: no head in its history builds and passes with {} ({})", k.name,
                        id.version, head_why));
      }
      if (!head_why.empty() && options.port) {
        if (const auto source = tree->source(head))
          port_head(*tree, head, *source, head_why, contract, to, cache, options, report);
      }
    }
  }

  if (options.remeasure) {
    for (const RecordedKernel& recorded : recorded_kernels(ws, options.catalog)) {
      const trees::KernelRecord& k = recorded.record;
      auto tree = trees::DesignTree::open(ws, k.name);
      if (!tree) continue;
      MigrationReport::Timings t;
      t.kernel = k.name;
      t.readings = options.readings;
      if (auto it = previous.find(k.name); it != previous.end()) {
        t.previous_baseline_ms = it->second.baseline_ms;
        t.previous_head_ms = it->second.head_ms;
        t.previous_head_node = it->second.head_node;
      }
      t.baseline_node = tree->root().id;
      t.head_node = tree->head().node_id;
      const KernelContract* contract = recorded.contract;
      if (!contract) {
        t.failure = "unknown to this headway: cannot be timed";
      } else {
        const Remeasured r =
            remeasure_baseline_and_head(ws, *tree, *contract, to, cache, options.readings);
        t.failure = r.failure;
        if (r.baseline) t.baseline_ms = r.baseline->median_ms;
        if (r.head) t.head_ms = r.head->median_ms;
      }
      report.timings.push_back(std::move(t));
    }
  }

  set_workspace_toolchain(ws, to);
  return report;
}

}  // namespace headway::knowledge
