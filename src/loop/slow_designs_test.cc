#include "loop/slow_designs.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"

namespace headway::loop {
namespace {

using trees::NodeStatus;

class SlowDesigns : public ::testing::Test {
 protected:
  SlowDesigns()
      : ws_(store::Workspace::create(dir_.path()).value()),
        target_(targets::make_test_target()),
        tree_(trees::DesignTree::create(ws_, {"qkv", target_->name(), {}, {}, ""},
                                        target_->baseline_source(*builtin_kernel("qkv")))
                  .value()) {}

  // A node of `design` decided with `status` and `evidence`; returns its id.
  int64_t decided(const std::string& design, NodeStatus status, nlohmann::json evidence) {
    trees::NewNode n;
    n.design = design;
    n.source = fmt::format("// {} {}\n", design, ++made_);
    n.proposer = "library";
    const int64_t id = tree_.add(n).value().node.id;
    EXPECT_TRUE(tree_.set_status(id, status, "decided", evidence).ok());
    return id;
  }

  store::TestTempDir dir_;
  store::Workspace ws_;
  std::unique_ptr<targets::Target> target_;
  trees::DesignTree tree_;
  int made_ = 0;
};

// A race's loser, read at `ms` against its winner's `winner_ms`.
nlohmann::json raced(double ms, double winner_ms) {
  return {{"race_median_ms", ms}, {"winner_median_ms", winner_ms}, {"race_id", 1}};
}

TEST_F(SlowDesigns, ADesignIsSlowOnlyWhenItsBestTimedNodeReadTwiceWhatItWasMeasuredAgainst) {
  const int64_t raced_id = decided("raced_slow", NodeStatus::kRacedOut, raced(30.0, 10.0));
  decided("mixed", NodeStatus::kRacedOut, raced(30.0, 10.0));
  decided("mixed", NodeStatus::kRacedOut, raced(15.0, 10.0));  // 1.5x: not slow
  const int64_t tested = decided("tested_slow", NodeStatus::kSlower, {{"effect_pct", -250.0}});
  decided("near", NodeStatus::kRacedOut, raced(40.0, 10.0));
  decided("near", NodeStatus::kInconclusive, {{"effect_pct", -1.0}});  // judged near a head
  decided("broken", NodeStatus::kBuildFailed, nullptr);                // never timed
  decided("head_design", NodeStatus::kRacedOut, raced(50.0, 10.0));
  decided("at_two", NodeStatus::kRacedOut, raced(20.0, 10.0));  // exactly 2x: slow
  // A race in a slow spell: 2x the head's time of another hour, 1.2x its own winner's.
  decided("slow_spell", NodeStatus::kRacedOut, raced(24.0, 20.0));
  // Recorded before races kept their winner's median: not counted.
  decided("unknown_winner", NodeStatus::kRacedOut, {{"race_median_ms", 90.0}, {"race_id", 1}});

  const auto slow = slow_designs(tree_.nodes(), "head_design");
  ASSERT_EQ(slow.size(), 3u);
  ASSERT_TRUE(slow.count("raced_slow"));
  EXPECT_EQ(slow.at("raced_slow"),
            fmt::format("its best node, {}, read 3.0x the fastest (a race's median, 30.000 ms "
                        "against its winner's 10.000 ms)",
                        raced_id));
  ASSERT_TRUE(slow.count("tested_slow"));
  EXPECT_EQ(slow.at("tested_slow"),
            fmt::format("its best node, {}, read 3.5x the fastest (an acceptance test's SLOWER, "
                        "effect -250.0%)",
                        tested));
  EXPECT_TRUE(slow.count("at_two"));
  EXPECT_FALSE(slow.count("mixed")) << "a variant read 1.5x: the design is not hopeless here";
  EXPECT_FALSE(slow.count("near"));
  EXPECT_FALSE(slow.count("broken"));
  EXPECT_FALSE(slow.count("head_design")) << "the head's own design is never kept out";
  EXPECT_FALSE(slow.count("slow_spell")) << "judged against its own race, not another hour";
  EXPECT_FALSE(slow.count("unknown_winner"));
  EXPECT_TRUE(slow_designs(tree_.nodes(), "raced_slow").count("head_design"))
      << "the head's design is judged once another design is the head";
}

}  // namespace
}  // namespace headway::loop
