// Per-toolchain kernel timings in a real workspace, remeasured through the Target interface.
#include "knowledge/kernel_timings.h"

#include <gtest/gtest.h>

#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"

namespace headway::knowledge {
namespace {

// Adds a node of `design` with `source` to the tree and makes it head at `ms`; its id.
int64_t add_head(trees::DesignTree& tree, const std::string& design, const std::string& source,
                 double ms) {
  trees::NewNode n;
  n.design = design;
  n.source = source;
  const int64_t id = tree.add(n).value().node.id;
  EXPECT_TRUE(tree.set_head(id, ms, std::nullopt, "test").ok());
  return id;
}

// A timing with the fields these tests set; the rest as a default KernelTiming has them.
KernelTiming kernel_timing_row(std::string kernel, std::string toolchain, int64_t node,
                               std::string role, double median_ms, std::optional<double> cv,
                               int readings, std::string method = "",
                               std::vector<double> readings_ms = {}) {
  KernelTiming t;
  t.kernel = std::move(kernel);
  t.toolchain = std::move(toolchain);
  t.node_id = node;
  t.role = std::move(role);
  t.median_ms = median_ms;
  t.cv = cv;
  t.readings = readings;
  t.method = std::move(method);
  t.readings_ms = std::move(readings_ms);
  return t;
}

TEST(KernelTimings, RemeasureAppendsPerToolchainAndTracksTheCurrentHead) {
  store::TestTempDir dir, cache;
  auto ws = store::Workspace::create(dir.path() / "w").value();
  const KernelContract* kernel = builtin_kernel("attn_out");
  ASSERT_NE(kernel, nullptr);
  // The loop tests' own target (timed in-process, through the Target interface only).
  const auto tc = targets::make_test_target();
  const std::string baseline = tc->baseline_source(*kernel);
  auto tree =
      trees::DesignTree::create(ws, {"attn_out", tc->name(), 0.1, 2.0, ""}, baseline).value();
  const int64_t head = add_head(tree, "copy", baseline + "\n// the same kernel\n", 1.5);

  // Nothing measured yet: the head history's and the kernel record's figures.
  EXPECT_EQ(current_head_ms(ws, tree, "other"), 1.5);
  EXPECT_EQ(current_baseline_ms(ws, tree, "other"), 2.0);
  record_kernel_timing(ws, kernel_timing_row("attn_out", "old-tc", tree.root().id, kBaselineRole,
                                             3.0, 0.01, 5, "test"));
  record_kernel_timing(
      ws, kernel_timing_row("attn_out", "old-tc", head, kHeadRole, 2.5, 0.01, 5, "test"));
  EXPECT_EQ(current_head_ms(ws, tree, "old-tc"), 2.5);
  EXPECT_EQ(current_baseline_ms(ws, tree, "old-tc"), 3.0);

  const auto id = tc->identity();
  ASSERT_TRUE(id.found);
  const Remeasured r = remeasure_baseline_and_head(ws, tree, *kernel, *tc, cache.path(), 5);
  ASSERT_TRUE(r.failure.empty()) << r.failure;
  ASSERT_TRUE(r.baseline && r.head);
  EXPECT_EQ(r.baseline_node, tree.root().id);
  EXPECT_EQ(r.head_node, head);
  EXPECT_EQ(r.head->node_id, head);
  EXPECT_EQ(r.head->readings, 5);
  ASSERT_EQ(r.head->readings_ms.size(), 5u) << "every reading is kept";
  const auto interval = median_interval_of(*r.head);
  ASSERT_TRUE(interval);
  EXPECT_LE(interval->low, r.head->median_ms);
  EXPECT_GE(interval->high, r.head->median_ms);
  EXPECT_EQ(r.head->toolchain, id.id);
  EXPECT_GT(r.baseline->median_ms, 0.0);
  EXPECT_NE(r.head->method.find("interleaved"), std::string::npos) << r.head->method;
  EXPECT_EQ(current_head_ms(ws, tree, id.id), r.head->median_ms);
  EXPECT_EQ(current_baseline_ms(ws, tree, id.id), r.baseline->median_ms);
  // The other toolchain's figures stay.
  EXPECT_EQ(current_head_ms(ws, tree, "old-tc"), 2.5);
  EXPECT_EQ(kernel_timings(ws, "attn_out").size(), 4u);

  // A newer head makes the head timing stale: the history's figure again.
  ASSERT_TRUE(tree.set_head(tree.root().id, 2.25, std::nullopt, "test").ok());
  EXPECT_EQ(current_head_ms(ws, tree, id.id), 2.25);

  // The head is the baseline: timed once, stored under both roles.
  const Remeasured same = remeasure_baseline_and_head(ws, tree, *kernel, *tc, cache.path(), 3);
  ASSERT_TRUE(same.failure.empty()) << same.failure;
  EXPECT_EQ(same.head->node_id, tree.root().id);
  EXPECT_EQ(same.head->median_ms, same.baseline->median_ms);
  EXPECT_EQ(current_head_ms(ws, tree, id.id), same.head->median_ms);
  EXPECT_EQ(kernel_timings(ws, "attn_out").size(), 6u);

  // Another kernel's node is refused.
  EXPECT_THROW(record_kernel_timing(
                   ws, kernel_timing_row("qkv", "t", head, kHeadRole, 1.0, std::nullopt, 1)),
               store::StoreError);
}

// Given a floor bracket, each timing carries the floor and the decode ceiling of its own seconds,
// measured around its readings, never those of the stored facts of another hour; without one,
// none.
TEST(KernelTimings, CarryTheFloorOfTheFactsMeasuredAroundTheirReadings) {
  store::TestTempDir dir, cache;
  auto ws = store::Workspace::create(dir.path() / "w").value();
  const KernelContract* kernel = builtin_kernel("attn_out");
  ASSERT_NE(kernel, nullptr);
  const auto tc =
      targets::make_test_target("test-1:host=shared:bandwidths=38,42,25,100:decodes=100,60");
  ASSERT_TRUE(tc->identity().found) << tc->identity().error;
  const std::string baseline = tc->baseline_source(*kernel);
  auto tree =
      trees::DesignTree::create(ws, {"attn_out", tc->name(), 0.1, 2.0, ""}, baseline).value();
  add_head(tree, "half", baseline + "time: 0.5\n", 1.0);

  const Remeasured plain = remeasure_baseline_and_head(ws, tree, *kernel, *tc, cache.path(), 3);
  ASSERT_TRUE(plain.failure.empty()) << plain.failure;
  EXPECT_FALSE(plain.head->floor_ms) << "no floor facts given";
  EXPECT_FALSE(plain.baseline->floor_ms);
  EXPECT_FALSE(plain.head->decode_floor_ms);

  // Measured around the readings: 38 before, 42 after, the faster 42; the decode ceiling 100
  // before, 60 after, 100.
  targets::FloorBracket floor(*tc);
  const double at_42_ms = static_cast<double>(kernel->bytes_to_move()) / 42e9 * 1e3;
  const Remeasured beside =
      remeasure_baseline_and_head(ws, tree, *kernel, *tc, cache.path(), 3, &floor);
  ASSERT_TRUE(beside.failure.empty()) << beside.failure;
  ASSERT_TRUE(beside.head->floor_ms && beside.baseline->floor_ms);
  EXPECT_NEAR(*beside.head->floor_ms, at_42_ms, 1e-9 * at_42_ms);
  EXPECT_EQ(*beside.baseline->floor_ms, *beside.head->floor_ms);
  EXPECT_NE(beside.head->method.find("read_bandwidth 42 GB/s (38 before, 42 after)"),
            std::string::npos)
      << beside.head->method;
  const double at_100_ms = static_cast<double>(kernel->bytes_to_move()) / 100e9 * 1e3;
  ASSERT_TRUE(beside.head->decode_floor_ms && beside.baseline->decode_floor_ms);
  EXPECT_NEAR(*beside.head->decode_floor_ms, at_100_ms, 1e-9 * at_100_ms);
  EXPECT_EQ(*beside.baseline->decode_floor_ms, *beside.head->decode_floor_ms);
  EXPECT_NE(beside.head->method.find("decode_ceiling.f8 100 GB/s (100 before, 60 after)"),
            std::string::npos)
      << beside.head->method;
  ASSERT_TRUE(beside.floor);
  EXPECT_TRUE(beside.floor->held);

  // The floor moved during the next kernel's readings (42, then 25): timed again (25, then
  // 100), and again (100, then 38), and said so; the floor is of the last, at 100 GB/s.
  const Remeasured moved =
      remeasure_baseline_and_head(ws, tree, *kernel, *tc, cache.path(), 3, &floor);
  ASSERT_TRUE(moved.failure.empty()) << moved.failure;
  ASSERT_TRUE(moved.floor);
  EXPECT_FALSE(moved.floor->held);
  EXPECT_EQ(moved.floor->timings, 3);
  const double at_100_gbs_ms = static_cast<double>(kernel->bytes_to_move()) / 100e9 * 1e3;
  EXPECT_NEAR(*moved.head->floor_ms, at_100_gbs_ms, 1e-9 * at_100_gbs_ms);
  EXPECT_NE(moved.head->method.find("(the floor moved by 163% during the readings in each of 3 "
                                    "timings)"),
            std::string::npos)
      << moved.head->method;
  // Stored with the timing: the current head's figure carries its floor and decode ceiling.
  const auto current = current_head_timing(ws, tree, tc->identity().id);
  ASSERT_TRUE(current);
  EXPECT_EQ(current->floor_ms, moved.head->floor_ms);
  ASSERT_TRUE(current->decode_floor_ms);
  EXPECT_EQ(current->decode_floor_ms, moved.head->decode_floor_ms);
  // The table refuses a floor or a decode ceiling that is not positive.
  KernelTiming bad = *current;
  bad.floor_ms = 0.0;
  EXPECT_THROW(record_kernel_timing(ws, bad), store::StoreError);
  bad = *current;
  bad.decode_floor_ms = -1.0;
  EXPECT_THROW(record_kernel_timing(ws, bad), store::StoreError);
}

// The loop tests' target takes a decode ceiling as a list of positive rates; anything else is
// refused by name.
TEST(KernelTimings, TheLoopTargetRefusesADecodeListThatIsNotOfRates) {
  for (const char* spec : {"test-1:decodes=none", "test-1:decodes=0", "test-1:decodes=80,x"}) {
    const auto tc = targets::make_test_target(spec);
    EXPECT_FALSE(tc->identity().found) << spec;
    EXPECT_NE(tc->identity().error.find("decodes=D1,D2,..."), std::string::npos)
        << tc->identity().error;
  }
}

// The readings kept with a timing (schema 8) come back as stored; a row without them (as stored
// before schema 8) has no interval and no bimodality.
TEST(KernelTimings, KeepTheirReadingsForTheInterval) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path() / "w").value();
  auto tree = trees::DesignTree::create(ws, {"qkv", "sim", 0.1, 2.0, ""}, "sim-x 1\n").value();
  const std::vector<double> readings = {1.0, 1.1,  0.9,  1.05, 0.95, 1.2,
                                        0.8, 1.02, 0.98, 1.01, 0.99};
  record_kernel_timing(
      ws, kernel_timing_row("qkv", "t", tree.root().id, kBaselineRole, 1.0, 0.1, 11, "", readings));
  const auto t = latest_kernel_timing(ws, "qkv", "t", kBaselineRole);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->readings_ms, readings);
  const auto interval = median_interval_of(*t);
  ASSERT_TRUE(interval);
  EXPECT_EQ(interval->low, 0.9);  // the 2nd and 10th of 11 sorted readings
  EXPECT_EQ(interval->high, 1.1);
  EXPECT_EQ(current_baseline_timing(ws, tree, "t")->id, t->id);
  EXPECT_FALSE(current_head_timing(ws, tree, "t")) << "no head timing was stored";

  record_kernel_timing(ws, kernel_timing_row("qkv", "t", tree.root().id, kHeadRole, 1.0, 0.1, 11));
  const auto bare = latest_kernel_timing(ws, "qkv", "t", kHeadRole);
  ASSERT_TRUE(bare);
  EXPECT_TRUE(bare->readings_ms.empty());
  EXPECT_FALSE(median_interval_of(*bare));
  EXPECT_FALSE(bimodality_of(*bare).bimodal);
}

}  // namespace
}  // namespace headway::knowledge
