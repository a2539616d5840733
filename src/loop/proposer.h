#pragma once
// Where candidates come from. The loop asks a proposer for a batch of candidate sources for one
// kernel; the built-in design library is one proposer, LLM agents plug in as others.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/contract.h"
#include "loop/design_library.h"

namespace headway::loop {

struct Proposal {
  std::string design;             // the design's name ("baseline" for the root head)
  Params params;                  // the design's parameter values (may be empty)
  std::string source;             // the full candidate source
  std::string parent_source;      // a variant of the node with this source; empty: a new design
  std::string rationale;          // one line: why this candidate
};

struct ProposalContext {
  const KernelContract* kernel = nullptr;
  std::string head_source;
  std::string head_design;  // the head's design name ("baseline" at the start)
  Params head_params;
  // True when a source was already tried for this kernel (the never-twice rule).
  std::function<bool(const std::string& source)> already_tried;
  int max_proposals = 4;
};

class Proposer {
 public:
  virtual ~Proposer() = default;
  virtual std::string name() const = 0;  // recorded on each node, e.g. "library"
  // Up to ctx.max_proposals untried candidates; empty when this proposer has nothing new.
  virtual std::vector<Proposal> propose(const ProposalContext& ctx) = 0;
};

}  // namespace headway::loop
