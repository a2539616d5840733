#include "loop/proposal_feed.h"

#include <exception>

#include "loop/kernel_registration.h"
#include "loop/kernel_trees.h"
#include "loop/proposals.h"
#include "loop/slow_designs.h"

namespace headway::loop {

using trees::Node;

ProposalContext ProposalFeed::context_of(store::Workspace& ws, trees::DesignTree& t,
                                         int max_proposals) {
  const Node head = *t.node(t.head().node_id);
  ProposalContext ctx;
  ctx.kernel = &kernel_or_fail(options_.catalog, t.kernel());
  ctx.head_source = t.source(head.id).value_or("");
  ctx.head_design = head.design;
  ctx.head_params = targets::params_from_json(head.params);
  ctx.already_tried = [&t](const std::string& s) { return t.find_by_source(s).has_value(); };
  ctx.max_proposals = max_proposals;
  ctx.head_ms = head_ms_of(ws, t, target_);
  ctx.floor_ms = t.record().floor_ms;
  const std::vector<Node> nodes = t.nodes();  // read once for both
  ctx.tried = tried_candidates(nodes);
  if (options_.slow_designs) ctx.slow_designs = slow_designs(nodes, head.design);
  if (options_.build_target && !target_.times_on_host()) {
    ctx.prebuild = [this](const std::string& source) { prebuild(source); };
  }
  return ctx;
}

std::vector<Node> ProposalFeed::pending_of(store::Workspace& ws, trees::DesignTree& t,
                                           const std::function<std::vector<Node>()>& parents,
                                           const std::function<void()>& asking, int* added) {
  *added = 0;
  std::vector<Node> pending = proposed_nodes(t);
  if (static_cast<int>(pending.size()) >= options_.batch) return pending;
  asking();
  std::vector<Node> fresh;
  ProposalContext ctx = context_of(ws, t, options_.batch - static_cast<int>(pending.size()));
  for (const Node& parent : parents()) {
    ctx.head_source = t.source(parent.id).value_or("");
    ctx.head_design = parent.design;
    ctx.head_params = targets::params_from_json(parent.params);
    fresh = add_proposals(t, proposer_, proposer_.begin(ctx)->wait());
    if (!fresh.empty()) break;
  }
  *added = static_cast<int>(fresh.size());
  pending.insert(pending.end(), fresh.begin(), fresh.end());
  return pending.empty() ? tied_nodes(t) : pending;
}

bool ProposalFeed::may_ask_ahead() const {
  return !ahead_ && proposer_.works_in_background() && proposer_.stopped().empty();
}

void ProposalFeed::ask_ahead(store::Workspace& ws, KernelTrees& trees, const std::string& kernel,
                             const std::set<int64_t>& deciding) {
  int waiting = 0;
  for (const auto& n : proposed_nodes(trees.tree(kernel))) waiting += !deciding.count(n.id);
  if (waiting >= options_.batch) return;
  ProposalContext ctx = context_of(ws, trees.tree(kernel), options_.batch - waiting);
  ctx.already_tried = [&trees, kernel](const std::string& s) {
    return trees.tree(kernel).find_by_source(s).has_value();
  };
  ahead_.emplace(Ahead{kernel, proposer_.begin(ctx)});
}

std::optional<ProposalsAhead> ProposalFeed::collect_ahead(KernelTrees& trees) {
  if (!ahead_) return std::nullopt;
  Ahead a = std::move(*ahead_);
  ahead_.reset();
  const auto added = add_proposals(trees.tree(a.kernel), proposer_, a.pending->wait());
  return ProposalsAhead{a.kernel, static_cast<int>(added.size())};
}

void ProposalFeed::prebuild(const std::string& source) {
  std::lock_guard lock(build_mutex_);
  try {
    options_.build_target->build(source, build_cache_);
  } catch (const std::exception&) {
    // The loop's own build of the source, when it screens it, reports what went wrong.
  }
}

}  // namespace headway::loop
