#include "loop/library_proposer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"
#include "trees/design_tree.h"

namespace headway::loop {
namespace {

ProposalContext context(std::set<std::string>* tried, const std::string& head_design = "baseline",
                        targets::Params head_params = {}) {
  ProposalContext ctx;
  ctx.kernel = builtin_kernel("attn_out");
  ctx.head_design = head_design;
  ctx.head_params = std::move(head_params);
  ctx.already_tried = [tried](const std::string& s) { return tried->count(s) > 0; };
  ctx.max_proposals = 100;
  return ctx;
}

// The loop tests' target whose "threaded" design requires the extension vec512.
const targets::Target& library_target() {
  static const auto target = targets::make_test_target("test-1:requires=vec512");
  return *target;
}

// A chip and toolchain that have every extension.
std::optional<double> has_everything(const std::string&) { return 1.0; }

TEST(LibraryProposer, NewDesignsFirstThenNeverTheSameSourceTwice) {
  const auto& designs = targets::designs_for(library_target(), *builtin_kernel("attn_out"));
  ASSERT_GE(designs.size(), 3u) << "the issue asks for at least three designs per kernel";
  std::set<std::string> tried;
  LibraryProposer proposer(library_target(), has_everything);
  const auto first = proposer.propose(context(&tried));
  ASSERT_GE(first.size(), designs.size());
  for (size_t i = 0; i < designs.size(); ++i) {
    EXPECT_TRUE(first[i].source == designs[i].render(designs[i].defaults())) << designs[i].name;
    EXPECT_TRUE(first[i].parent_source.empty()) << "a new design is a child of the root";
  }
  std::set<std::string> sources;
  for (const auto& p : first)
    EXPECT_TRUE(sources.insert(p.source).second) << "proposed twice in one batch";
  for (const auto& p : first) tried.insert(p.source);
  EXPECT_TRUE(proposer.propose(context(&tried)).empty()) << "everything was tried";
}

TEST(LibraryProposer, VariantsOfTheHeadChangeOneParameterAndNameTheHeadAsParent) {
  const targets::Design& d =
      targets::designs_for(library_target(), *builtin_kernel("attn_out")).front();
  std::set<std::string> tried;
  for (const auto& x : targets::designs_for(library_target(), *builtin_kernel("attn_out")))
    tried.insert(x.render(x.defaults()));
  LibraryProposer proposer(library_target(), has_everything);
  ProposalContext ctx = context(&tried, d.name, d.defaults());
  ctx.head_source = d.render(d.defaults());
  const auto out = proposer.propose(ctx);
  const auto neighbours = d.neighbours(d.defaults());
  ASSERT_GE(out.size(), neighbours.size());
  for (size_t i = 0; i < neighbours.size(); ++i) {
    EXPECT_EQ(out[i].params, neighbours[i]);
    EXPECT_TRUE(out[i].parent_source == ctx.head_source)
        << "variant " << i << " names another parent";
  }
}

TEST(LibraryProposer, StaleHeadParametersAreSkippedNotFatal) {
  const targets::Design& d =
      targets::designs_for(library_target(), *builtin_kernel("attn_out")).front();
  std::set<std::string> tried;
  LibraryProposer proposer(library_target());
  targets::Params stale = d.defaults();
  stale["P_NO_SUCH_PARAMETER"] = 7;
  stale.begin()->second = -12345;  // a value no design lists
  const auto out = proposer.propose(context(&tried, d.name, stale));
  ASSERT_FALSE(out.empty()) << "the other designs are still proposed";
  for (const auto& p : out) {
    // A variant of the stale head would keep its value no design lists: none is offered.
    for (const auto& [name, value] : p.params) EXPECT_NE(value, -12345) << p.design << " " << name;
  }
}

TEST(LibraryProposer, ADesignTheChipMakesSlowGetsNoVariantsAndIsSaidSoOnce) {
  const auto& designs = targets::designs_for(library_target(), *builtin_kernel("attn_out"));
  ASSERT_GE(designs.size(), 3u);
  const targets::Design& head = designs[0];
  const targets::Design& slow = designs[1];
  std::set<std::string> tried;
  for (const auto& d : designs) tried.insert(d.render(d.defaults()));
  std::vector<std::string> lines;
  LibraryProposer proposer(library_target(), has_everything,
                           [&lines](const std::string& line) { lines.push_back(line); });
  ProposalContext ctx = context(&tried, head.name, head.defaults());
  ctx.head_source = head.render(head.defaults());
  const auto before = proposer.propose(ctx);
  ASSERT_TRUE(std::any_of(before.begin(), before.end(), [&](const Proposal& p) {
    return p.design == slow.name;
  })) << "without the finding its variants are proposed";
  ctx.slow_designs = {{slow.name, "its best node, 7, read 3.0x the head"}};
  for (int round = 0; round < 2; ++round) {
    const auto out = proposer.propose(ctx);
    EXPECT_FALSE(out.empty()) << "the head's and the other designs' variants remain";
    for (const auto& p : out) EXPECT_NE(p.design, slow.name);
  }
  ASSERT_EQ(lines.size(), 1u) << "said once, not once per round";
  EXPECT_EQ(lines[0], fmt::format("library: attn_out design {} kept out on this chip: its best "
                                  "node, 7, read 3.0x the head",
                                  slow.name));
}

TEST(LibraryProposer, ADesignMakingSubnormalsIsSkippedWhereTheChipsFmasTakeThemSlowly) {
  targets::Design design;
  design.kernel = "ffn";
  design.name = "shifty";
  design.subnormals = "e2m1 0.5 codes";
  const auto ratio_of = [](double ratio) {
    return [ratio](const std::string& name) -> std::optional<double> {
      return name == "fma.subnormal_ratio" ? std::optional<double>(ratio) : 1.0;
    };
  };
  const std::string slow =
      LibraryProposer(library_target(), ratio_of(37.0)).unmet_requirements(design);
  EXPECT_EQ(slow,
            "its FMAs take f32 subnormals (e2m1 0.5 codes), which take 37.0x as long on this chip "
            "(fact fma.subnormal_ratio = 37.00)");
  EXPECT_EQ(LibraryProposer(library_target(), ratio_of(1.1)).unmet_requirements(design), "")
      << "subnormals in hardware: the design runs at its speed";
  const FactLookup unmeasured = [](const std::string&) -> std::optional<double> {
    return std::nullopt;
  };
  EXPECT_EQ(LibraryProposer(library_target(), unmeasured).unmet_requirements(design), "")
      << "no measurement is no evidence: its races judge it";
  LibraryProposer ungated(library_target(), ratio_of(37.0));
  ungated.gate_on_isa_facts(false);
  EXPECT_EQ(ungated.unmet_requirements(design), "");
  design.subnormals.clear();
  EXPECT_EQ(LibraryProposer(library_target(), ratio_of(37.0)).unmet_requirements(design), "");
}

// Every design of `kernel` the proposer offers at its defaults, by name.
std::set<std::string> proposed_designs(LibraryProposer& proposer, const char* kernel) {
  std::set<std::string> tried;
  ProposalContext ctx = context(&tried);
  ctx.kernel = builtin_kernel(kernel);
  std::set<std::string> names;
  for (const auto& p : proposer.propose(ctx)) names.insert(p.design);
  return names;
}

TEST(LibraryProposer, DesignsTheChipCannotRunAreSkippedOnceLoggedAndAcceptedWhenItCan) {
  for (const char* kernel : {"qkv", "attn_out"}) {
    const auto& designs = targets::designs_for(library_target(), *builtin_kernel(kernel));
    const auto needs_bw =
        std::find_if(designs.begin(), designs.end(), [](const targets::Design& d) {
          return std::find(d.requires_isa.begin(), d.requires_isa.end(), "vec512") !=
                 d.requires_isa.end();
        });
    ASSERT_NE(needs_bw, designs.end()) << kernel << " has no design that requires vec512";

    // A chip without vec512 (a forced fact): the design is skipped and said so once.
    std::vector<std::string> lines;
    LibraryProposer without(
        library_target(),
        [](const std::string& name) -> std::optional<double> {
          return name == "isa.vec512" ? 0.0 : 1.0;
        },
        [&lines](const std::string& line) { lines.push_back(line); });
    EXPECT_EQ(proposed_designs(without, kernel).count(needs_bw->name), 0u) << needs_bw->name;
    EXPECT_EQ(proposed_designs(without, kernel).count(needs_bw->name), 0u) << needs_bw->name;
    const auto about = std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.find(needs_bw->name) != std::string::npos;
    });
    EXPECT_EQ(about, 1) << "skipping is said once, not once per round";
    ASSERT_FALSE(lines.empty());
    EXPECT_NE(lines.front().find("isa.vec512 = 0"), std::string::npos) << lines.front();
    EXPECT_NE(without.unmet_requirements(*needs_bw).find("vec512"), std::string::npos);
    // Designs without a `requires:` line are still proposed.
    const auto offered = proposed_designs(without, kernel);
    for (const auto& d : designs) {
      if (d.requires_isa.empty()) {
        EXPECT_EQ(offered.count(d.name), 1u) << d.name;
      }
    }

