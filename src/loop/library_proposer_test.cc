#include "loop/library_proposer.h"

#include <gtest/gtest.h>

#include "targets/registry.h"

#include <set>

namespace headway::loop {
namespace {

// The cpu target, whose design library these tests read.
const targets::Target& cpu() {
  static const std::unique_ptr<targets::Target> target = targets::make_target("cpu");
  return *target;
}

ProposalContext context(std::set<std::string>* tried, const std::string& head_design = "baseline",
                        Params head_params = {}) {
  ProposalContext ctx;
  ctx.kernel = find_kernel("attn_out");
  ctx.head_design = head_design;
  ctx.head_params = std::move(head_params);
  ctx.already_tried = [tried](const std::string& s) { return tried->count(s) > 0; };
  ctx.max_proposals = 100;
  return ctx;
}

TEST(LibraryProposer, NewDesignsFirstThenNeverTheSameSourceTwice) {
  const auto& designs = designs_for(cpu(), "attn_out");
  ASSERT_GE(designs.size(), 3u) << "the issue asks for at least three designs per kernel";
  std::set<std::string> tried;
  LibraryProposer proposer(cpu());
  const auto first = proposer.propose(context(&tried));
  ASSERT_GE(first.size(), designs.size());
  for (size_t i = 0; i < designs.size(); ++i) {
    EXPECT_TRUE(first[i].source == designs[i].render(designs[i].defaults())) << designs[i].name;
    EXPECT_TRUE(first[i].parent_source.empty()) << "a new design is a child of the root";
  }
  std::set<std::string> sources;
  for (const auto& p : first) EXPECT_TRUE(sources.insert(p.source).second) << "proposed twice in one batch";
  for (const auto& p : first) tried.insert(p.source);
  EXPECT_TRUE(proposer.propose(context(&tried)).empty()) << "everything was tried";
}

TEST(LibraryProposer, VariantsOfTheHeadChangeOneParameterAndNameTheHeadAsParent) {
  const Design& d = designs_for(cpu(), "attn_out").front();
  std::set<std::string> tried;
  for (const auto& x : designs_for(cpu(), "attn_out")) tried.insert(x.render(x.defaults()));
  LibraryProposer proposer(cpu());
  ProposalContext ctx = context(&tried, d.name, d.defaults());
  ctx.head_source = d.render(d.defaults());
  const auto out = proposer.propose(ctx);
  const auto neighbours = d.neighbours(d.defaults());
  ASSERT_GE(out.size(), neighbours.size());
  for (size_t i = 0; i < neighbours.size(); ++i) {
    EXPECT_EQ(out[i].params, neighbours[i]);
    EXPECT_TRUE(out[i].parent_source == ctx.head_source) << "variant " << i << " names another parent";
  }
}

TEST(LibraryProposer, StaleHeadParametersAreSkippedNotFatal) {
  const Design& d = designs_for(cpu(), "attn_out").front();
  std::set<std::string> tried;
  LibraryProposer proposer(cpu());
  Params stale = d.defaults();
  stale["P_NO_SUCH_PARAMETER"] = 7;
  stale.begin()->second = -12345;  // a value no design lists
  EXPECT_NO_THROW(proposer.propose(context(&tried, d.name, stale)));
}

}  // namespace
}  // namespace headway::loop
