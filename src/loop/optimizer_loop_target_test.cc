// The optimize loop in-process on the tests' target, made by name through the registry and
// used through the Target interface (its candidates' lines are its docs): every stage (register,
// screen, race, acceptance test, rules learned from failures, resume) with no compiler and no
// timing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include "knowledge/kernel_timings.h"
#include "knowledge/rule_lint.h"
#include "knowledge/rules.h"
#include "knowledge/workspace_target.h"
#include "loop/library_proposer.h"
#include "loop/optimizer.h"
#include "loop/run_record.h"
#include "loop/screen_calibration.h"
#include "loop/scripted_run_test_support.h"
#include "statistics/betting_rule.h"
#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"
#include "trees/decision_log.h"
#include "trees/design_tree.h"
#include "trees/race_log.h"

namespace headway::loop {
namespace {

using trees::NodeStatus;

struct LoopTargetRun {
  store::TestTempDir dir;
  store::Workspace ws = store::Workspace::create(dir.path()).value();
  std::unique_ptr<targets::Target> target = targets::make_test_target();
  std::vector<Progress> progress;

  OptimizeSummary run(std::vector<std::string> kernels, double done_within_floor = 1.10,
                      int concurrent_rounds = 1) {
    knowledge::set_workspace_target_name(ws, target->name());
    OptimizeOptions options;
    options.kernels = std::move(kernels);
    options.concurrent_rounds = concurrent_rounds;
    options.done_within_floor = done_within_floor;
    options.target = target.get();
    options.lint = knowledge::rule_lint_following_workspace(ws);
    options.on_screen_failure = [this](const std::string& kernel, int64_t) {
      ASSERT_TRUE(knowledge::mine_rules_from_tree(ws, kernel).ok());
    };
    LibraryProposer proposer(*target);
    return optimize(ws, proposer, options, [this](const Progress& p) { progress.push_back(p); });
  }
};

TEST(OptimizeOnLoopTarget, RunsEveryStageToTheEndOfTheLibrary) {
  LoopTargetRun r;
  const OptimizeSummary summary = r.run({"attn_out"});
  EXPECT_FALSE(summary.budget_spent) << "the test library is small: it runs out first";
  EXPECT_GT(summary.proposed, 0);
  EXPECT_GT(summary.tests, 0);
  EXPECT_GE(summary.accepted, 1);
  EXPECT_EQ(summary.most_rounds_at_once, 1) << "one round at a time, on the loop's thread";

  auto tree = trees::DesignTree::open(r.ws, "attn_out").value();
  EXPECT_EQ(tree.record().target, r.target->name());
  // The floor is the test target's memory floor, the baseline 6 times above it.
  ASSERT_TRUE(tree.record().floor_ms && tree.record().baseline_ms);
  EXPECT_NEAR(*tree.record().baseline_ms / *tree.record().floor_ms, 6.0, 0.6);

  const auto counts = tree.count_by_status();
  EXPECT_GE(counts.at(NodeStatus::kBuildFailed) + counts.at(NodeStatus::kLintRejected), 2)
      << "the 'wide' design never builds";
  EXPECT_GE(counts.at(NodeStatus::kIncorrect), 1) << "threaded with P_CHUNK=32 is wrong";
  EXPECT_EQ(counts.at(NodeStatus::kProposed), 0);
  // The learned rule keeps the second 'wide' variant from being built: it is lint-rejected... or,
  // without a detector for this diagnostic, built and rejected again with the same signature.
  const auto rules = knowledge::list_rules(r.ws);
  ASSERT_FALSE(rules.empty());
  EXPECT_EQ(rules.front().signature, "error: '<id>' was not declared in this scope");

  // Every head was accepted and is faster than the one before it; the final head is a
  // threaded design (the fastest of the test library).
  const auto history = tree.head_history();
  ASSERT_GE(history.size(), 2u);
  for (size_t i = 1; i < history.size(); ++i) {
    EXPECT_EQ(tree.node(history[i].node_id)->status, NodeStatus::kAccepted);
  }
  EXPECT_EQ(tree.node(tree.head().node_id)->design, "threaded");
  trees::DecisionLog log(tree);
  int replayed = 0;
  for (const auto& t : log.tests()) {
    ASSERT_TRUE(t.outcome) << "test " << t.id << " unfinished";
    const auto readings = log.readings(t.id);
    EXPECT_EQ(readings.size(), static_cast<size_t>(2 * t.pairs));
    // The settings kept with the candidate replay its decision from the readings: the loop's
    // warm-up s0 is a prior the pairs updated, and that is kept too.
    const nlohmann::json evidence = tree.node(t.candidate_node)->evidence;
    if (evidence.value("test_id", int64_t{-1}) != t.id) continue;  // it was tested again later
    const auto config = statistics::betting_config_from_json(evidence["rule_config"]);
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_TRUE(config.value().adapt_s0);
    std::vector<double> d(static_cast<size_t>(t.pairs), 0.0);
    for (const auto& reading : readings)
      d.at(static_cast<size_t>(reading.pair_index)) +=
          (reading.node_id == t.candidate_node ? 1 : -1) * std::log(reading.seconds);
    const auto decision = statistics::decide_recorded(config.value(), d);
    ASSERT_TRUE(decision.ok()) << decision.error().message;
    EXPECT_EQ(decision.value().outcome, t.outcome) << "test " << t.id;
    ++replayed;
  }
  EXPECT_GT(replayed, 0);
  std::set<std::string> stages;
  for (const auto& p : r.progress) stages.insert(p.stage);
  EXPECT_TRUE(stages.count("baseline timed"));
  EXPECT_TRUE(stages.count("propose"));
  EXPECT_TRUE(stages.count("screen"));
  EXPECT_TRUE(stages.count("acceptance test"));
}

// Rounds go to the kernel whose head is the most milliseconds above its floor: with every
// baseline of the test target at 6x its floor, the one that moves the most bytes (ffn) comes first,
// whatever the order the kernels are given in.
TEST(OptimizeOnLoopTarget, TheFirstRoundGoesWhereTheMostTimeCanBeSaved) {
  LoopTargetRun r;
  r.run({"qkv", "attn_out", "ffn"});
  const auto first_screen = std::find_if(r.progress.begin(), r.progress.end(),
                                         [](const Progress& p) { return p.stage == "screen"; });
  ASSERT_NE(first_screen, r.progress.end());
  EXPECT_EQ(first_screen->kernel, "ffn");
}

// Every progress carries the budget left and the heads of the kernels registered so far, and the
// workspace's run record follows it while the loop runs (and is gone when it ends).
TEST(OptimizeOnLoopTarget, ProgressCarriesTheBudgetLeftAndEveryHeadAndIsRecorded) {
  LoopTargetRun r;
  std::vector<std::optional<RunRecord>> recorded;
  knowledge::set_workspace_target_name(r.ws, r.target->name());
  OptimizeOptions options;
  options.kernels = {"qkv", "attn_out"};
  options.budget = std::chrono::seconds(600);
  options.target = r.target.get();
  LibraryProposer proposer(*r.target);
  optimize(r.ws, proposer, options, [&](const Progress& p) {
    r.progress.push_back(p);
    recorded.push_back(running_optimize(r.ws));
  });
  EXPECT_FALSE(r.ws.meta(kRunRecordKey));
  ASSERT_GT(r.progress.size(), 3u);
  double last_left = 600;
  for (size_t i = 0; i < r.progress.size(); ++i) {
    const Progress& p = r.progress[i];
    EXPECT_LE(p.budget_left_s, last_left);
    EXPECT_NEAR(p.budget_left_s, 600 - p.elapsed_s, 1e-6);
    last_left = p.budget_left_s;
    ASSERT_TRUE(recorded[i]) << p.stage;
    EXPECT_EQ(recorded[i]->pid, getpid());
    EXPECT_EQ(recorded[i]->progress.stage, p.stage);
    EXPECT_EQ(recorded[i]->progress.kernel, p.kernel);
    EXPECT_EQ(recorded[i]->progress.budget_left_s, p.budget_left_s);
  }
  // The first progress is qkv's baseline, before attn_out is registered.
  EXPECT_EQ(r.progress.front().stage, "baseline timed");
  ASSERT_EQ(r.progress.front().kernels.size(), 1u);
  EXPECT_EQ(r.progress.front().kernels[0].name, "qkv");
  const Progress& last = r.progress.back();
  ASSERT_EQ(last.kernels.size(), 2u);
  EXPECT_EQ(last.kernels[0].name, "qkv");
  EXPECT_EQ(last.kernels[1].name, "attn_out");
  for (const auto& k : last.kernels) {
    auto tree = trees::DesignTree::open(r.ws, k.name).value();
    EXPECT_EQ(k.floor_ms, *tree.record().floor_ms);
    EXPECT_GT(k.head_ms, 0);
    EXPECT_LT(k.head_ms, *tree.record().baseline_ms) << k.name << " improved";
    if (k.name == last.kernel) {
      EXPECT_EQ(k.head_ms, last.head_ms);
    }
  }
}

// A kernel whose head is within done_within_floor of its floor gets no proposals.
TEST(OptimizeOnLoopTarget, AKernelNearItsFloorIsLeftAlone) {
  LoopTargetRun r;
  const OptimizeSummary summary = r.run({"qkv"}, 7.0);  // the baseline is 6x its floor
  EXPECT_EQ(summary.proposed, 0);
  EXPECT_EQ(summary.near_floor, std::vector<std::string>{"qkv"});
  EXPECT_FALSE(summary.budget_spent);
}

// A floor stored from a slower moment (here ten times the target's) is measured again before its
// kernel is left alone: lowered to the target's, it leaves the kernel 6x above it, and rounds go.
TEST(OptimizeOnLoopTarget, AKernelNearAFloorFromASlowerMomentIsJudgedByAFloorMeasuredNow) {
  LoopTargetRun r;
  r.run({"qkv"}, 7.0);  // registers qkv, 6x its floor, and leaves it alone at 7x
  auto tree = trees::DesignTree::open(r.ws, "qkv").value();
  const double floor = *tree.record().floor_ms;
  tree.set_kernel_times(floor * 10, tree.record().baseline_ms);
  r.progress.clear();
  const OptimizeSummary summary = r.run({"qkv"});
  EXPECT_GT(summary.proposed, 0);
  EXPECT_DOUBLE_EQ(*trees::DesignTree::open(r.ws, "qkv").value().record().floor_ms, floor);
  const auto said = std::find_if(r.progress.begin(), r.progress.end(),
                                 [](const Progress& p) { return p.stage == "floors"; });
  ASSERT_NE(said, r.progress.end());
  EXPECT_NE(said->note.find("lowered: qkv"), std::string::npos) << said->note;
}

// A floor measured again never raises a stored one: a lower stored floor is the floor no head
// beats, read in a faster moment.
TEST(OptimizeOnLoopTarget, AFloorMeasuredAgainNeverRaisesTheStoredOne) {
  LoopTargetRun r;
  r.run({"qkv"}, 7.0);
  auto tree = trees::DesignTree::open(r.ws, "qkv").value();
  const double low = *tree.record().floor_ms / 2;
  tree.set_kernel_times(low, tree.record().baseline_ms);
  r.progress.clear();
  const OptimizeSummary summary = r.run({"qkv"}, 13.0);  // 12x the stored floor: near
  EXPECT_EQ(summary.proposed, 0);
  EXPECT_EQ(summary.near_floor, std::vector<std::string>{"qkv"});
  EXPECT_DOUBLE_EQ(*trees::DesignTree::open(r.ws, "qkv").value().record().floor_ms, low);
  const auto said = std::find_if(r.progress.begin(), r.progress.end(),
                                 [](const Progress& p) { return p.stage == "floors"; });
  ASSERT_NE(said, r.progress.end());
  EXPECT_EQ(
      said->note.rfind("measured again, none lower than stored; heads timed around it: qkv 6.", 0),
      0u)
      << said->note;
}

// The head's own figure may come from a faster moment than any floor (here a timing that puts it
// at 1.05x of its floor): before its kernel is left alone it is timed again inside a bracket of
// floor facts measured now, and at 6x of those, rounds go to it.
TEST(OptimizeOnLoopTarget, AHeadNearItsFloorIsTimedAgainBesideAFloorMeasuredNow) {
  LoopTargetRun r;
  r.run({"qkv"}, 7.0);  // registers qkv; its head, the baseline, is 6x its floor
  auto tree = trees::DesignTree::open(r.ws, "qkv").value();
  const double floor = *tree.record().floor_ms;
  knowledge::KernelTiming fast;
  fast.kernel = "qkv";
  fast.toolchain = r.target->identity().id;
  fast.node_id = tree.head().node_id;
  fast.role = "head";
  fast.median_ms = floor * 1.05;
  fast.readings = 1;
  fast.method = "a figure from a faster moment";
  knowledge::record_kernel_timing(r.ws, fast);
  ASSERT_DOUBLE_EQ(knowledge::current_head_ms(r.ws, tree, fast.toolchain).value(), floor * 1.05);
  r.progress.clear();
  const OptimizeSummary summary = r.run({"qkv"});
  EXPECT_GT(summary.proposed, 0) << "judged by its 1.05x, it would be left alone";
  EXPECT_TRUE(summary.near_floor.empty());
  const auto said = std::find_if(r.progress.begin(), r.progress.end(),
                                 [](const Progress& p) { return p.stage == "floors"; });
  ASSERT_NE(said, r.progress.end());
  EXPECT_NE(said->note.find("heads timed around it: qkv 6."), std::string::npos) << said->note;
}

TEST(OptimizeOnLoopTarget, AResumedRunKeepsEverythingAndTriesNothingTwice) {
  LoopTargetRun r;
  r.run({"qkv"});
  auto before = trees::DesignTree::open(r.ws, "qkv").value();
  const size_t nodes = before.nodes().size();
  const int64_t head = before.head().node_id;
  const OptimizeSummary again = r.run({"qkv"});
  EXPECT_EQ(again.proposed, 0);
  EXPECT_EQ(again.tests, 0);
  auto after = trees::DesignTree::open(r.ws, "qkv").value();
  EXPECT_EQ(after.nodes().size(), nodes);
  EXPECT_EQ(after.head().node_id, head);
}

TEST(OptimizeOnLoopTarget, IsDeterministic) {
  LoopTargetRun a, b;
  a.run({"ffn"});
  b.run({"ffn"});
  auto ta = trees::DesignTree::open(a.ws, "ffn").value();
  auto tb = trees::DesignTree::open(b.ws, "ffn").value();
  ASSERT_EQ(ta.nodes().size(), tb.nodes().size());
  for (size_t i = 0; i < ta.nodes().size(); ++i) {
    EXPECT_EQ(ta.nodes()[i].status, tb.nodes()[i].status) << i;
    EXPECT_EQ(ta.nodes()[i].source_hash, tb.nodes()[i].source_hash) << i;
  }
  EXPECT_EQ(ta.head().node_id, tb.head().node_id);
}

// A run's seed changes every reading and pair order the loop draws; the same seed again gives the
// same run.
TEST(OptimizeOnLoopTarget, ARunsSeedChangesItsReadingsAndTheSameSeedRepeatsThem) {
  const auto readings = [](uint64_t seed) {
    LoopTargetRun r;
    knowledge::set_workspace_target_name(r.ws, r.target->name());
    OptimizeOptions options;
    options.kernels = {"ffn"};
    options.target = r.target.get();
    options.seed = seed;
    LibraryProposer proposer(*r.target);
    optimize(r.ws, proposer, options, [](const Progress&) {});
    std::vector<double> out;
    auto rows = r.ws.db().prepare(
        "SELECT seconds FROM readings WHERE test_id IS NOT NULL OR race_id IS NOT NULL ORDER BY "
        "id");
    while (rows.step()) out.push_back(rows.real(0));
    return out;
  };
  const auto a = readings(7);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(readings(7), a);
  EXPECT_NE(readings(8), a);
  EXPECT_NE(readings(0), a);
}

// Every race of a run is in the workspace: finished, its readings stored under its id, one per
// reading it spent, and each raced node's median as the report reads it.
TEST(OptimizeOnLoopTarget, EveryRaceIsStoredWithItsReadings) {
  LoopTargetRun r;
  r.run({"attn_out"});
  auto tree = trees::DesignTree::open(r.ws, "attn_out").value();
  trees::RaceLog log(tree);
  const auto races = log.races();
  ASSERT_FALSE(races.empty()) << "the test library's rounds race several survivors";
  for (const auto& race : races) {
    ASSERT_TRUE(race.finished_at) << "race " << race.id;
    EXPECT_EQ(static_cast<int64_t>(log.readings(race.id).size()), *race.spent);
    EXPECT_GE(race.ranking.size(), 2u);
  }
  EXPECT_EQ(r.ws.db().query_int64("SELECT count(*) FROM readings WHERE race_id IS NOT NULL"),
            r.ws.db().query_int64("SELECT sum(spent) FROM races"));
  // A node raced out names its race.
  int raced_out = 0;
  for (const auto& n : tree.nodes()) {
    if (n.status != NodeStatus::kRacedOut || !n.evidence.contains("race_id")) continue;
    EXPECT_TRUE(log.race(n.evidence["race_id"].get<int64_t>())) << n.id;
    ++raced_out;
  }
  EXPECT_GT(raced_out, 0);
}

// A candidate that reads fastest but cheats is disqualified in its race; the honest runner-up
// goes on to the acceptance test and becomes the head.
TEST(OptimizeOnLoopTarget, ACheatIsDisqualifiedInTheRaceAndTheHonestRunnerUpTested) {
  LoopTargetRun r;
  std::vector<Progress> progress;
  const auto summary =
      run_scripted(r.ws, *r.target, {"time: 0.1\ncheats: yes\n", "time: 0.5\n"}, &progress);
  EXPECT_EQ(summary.cheated, 1);
  EXPECT_EQ(summary.tests, 1);
  EXPECT_EQ(summary.accepted, 1);
  auto tree = trees::DesignTree::open(r.ws, "attn_out").value();
  const auto head = tree.node(tree.head().node_id).value();
  EXPECT_EQ(tree.source(head.id).value(), "time: 0.5\n");
  const auto counts = tree.count_by_status();
  EXPECT_EQ(counts.at(NodeStatus::kCheated), 1);
  EXPECT_TRUE(std::any_of(progress.begin(), progress.end(),
                          [](const Progress& p) { return p.stage.rfind("cheated: ", 0) == 0; }));
}

// The static-cost screen keeps a candidate predicted twice as slow out of the race; switched
// off, the prediction is still recorded but the candidate races, wins and becomes the head.
TEST(OptimizeOnLoopTarget, WithoutTheStaticCostScreenAMispredictedCandidateRaces) {
  const std::vector<std::string> sources{"time: 0.5\nstatic-cost: 2\n",
                                         "time: 0.8\nstatic-cost: 0.9\n"};
  const auto head_source = [](store::Workspace& ws) {
    auto tree = trees::DesignTree::open(ws, "attn_out").value();
    return tree.source(tree.head().node_id).value();
  };
  LoopTargetRun with;
  const auto screened = run_scripted(with.ws, *with.target, sources, nullptr);
  EXPECT_EQ(screened.cost_rejected, 1);
  EXPECT_EQ(head_source(with.ws), sources[1]);
  LoopTargetRun without;
  const auto raced = run_scripted(without.ws, *without.target, sources, nullptr, 1.10,
                                  [](OptimizeOptions& o) { o.static_cost_screen = false; });
  EXPECT_EQ(raced.cost_rejected, 0);
  EXPECT_EQ(raced.accepted, 1);
  EXPECT_EQ(head_source(without.ws), sources[0]);
  EXPECT_EQ(summarize_screen_calibration(without.ws, "attn_out").candidates, 2)
      << "both predictions met the race";
}

// Without racing every survivor takes an acceptance test, each against the head of the moment.
TEST(OptimizeOnLoopTarget, WithoutRacingEverySurvivorIsTestedAgainstTheHeadOfTheMoment) {
  LoopTargetRun r;
  std::vector<Progress> progress;
  const auto summary = run_scripted(r.ws, *r.target, {"time: 0.8\n", "time: 0.5\n", "time: 0.9\n"},
                                    &progress, 1.10, [](OptimizeOptions& o) { o.racing = false; });
  EXPECT_EQ(summary.tests, 3);
  EXPECT_EQ(summary.accepted, 2) << "0.8 over the baseline, then 0.5 over 0.8; 0.9 is slower";
  auto tree = trees::DesignTree::open(r.ws, "attn_out").value();
  EXPECT_TRUE(trees::RaceLog(tree).races().empty());
  EXPECT_EQ(tree.source(tree.head().node_id).value(), "time: 0.5\n");
  const auto tests = trees::DecisionLog(tree).tests();
  ASSERT_EQ(tests.size(), 3u);
  EXPECT_EQ(tests[0].head_node, tree.root().id);
  EXPECT_EQ(tests[1].head_node, tests[0].candidate_node) << "the first one's win is the head";
  EXPECT_EQ(tests[2].head_node, tests[1].candidate_node);
  EXPECT_EQ(tests[2].outcome, statistics::Outcome::kSlower);
  EXPECT_FALSE(std::any_of(progress.begin(), progress.end(),
                           [](const Progress& p) { return p.stage.rfind("race of", 0) == 0; }));
}

// Another acceptance rule decides, and the decision log says which and with what settings.
TEST(OptimizeOnLoopTarget, AnotherAcceptanceRuleDecidesAndIsRecorded) {
  LoopTargetRun r;
  const auto summary = run_scripted(
      r.ws, *r.target, {"time: 0.8\n"}, nullptr, 1.10,
      [](OptimizeOptions& o) { o.acceptance.rule = statistics::RuleKind::kLowestMean; });
  EXPECT_EQ(summary.accepted, 1);
  auto tree = trees::DesignTree::open(r.ws, "attn_out").value();
  const auto tests = trees::DecisionLog(tree).tests();
  ASSERT_EQ(tests.size(), 1u);
  EXPECT_EQ(tests[0].rule, "lowest-mean");
  EXPECT_EQ(tests[0].pairs, 7);
  const auto node = tree.node(tests[0].candidate_node).value();
  EXPECT_EQ(node.evidence["rule_config"]["rule"], "lowest-mean");
  EXPECT_FALSE(node.evidence["rule_config"].contains("s0")) << "no warm-up for a prior";
}

// Alone in its round, a cheat goes straight to the acceptance test, where verification finds it.
TEST(OptimizeOnLoopTarget, ACheatAloneIsDisqualifiedByItsAcceptanceTest) {
  LoopTargetRun r;
  const auto summary = run_scripted(r.ws, *r.target, {"time: 0.1\ncheats: yes\n"}, nullptr);
  EXPECT_EQ(summary.cheated, 1);
  EXPECT_EQ(summary.tests, 0) << "a disqualified test has no outcome";
  auto tree = trees::DesignTree::open(r.ws, "attn_out").value();
  EXPECT_EQ(tree.head().node_id, tree.root().id);
  EXPECT_TRUE(trees::DecisionLog(tree).tests().empty());
}

// A head that got past its own test wrong is found by a later test against it: it becomes
// cheated, the head before it is back, and the run goes on.
TEST(OptimizeOnLoopTarget, AHeadFoundCheatingIsRevokedAndTheRunGoesOn) {
  LoopTargetRun r;
  run_scripted(r.ws, *r.target, {}, nullptr);  // registers the kernel
  auto tree = trees::DesignTree::open(r.ws, "attn_out").value();
  trees::NewNode cheat;
  cheat.kind = trees::NodeKind::kDesign;
  cheat.design = "cheat";
  cheat.params = nlohmann::json::object();
  cheat.source = "time: 0.9\ncheats: yes\n";  // far from the floor: the run works on it
  cheat.proposer = "test";
  const auto added = tree.add(cheat);
  ASSERT_TRUE(added.ok()) << added.error().message;
  ASSERT_TRUE(
      tree.set_head(added->node.id, std::nullopt, std::nullopt, "as if it had passed").ok());

  std::vector<Progress> progress;
  // A cheat's readings may come near the floor: the run must not leave the kernel alone for it.
  const auto summary = run_scripted(r.ws, *r.target, {"time: 0.5\n"}, &progress, 0.0);
  EXPECT_EQ(tree.node(added->node.id)->status, NodeStatus::kCheated);
  EXPECT_NE(tree.head().node_id, added->node.id);
  EXPECT_GE(summary.cheated, 1);
  EXPECT_TRUE(std::any_of(progress.begin(), progress.end(), [](const Progress& p) {
    return p.stage.rfind("cheated as head: ", 0) == 0;
  }));
}

// A baseline that does not build, or is found wrong under timing when the kernel is registered or
// later in an acceptance test (where it has no earlier head to fall back to), stops its kernel,
// which says why, and the run goes on with the other kernels, one round at a time or several at
// once.
TEST(OptimizeOnLoopTarget, ABrokenOrWrongBaselineStopsOnlyItsKernel) {
  struct Case {
    std::string option;
    std::vector<std::string> why;
    bool registered;
  };
  for (const Case& c :
       {Case{"baseline-cheats", {"its baseline ", "output is wrong in a timed call"}, false},
        Case{"baseline-broken",
             {"its baseline does not build: ", "'broken_baseline' was not declared in this scope"},
             false},
        Case{"baseline-cheats-paired",
             {"its head failed under timing", "no earlier head to go back to"},
             true}}) {
    for (const int at_once : {1, 2}) {
      SCOPED_TRACE(c.option + " " + std::to_string(at_once));
      LoopTargetRun r;
      r.target = targets::make_test_target("test-1:" + c.option + "=attn_out");
      const auto summary = r.run({"attn_out", "qkv"}, 1.10, at_once);
      ASSERT_EQ(summary.kernels_stopped.size(), 1u);
      const std::string why = summary.kernels_stopped.at("attn_out");
      for (const auto& part : c.why) EXPECT_NE(why.find(part), std::string::npos) << why;
      auto attn_out = trees::DesignTree::open(r.ws, "attn_out");
      ASSERT_EQ(attn_out.ok(), c.registered);
      if (c.registered) {
        EXPECT_EQ(attn_out->head().node_id, attn_out->root().id);
        EXPECT_EQ(attn_out->root().status, NodeStatus::kAccepted) << "nothing written of it";
      }
      auto qkv = trees::DesignTree::open(r.ws, "qkv").value();
      EXPECT_NE(qkv.head().node_id, qkv.root().id) << "qkv went on and improved";
      EXPECT_GE(summary.accepted, 1);
      EXPECT_EQ(std::count_if(r.progress.begin(), r.progress.end(),
                              [](const Progress& p) {
                                return p.stage == "kernel stopped" &&
                                       p.note.rfind("attn_out: ", 0) == 0;
                              }),
                1);
    }
  }
}

// A device that stops ends the run: the summary says why, and nothing it interrupted is kept.
TEST(OptimizeOnLoopTarget, ADeviceThatStopsEndsTheRunAndLeavesNothingHalfDone) {
  // Registering the baseline, then part of the first race.
  const auto target_made = targets::make_test_target("test-1:stop-after=31");
  targets::Target& target = *target_made;
  LoopTargetRun r;
  std::vector<Progress> progress;
  const auto summary = run_scripted(
      r.ws, target, {"time: 0.5\n", "time: 0.6\n", "time: 0.7\n", "time: 0.8\n"}, &progress);
  EXPECT_NE(summary.device_stopped.find("budget of 31 readings"), std::string::npos)
      << summary.device_stopped;
  EXPECT_FALSE(summary.budget_spent);
  EXPECT_EQ(summary.tests, 0);
  EXPECT_EQ(progress.back().stage, "device stopped");
  auto tree = trees::DesignTree::open(r.ws, "attn_out").value();
  EXPECT_EQ(tree.count_by_status().at(NodeStatus::kProposed), 4) << "all can be raced again";
  // It served its 31 readings and no more: a new session stops at its first reading.
  const KernelContract& attn_out = *builtin_kernel("attn_out");
  const auto baseline = target.build(target.baseline_source(attn_out), r.dir.path());
  ASSERT_TRUE(baseline.built()) << baseline.diagnostics;
  auto session = target.start_session(attn_out, {baseline.artifact}, 1);
  ASSERT_TRUE(session.ok()) << session.error().message;
  EXPECT_THROW((void)session.value()->reading(0), targets::DeviceStopped);
  const auto interrupted = trees::RaceLog(tree).races();
  ASSERT_EQ(interrupted.size(), 1u);
  EXPECT_FALSE(interrupted[0].finished_at);
  EXPECT_FALSE(trees::RaceLog(tree).readings(interrupted[0].id).empty());
  // The next run discards the unfinished race and its readings before it decides anything (the
  // race it begins then stops at its first reading).
  const auto again = run_scripted(r.ws, target, {}, nullptr);
  EXPECT_FALSE(again.device_stopped.empty());
  EXPECT_EQ(r.ws.db().query_int64("SELECT count(*) FROM readings WHERE race_id IS NOT NULL"), 0);
}

TEST(OptimizeOnLoopTarget, NoTargetIsAnError) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  auto target = targets::make_test_target();
  LibraryProposer proposer(*target);
  OptimizeOptions options;
  EXPECT_THROW(optimize(ws, proposer, options, nullptr), std::runtime_error);
}

TEST(OptimizeOnLoopTarget, AMissingToolchainIsAnError) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  auto target = targets::make_test_target("missing-1");
  LibraryProposer proposer(*target);
  OptimizeOptions options;
  options.target = target.get();
  EXPECT_THROW(optimize(ws, proposer, options, nullptr), std::runtime_error);
}

}  // namespace
}  // namespace headway::loop
