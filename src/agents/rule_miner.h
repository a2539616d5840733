#pragma once
// The rule miner role: a legality rule learned from a compile failure gets its detector (the
// regular expression the lint stage applies before building) from an agent, when the built-in
// miner could not derive one (knowledge/rules.h: record_build_failure). The agent answers with
// RULE, DETECTOR, EVIDENCE and a repro (agents/response_parse.h: parse_rule); the detector is set
// only when it matches the rule's own repro (knowledge::set_rule_detector validates it).
// Findings on the device (no repro) are left to the built-in miner.
#include <filesystem>
#include <set>

#include "agents/agent_ledger.h"
#include "loop/library_proposer.h"
#include "targets/target.h"

namespace headway::agents {

class AgentRuleMiner {
 public:
  // ledger, ws and target must outlive the miner.
  AgentRuleMiner(AgentLedger& ledger, store::Workspace& ws, const targets::Target& target,
                 std::filesystem::path prompts_dir = {}, loop::ProposerLog log = {})
      : ledger_(ledger),
        ws_(ws),
        target_(target),
        prompts_dir_(std::move(prompts_dir)),
        log_(std::move(log)) {}

  // Asks once per rule, for every rule with a repro and no detector that was not asked before.
  // Returns how many rules got a detector. A spent budget or a failed call asks no more this
  // time; an AgentError fatal for the run is rethrown.
  int mine();

 private:
  AgentLedger& ledger_;
  store::Workspace& ws_;
  const targets::Target& target_;
  std::filesystem::path prompts_dir_;
  loop::ProposerLog log_;
  std::set<int64_t> asked_;
};

}  // namespace headway::agents