    // The same library on a chip that has it (forced to 1): the design is proposed.
    LibraryProposer with(library_target(), has_everything);
    EXPECT_TRUE(with.unmet_requirements(*needs_bw).empty());
    EXPECT_EQ(proposed_designs(with, kernel).count(needs_bw->name), 1u) << needs_bw->name;

    // Facts never measured: skipped, and the line says why.
    std::vector<std::string> unknown_lines;
    LibraryProposer unknown(
        library_target(), [](const std::string&) -> std::optional<double> { return std::nullopt; },
        [&unknown_lines](const std::string& line) { unknown_lines.push_back(line); });
    EXPECT_EQ(proposed_designs(unknown, kernel).count(needs_bw->name), 0u);
    ASSERT_FALSE(unknown_lines.empty());
    EXPECT_NE(unknown_lines.front().find("not measured"), std::string::npos)
        << unknown_lines.front();

    // With the gate off (optimize --without isa-gating) the facts are not asked: it is proposed.
    LibraryProposer ungated(library_target(), [](const std::string&) -> std::optional<double> {
      ADD_FAILURE() << "a fact asked with the gate off";
      return 0.0;
    });
    ungated.gate_on_isa_facts(false);
    EXPECT_TRUE(ungated.unmet_requirements(*needs_bw).empty());
    EXPECT_EQ(proposed_designs(ungated, kernel).count(needs_bw->name), 1u) << needs_bw->name;
  }
}

}  // namespace
}  // namespace headway::loop

