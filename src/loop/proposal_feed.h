#pragma once
// Where a run's proposals come from: what the proposer is told of a kernel, the nodes a round
// decides (those proposed earlier, then new proposals varying the round's parents), and the next
// round's proposals asked for ahead while the device times (Proposer::works_in_background).
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "loop/kernel_trees.h"
#include "loop/optimize_options.h"
#include "loop/proposer.h"
#include "store/workspace.h"
#include "targets/target.h"
#include "trees/design_tree.h"

namespace headway::loop {

// Proposals asked for ahead, stored: their kernel and how many nodes are new.
struct ProposalsAhead {
  std::string kernel;
  int added = 0;
};

// Every reference must outlive the feed. context_of and pending_of may be called from several
// threads at once, each with its own connection and trees (the proposer must allow it:
// loop/proposer.h); ask_ahead and collect_ahead from one thread at a time.
class ProposalFeed {
 public:
  // `build_mutex` is the one the run's own builds hold (loop/round.h, SerialBuilds): a build of a
  // proposal as it arrives (ProposalContext::prebuild) never runs beside one of them.
  ProposalFeed(Proposer& proposer, const OptimizeOptions& options, targets::Target& target,
               std::filesystem::path build_cache, std::mutex& build_mutex)
      : proposer_(proposer),
        options_(options),
        target_(target),
        build_cache_(std::move(build_cache)),
        build_mutex_(build_mutex) {}

  // What the proposer is told for up to `max_proposals` candidates of `t`'s kernel varying its
  // head, read through `ws`, the connection `t` uses (which must outlive the proposals' wait()).
  // Where options.build_target is set and the device is not the host, proposals are built on it
  // as they arrive. Throws a Failure (not found) for a kernel this process does not know.
  ProposalContext context_of(store::Workspace& ws, trees::DesignTree& t, int max_proposals);

  // The nodes a round on `t`'s kernel decides (`ws`: the connection `t` uses): those proposed
  // earlier, oldest first, and when fewer than options.batch, new proposals for the rest, varying
  // each of `parents()` in turn (loop/beam.h) until one gives something new. `asking` is called
  // before the proposer is asked (not at all when it is not); *added receives how many nodes are
  // new. When there are none of either, the candidates tied in a race (proposals.h).
  std::vector<trees::Node> pending_of(store::Workspace& ws, trees::DesignTree& t,
                                      const std::function<std::vector<trees::Node>()>& parents,
                                      const std::function<void()>& asking, int* added);

  // Whether the next round's proposals may be asked for ahead: the proposer works in the
  // background and has not stopped, and none are asked for already.
  bool may_ask_ahead() const;
  // Asks for proposals ahead for `kernel`, the next round's, unless a batch of its nodes waits
  // proposed already besides `deciding` (the nodes of the round about to be timed): as many as
  // the batch lacks, told of its tree in `trees` on `ws`, the connection `trees` uses. The check
  // of what was tried goes through `trees` by name, so the proposals may be waited for after a
  // pause reopened the trees. Requires may_ask_ahead(); `ws` and `trees` must outlive
  // collect_ahead().
  void ask_ahead(store::Workspace& ws, KernelTrees& trees, const std::string& kernel,
                 const std::set<int64_t>& deciding);
  // Waits for the proposals asked for ahead and stores them in their kernel's tree in `trees`;
  // nullopt when none were asked for.
  std::optional<ProposalsAhead> collect_ahead(KernelTrees& trees);

 private:
  void prebuild(const std::string& source);

  Proposer& proposer_;
  const OptimizeOptions& options_;
  targets::Target& target_;
  std::filesystem::path build_cache_;
  std::mutex& build_mutex_;
  struct Ahead {
    std::string kernel;
    std::unique_ptr<PendingProposals> pending;
  };
  std::optional<Ahead> ahead_;
};

}  // namespace headway::loop
