#pragma once
// Where candidates come from. The loop asks a proposer for a batch of candidate sources for one
// kernel; the built-in design library is one proposer, LLM agents plug in as others.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/contract.h"
#include "targets/design_library.h"

namespace headway::loop {

struct Proposal {
  std::string design;                 // the design's name ("baseline" for the root head)
  targets::Params params;             // the design's parameter values (may be empty)
  std::string source;                 // the full candidate source
  std::string parent_source;          // a variant of the node with this source; empty: a new design
  std::string rationale;              // one line: why this candidate
  std::string proposer;               // recorded on the node; empty: the proposer's name()
  std::optional<int64_t> agent_call;  // the agent call that produced it (agents/agent_ledger.h)
};

// A candidate of this kernel that was already tried, and what became of it.
struct TriedCandidate {
  std::string design;
  std::string proposer;
  std::string status;  // trees::NodeStatus as text: "rejected", "compile-error", ...
  std::string reason;  // why, one line
};

struct ProposalContext {
  const KernelContract* kernel = nullptr;
  std::string head_source;
  std::string head_design;  // the head's design name ("baseline" at the start)
  targets::Params head_params;
  // True when a source was already tried for this kernel (the never-twice rule).
  std::function<bool(const std::string& source)> already_tried;
  int max_proposals = 4;
  std::optional<double> head_ms;   // the head's time under the current toolchain
  std::optional<double> floor_ms;  // the kernel's floor on this target
  // Candidates that were screened, raced or tested (not those still proposed), most recently
  // decided first, at most kMaxTried.
  std::vector<TriedCandidate> tried;
  static constexpr size_t kMaxTried = 30;
  // Designs this chip makes slow, each with why (loop/slow_designs.h): the library proposes no
  // more variants of them.
  std::map<std::string, std::string> slow_designs;
  // Set by the loop when candidates may be built while the device times others: a proposer may
  // call it, from any thread, with a proposal's source as soon as it has one, so that the build
  // is done (and cached) before the loop screens the proposal. Thread-safe; never throws.
  std::function<void(const std::string& source)> prebuild;
};

// Proposals on their way (Proposer::begin). wait() is called once, on the thread that called
// begin() (the loop's, or with rounds at once the round's).
class PendingProposals {
 public:
  virtual ~PendingProposals() = default;
  virtual std::vector<Proposal> wait() = 0;
};

// Proposals already made, as PendingProposals (what the default Proposer::begin returns).
std::unique_ptr<PendingProposals> ready_proposals(std::vector<Proposal> proposals);

class Proposer {
 public:
  virtual ~Proposer() = default;
  virtual std::string name() const = 0;  // recorded on each node, e.g. "library"
  // Up to ctx.max_proposals untried candidates; empty when this proposer has nothing new.
  virtual std::vector<Proposal> propose(const ProposalContext& ctx) = 0;
  // True when begin() returns before its proposals are made, with the work going on in other
  // threads (agent calls): the loop then asks for the next round's proposals while the device
  // times the current round.
  virtual bool works_in_background() const { return false; }
  // Starts proposing for `ctx` (copied) and returns what wait() will give: what propose(ctx)
  // would. Called on the thread of the round it proposes for, which may meanwhile use the
  // workspace; the work in other threads must not touch that thread's workspace connection
  // (ctx.already_tried is called only from wait()). With rounds on several kernels at once
  // (OptimizeOptions::concurrent_rounds), begin(), wait(), proposed() and stopped() are called
  // from several threads at once: a proposer is thread-safe, and what it reads of the workspace
  // goes through its own connection. The default proposes here and now.
  virtual std::unique_ptr<PendingProposals> begin(const ProposalContext& ctx);
  // The loop stored the node a proposal with an agent_call became (duplicate: the source was
  // already a node, node_id is that node).
  virtual void proposed(int64_t /*node_id*/, int64_t /*agent_call*/, bool /*duplicate*/) {}
  // Why this proposer stopped proposing before it ran out of ideas (an agent budget is spent);
  // empty while it has not.
  virtual std::string stopped() const { return ""; }
};

}  // namespace headway::loop
