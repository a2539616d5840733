#include "loop/proposals.h"

#include <algorithm>

#include "common/result.h"

namespace headway::loop {

using trees::Node;
using trees::NodeStatus;

std::vector<TriedCandidate> tried_candidates(const std::vector<Node>& nodes) {
  std::vector<Node> decided;
  for (const auto& n : nodes) {
    if (n.kind != trees::NodeKind::kBaseline && n.status != NodeStatus::kProposed)
      decided.push_back(n);
  }
  std::stable_sort(decided.begin(), decided.end(), [](const Node& a, const Node& b) {
    return a.updated_at != b.updated_at ? a.updated_at > b.updated_at : a.id > b.id;
  });
  std::vector<TriedCandidate> out;
  for (const auto& n : decided) {
    if (out.size() == ProposalContext::kMaxTried) break;
    out.push_back({n.design, n.proposer, std::string(trees::to_string(n.status)), n.reason});
  }
  return out;
}

bool tied_in_race(const Node& node) {
  return node.status == NodeStatus::kProposed && node.evidence.is_object() &&
         node.evidence.contains(kTiedInRace);
}

namespace {

std::vector<Node> proposed_where(trees::DesignTree& tree, bool tied) {
  std::vector<Node> out;
  const int64_t head = tree.head().node_id;
  for (auto& n : tree.nodes()) {
    if (n.status == NodeStatus::kProposed && n.id != head && tied_in_race(n) == tied)
      out.push_back(std::move(n));
  }
  return out;
}

}  // namespace

std::vector<Node> proposed_nodes(trees::DesignTree& tree) { return proposed_where(tree, false); }

std::vector<Node> tied_nodes(trees::DesignTree& tree) { return proposed_where(tree, true); }

std::vector<Node> add_proposals(trees::DesignTree& tree, Proposer& proposer,
                                const std::vector<Proposal>& proposals) {
  std::vector<Node> added_nodes;
  for (const auto& p : proposals) {
    trees::NewNode n;
    n.design = p.design;
    n.params = nlohmann::json(p.params);
    n.source = p.source;
    n.proposer = p.proposer.empty() ? proposer.name() : p.proposer;
    n.kind = trees::NodeKind::kDesign;
    if (!p.parent_source.empty()) {
      if (auto parent = tree.find_by_source(p.parent_source)) {
        n.kind = trees::NodeKind::kVariant;
        n.parent_id = parent->id;
      }
    }
    const auto added = value_or_fail(tree.add(n), "add node");
    if (p.agent_call) proposer.proposed(added.node.id, *p.agent_call, added.duplicate);
    if (!added.duplicate) added_nodes.push_back(added.node);
  }
  return added_nodes;
}

}  // namespace headway::loop
