#pragma once
#include "loop/proposer.h"

namespace headway::loop {

// Proposes from the built-in design library, in this order: every design not yet tried (at its
// default parameters, as a new whole-kernel design); then one-parameter variants of the head
// (when the head is a library design); then one-parameter variants of the other designs'
// defaults. Never proposes a source that ctx.already_tried; skips parameter sets the design no
// longer accepts (a head stored by an older library).
class LibraryProposer final : public Proposer {
 public:
  // Proposes from `target`'s design library; the target must outlive the proposer.
  explicit LibraryProposer(const targets::Target& target) : target_(target) {}
  std::string name() const override { return "library"; }
  std::vector<Proposal> propose(const ProposalContext& ctx) override;

 private:
  const targets::Target& target_;
};

}  // namespace headway::loop
