#include "loop/proposer.h"

namespace headway::loop {

namespace {

class ReadyProposals final : public PendingProposals {
 public:
  explicit ReadyProposals(std::vector<Proposal> proposals) : proposals_(std::move(proposals)) {}
  std::vector<Proposal> wait() override { return std::move(proposals_); }

 private:
  std::vector<Proposal> proposals_;
};

}  // namespace

std::unique_ptr<PendingProposals> ready_proposals(std::vector<Proposal> proposals) {
  return std::make_unique<ReadyProposals>(std::move(proposals));
}

std::unique_ptr<PendingProposals> Proposer::begin(const ProposalContext& ctx) {
  return ready_proposals(propose(ctx));
}

}  // namespace headway::loop
