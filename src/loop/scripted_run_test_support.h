#pragma once
// For tests of the optimize loop: a run on a target given by the caller, used through the Target
// interface, whose proposer offers a fixed list of sources once, as new designs of attn_out.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "knowledge/workspace_target.h"
#include "loop/optimizer.h"
#include "loop/proposer.h"

namespace headway::loop {

// Proposes the given sources once, as new designs; then nothing.
class ScriptedProposer final : public Proposer {
 public:
  explicit ScriptedProposer(std::vector<std::string> sources) : sources_(std::move(sources)) {}
  std::string name() const override { return "script"; }
  std::vector<Proposal> propose(const ProposalContext&) override {
    std::vector<Proposal> out;
    for (size_t i = 0; i < sources_.size(); ++i)
      out.push_back({"scripted" + std::to_string(i), {}, sources_[i], "", "", "", std::nullopt});
    sources_.clear();
    return out;
  }

 private:
  std::vector<std::string> sources_;
};

inline OptimizeSummary run_scripted(store::Workspace& ws, targets::Target& target,
                                    std::vector<std::string> sources,
                                    std::vector<Progress>* progress,
                                    double done_within_floor = OptimizeOptions{}.done_within_floor,
                                    const std::function<void(OptimizeOptions&)>& change = {}) {
  knowledge::set_workspace_target_name(ws, target.name());
  OptimizeOptions options;
  options.kernels = {"attn_out"};
  options.done_within_floor = done_within_floor;
  options.target = &target;
  if (change) change(options);
  ScriptedProposer proposer(std::move(sources));
  return optimize(ws, proposer, options, [progress](const Progress& p) {
    if (progress) progress->push_back(p);
  });
}

}  // namespace headway::loop
