#include "loop/proposal_feed.h"

#include <gtest/gtest.h>

#include "loop/loop_kernel_test_support.h"
#include "loop/proposals.h"

namespace headway::loop {
namespace {

// Proposes `count` new designs at each call (numbered across calls), and says what it was told.
class CountingProposer final : public Proposer {
 public:
  explicit CountingProposer(int count, bool background = false)
      : count_(count), background_(background) {}
  std::string name() const override { return "counting"; }
  bool works_in_background() const override { return background_; }
  std::vector<Proposal> propose(const ProposalContext& ctx) override {
    told.push_back(ctx);
    std::vector<Proposal> out;
    for (int i = 0; i < count_; ++i, ++made_) {
      const std::string design = "d" + std::to_string(made_);
      out.push_back({design, {}, "// " + design + "\ntime: 0.5\n", "", "", "", std::nullopt});
    }
    return out;
  }
  std::vector<ProposalContext> told;

 private:
  int count_;
  bool background_;
  int made_ = 0;
};

TEST(ProposalFeed, ARoundTakesWhatWasProposedBeforeAndAsksOnlyForTheRestOfItsBatch) {
  LoopKernel k;
  CountingProposer proposer(1);
  OptimizeOptions options;
  options.batch = 2;
  options.target = &k.target();
  std::mutex builds;
  ProposalFeed feed(proposer, options, k.target(), "/nonexistent", builds);
  const trees::Node earlier = k.add("earlier", "time: 0.7\n");
  int asked = 0;
  int added = -1;
  const auto head = [&k] { return std::vector<trees::Node>{k.head()}; };
  const auto pending = feed.pending_of(
      k.ws(), k.tree(), head, [&] { ++asked; }, &added);
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].id, earlier.id);
  EXPECT_EQ(pending[1].design, "d0");
  EXPECT_EQ(added, 1);
  EXPECT_EQ(asked, 1);
  ASSERT_EQ(proposer.told.size(), 1u);
  EXPECT_EQ(proposer.told[0].max_proposals, 1);
  EXPECT_EQ(proposer.told[0].kernel->name(), "attn_out");

  // A full batch waits already: the proposer is not asked.
  const auto again = feed.pending_of(
      k.ws(), k.tree(), head, [&] { ++asked; }, &added);
  EXPECT_EQ(again.size(), 2u);
  EXPECT_EQ(added, 0);
  EXPECT_EQ(asked, 1);
}

TEST(ProposalFeed, EachParentIsVariedInTurnUntilOneGivesSomethingNew) {
  LoopKernel k;
  CountingProposer proposer(0);  // nothing new, whatever it is told
  OptimizeOptions options;
  std::mutex builds;
  ProposalFeed feed(proposer, options, k.target(), "/nonexistent", builds);
  const trees::Node other = k.add("other", "time: 0.9\n");
  ASSERT_TRUE(k.tree().set_status(other.id, trees::NodeStatus::kSlower, "test"));
  int added = -1;
  const auto parents = [&] { return std::vector<trees::Node>{other, k.head()}; };
  EXPECT_TRUE(feed.pending_of(
                      k.ws(), k.tree(), parents, [] {}, &added)
                  .empty());
  ASSERT_EQ(proposer.told.size(), 2u);
  EXPECT_EQ(proposer.told[0].head_design, "other");
  EXPECT_EQ(proposer.told[1].head_design, k.head().design);
}

// A candidate tied in a race waits while anything else is left, then is a round's candidate.
TEST(ProposalFeed, ACandidateTiedInARaceWaitsUntilNothingElseIsLeft) {
  LoopKernel k;
  CountingProposer proposer(1);
  OptimizeOptions options;
  options.batch = 2;
  std::mutex builds;
  ProposalFeed feed(proposer, options, k.target(), "/nonexistent", builds);
  const trees::Node tied = k.add("tied", "time: 0.6\n");
  ASSERT_TRUE(k.tree().note_proposed(tied.id, "tied", {{kTiedInRace, 1}}));
  const trees::Node fresh = k.add("fresh", "time: 0.7\n");
  EXPECT_TRUE(tied_in_race(*k.tree().node(tied.id)));
  EXPECT_FALSE(tied_in_race(*k.tree().node(fresh.id)));
  ASSERT_EQ(proposed_nodes(k.tree()).size(), 1u);
  EXPECT_EQ(proposed_nodes(k.tree())[0].id, fresh.id);
  ASSERT_EQ(tied_nodes(k.tree()).size(), 1u);
  EXPECT_EQ(tied_nodes(k.tree())[0].id, tied.id);

  int added = -1;
  const auto head = [&k] { return std::vector<trees::Node>{k.head()}; };
  const auto first = feed.pending_of(
      k.ws(), k.tree(), head, [] {}, &added);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].id, fresh.id);
  EXPECT_EQ(first[1].design, "d0") << "the proposer's new design, not the tied one";
  for (const auto& n : first)
    ASSERT_TRUE(k.tree().set_status(n.id, trees::NodeStatus::kSlower, "decided"));

  CountingProposer empty(0);
  ProposalFeed spent(empty, options, k.target(), "/nonexistent", builds);
  const auto last = spent.pending_of(
      k.ws(), k.tree(), head, [] {}, &added);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].id, tied.id);
  EXPECT_EQ(added, 0);
  ASSERT_TRUE(k.tree().set_status(tied.id, trees::NodeStatus::kRacedOut, "tied again"));
  EXPECT_TRUE(spent
                  .pending_of(
                      k.ws(), k.tree(), head, [] {}, &added)
                  .empty());
}

TEST(ProposalFeed, ProposalsAskedForAheadAreCollectedOnce) {
  LoopKernel k;
  OptimizeOptions options;
  std::mutex builds;
  CountingProposer foreground(1);
  EXPECT_FALSE(
      ProposalFeed(foreground, options, k.target(), "/nonexistent", builds).may_ask_ahead());

  CountingProposer proposer(2, true);
  ProposalFeed feed(proposer, options, k.target(), "/nonexistent", builds);
  KernelTrees trees(k.ws(), k.target());
  EXPECT_FALSE(feed.collect_ahead(trees));
  ASSERT_TRUE(feed.may_ask_ahead());
  options.batch = 3;
  const trees::Node deciding = k.add("deciding", "time: 0.7\n");
  const trees::Node waiting = k.add("waiting", "time: 0.8\n");
  feed.ask_ahead(k.ws(), trees, "attn_out", {deciding.id});
  EXPECT_FALSE(feed.may_ask_ahead());  // one ask ahead at a time
  ASSERT_EQ(proposer.told.size(), 1u);
  EXPECT_EQ(proposer.told[0].max_proposals, 2);  // the batch less the node waiting
  EXPECT_TRUE(proposer.told[0].already_tried(k.tree().source(waiting.id).value()));
  const auto ahead = feed.collect_ahead(trees);
  ASSERT_TRUE(ahead);
  EXPECT_EQ(ahead->kernel, "attn_out");
  EXPECT_EQ(ahead->added, 2);
  EXPECT_EQ(proposed_nodes(k.tree()).size(), 4u);
  EXPECT_FALSE(feed.collect_ahead(trees));
  EXPECT_TRUE(feed.may_ask_ahead());

  // A batch waits besides the nodes deciding: nothing is asked for.
  feed.ask_ahead(k.ws(), trees, "attn_out", {deciding.id});
  EXPECT_EQ(proposer.told.size(), 1u);
  EXPECT_TRUE(feed.may_ask_ahead());
}

}  // namespace
}  // namespace headway::loop