namespace headway::loop {
namespace {

TEST(UntriedLibraryCandidates, CountsWhatTheLibraryWouldStillProposeAndDropsWhatWasTried) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  const auto target = targets::make_test_target();
  const KernelContract& kernel = *builtin_kernel("qkv");
  auto tree = trees::DesignTree::create(ws, {"qkv", target->name(), {}, {}, ""},
                                        target->baseline_source(kernel))
                  .value();
  const int before = untried_library_candidates(*target, {}, *builtin_kernel(tree.kernel()), tree);
  ASSERT_GT(before, 0);

  // The same count the proposer gives when asked for everything.
  std::set<std::string> none;
  LibraryProposer proposer(*target);
  ProposalContext ctx;
  ctx.kernel = &kernel;
  ctx.head_source = target->baseline_source(kernel);
  ctx.head_design = "baseline";
  ctx.already_tried = [](const std::string&) { return false; };
  ctx.max_proposals = 1000;
  const auto all = proposer.propose(ctx);
  EXPECT_EQ(static_cast<int>(all.size()), before);

  trees::NewNode n;
  n.design = all.front().design;
  n.source = all.front().source;
  n.proposer = "library";
  ASSERT_TRUE(tree.add(n).ok());
  EXPECT_EQ(untried_library_candidates(*target, {}, *builtin_kernel(tree.kernel()), tree),
            before - 1);
}

}  // namespace
}  // namespace headway::loop
