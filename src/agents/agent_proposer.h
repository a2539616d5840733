#pragma once
// The optimize loop's agent proposer: asks an agent, through the run's ledger, for whole new
// designs (role "designer") and single changes to the head (role "variant"), with the kernel's
// context rendered into the role's prompt template (agents/kernel_prompt.h, prompts/). The
// batch's calls run at once on their own threads (the ledger bounds how many are in flight), and
// with more than one in flight begin() returns while they run, so that the loop can time the
// current round meanwhile; each answer's code is handed to ProposalContext::prebuild as soon as
// it parses. With one in flight the calls run in order on the loop's thread, so that a replayed
// transcript reproduces the run exactly. The calls' threads store through the ledger, which has a
// workspace connection of its own.
//
// An answer becomes a proposal only when it parses (agents/response_parse.h: one code block, or
// for command agents the edited kernel.cc); anything else is stored as a malformed call with its
// reason and the loop goes on. An answer whose code was already tried is stored as "duplicate".
// Designs are named "agent/<NAME>" after the answer's NAME: line, variants "agent/<head design>";
// a node records "<provider>:<model> <role>" as its proposer and the call that produced it.
//
// Failures: a spent budget stops the proposer (stopped() says which budget); an AgentError that
// is fatal for the run (auth, unknown model, bad request) is rethrown as std::runtime_error; any
// other failure costs that one proposal.
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "agents/agent_ledger.h"
#include "agents/kernel_prompt.h"
#include "loop/library_proposer.h"
#include "loop/proposer.h"
#include "targets/target.h"

namespace headway::agents {

struct AgentProposerOptions {
  std::filesystem::path prompts_dir;  // the workspace's template overrides (.headway/prompts)
  ContextLimits limits;
  // The current cheat sheet's Markdown; called once per propose(), on the loop's thread.
  std::function<std::string()> cheat_sheet;
  int designer_every = 3;  // every n-th call for a kernel is a designer call (the first always is)
  int max_tokens = 16384;  // per answer
};

class AgentProposer final : public loop::Proposer {
 public:
  // target and ledger must outlive the proposer.
  AgentProposer(const targets::Target& target, AgentLedger& ledger, AgentProposerOptions options,
                loop::ProposerLog log = {});
  std::string name() const override { return "agent"; }
  std::vector<loop::Proposal> propose(const loop::ProposalContext& ctx) override;
  bool works_in_background() const override;
  std::unique_ptr<loop::PendingProposals> begin(const loop::ProposalContext& ctx) override;
  void proposed(int64_t node_id, int64_t agent_call, bool duplicate) override;
  std::string stopped() const override;

 private:
  struct Answer;
  class Pending;
  Answer ask(const loop::ProposalContext& ctx, const std::string& role,
             const std::string& cheat_sheet);

  const targets::Target& target_;
  AgentLedger& ledger_;
  AgentProposerOptions options_;
  loop::ProposerLog log_;
  mutable std::mutex mu_;  // guards calls_by_kernel_ and stopped_: rounds ask at once
  std::map<std::string, int> calls_by_kernel_;
  std::string stopped_;
};

// Proposes from several proposers in turn: each round, the first gets half the batch (rounded
// up) and the rest the remainder, in order; what one leaves unused goes to the next. Stops when
// all have nothing new. (`--agent ... --library`: the agent first, then the design library.)
class CombinedProposer final : public loop::Proposer {
 public:
  explicit CombinedProposer(std::vector<loop::Proposer*> proposers)
      : proposers_(std::move(proposers)) {}
  std::string name() const override;
  std::vector<loop::Proposal> propose(const loop::ProposalContext& ctx) override;
  // The first proposer's: its share is begun at once, the others' asked in wait().
  bool works_in_background() const override;
  std::unique_ptr<loop::PendingProposals> begin(const loop::ProposalContext& ctx) override;
  void proposed(int64_t node_id, int64_t agent_call, bool duplicate) override;
  std::string stopped() const override;

 private:
  class Pending;
  std::vector<loop::Proposer*> proposers_;
};

}  // namespace headway::agents
