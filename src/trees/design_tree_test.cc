#include "trees/design_tree.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/database.h"
#include "trees/tree_test_support.h"

namespace headway::trees {
namespace {

using nlohmann::json;

class TreeDesign : public ::testing::Test, public TreeFixture {};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(TreeDesign, CreateRegistersKernelWithBaselineRootAsHead) {
  const Node root = tree().root();
  EXPECT_EQ(root.kind, NodeKind::kBaseline);
  EXPECT_EQ(root.status, NodeStatus::kAccepted);
  EXPECT_EQ(root.parent_id, std::nullopt);
  EXPECT_EQ(tree().source(root.id), kBaselineSource);
  const HeadRecord head = tree().head();
  EXPECT_EQ(head.node_id, root.id);
  EXPECT_EQ(head.median_ms, 1.5);
  EXPECT_EQ(head.test_id, std::nullopt);
  EXPECT_EQ(tree().head_history().size(), 1u);
  const KernelRecord k = tree().record();
  EXPECT_EQ(k.target, "cpu");
  EXPECT_EQ(k.floor_ms, 0.05);
  EXPECT_EQ(k.baseline_ms, 1.5);
  EXPECT_FALSE(k.created_at.empty());
  tree().set_kernel_times(0.04, std::nullopt);
  EXPECT_EQ(tree().record().floor_ms, 0.04);
  EXPECT_EQ(tree().record().baseline_ms, std::nullopt);
}

TEST_F(TreeDesign, KernelsAreRegisteredOnce) {
  auto again = DesignTree::create(ws(), KernelRecord{"qkv", "cpu", {}, {}, ""}, "// other\n");
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(has(again.error().message, "already registered")) << again.error().message;
  ASSERT_TRUE(DesignTree::create(ws(), KernelRecord{"ffn", "cuda", {}, {}, ""}, "// ffn\n").ok());
  const auto kernels = DesignTree::kernels(ws());
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "ffn");
  EXPECT_EQ(kernels[1].name, "qkv");

  auto unknown = DesignTree::open(ws(), "attn_out");
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(has(unknown.error().message, "unknown kernel 'attn_out'")) << unknown.error().message;
  EXPECT_TRUE(has(unknown.error().message, "known: ffn, qkv")) << unknown.error().message;
  EXPECT_TRUE(DesignTree::open(ws(), "qkv").ok());
}

TEST_F(TreeDesign, DesignsHangFromTheRootVariantsFromTheirParent) {
  const int64_t root = tree().root().id;
  const Node tiled = add(NodeKind::kDesign, std::nullopt, "tiled", {{"tile", 64}});
  const Node unrolled = add(NodeKind::kDesign, root, "unrolled");
  const Node wider = add(NodeKind::kVariant, tiled.id, "tiled-128", {{"tile", 128}});
  const Node deeper = add(NodeKind::kVariant, wider.id, "tiled-128-u4");
  const Node plain = add(NodeKind::kDesign, std::nullopt, "plain", nullptr);
  EXPECT_EQ(plain.params, json::object());

  EXPECT_EQ(tiled.parent_id, root);
  EXPECT_EQ(tiled.status, NodeStatus::kProposed);
  EXPECT_EQ(tiled.params, json({{"tile", 64}}));
  EXPECT_EQ(tiled.proposer, "test");
  EXPECT_EQ(wider.parent_id, tiled.id);
  EXPECT_EQ(tree().source(wider.id), "// tiled-128 {\"tile\":128}\n");

  const auto kids = tree().children(root);
  ASSERT_EQ(kids.size(), 3u);
  EXPECT_EQ(kids[0].id, tiled.id);
  EXPECT_EQ(kids[1].id, unrolled.id);
  EXPECT_TRUE(tree().children(deeper.id).empty());

  const auto path = tree().path_to_root(deeper.id);
  ASSERT_EQ(path.size(), 4u);
  EXPECT_EQ(path[0].id, deeper.id);
  EXPECT_EQ(path[1].id, wider.id);
  EXPECT_EQ(path[2].id, tiled.id);
  EXPECT_EQ(path[3].id, root);
  EXPECT_TRUE(tree().path_to_root(9999).empty());
  EXPECT_EQ(tree().nodes().size(), 6u);
}

TEST_F(TreeDesign, MalformedNodesAreRejected) {
  const Node tiled = add(NodeKind::kDesign, std::nullopt, "tiled");
  auto other = DesignTree::create(ws(), KernelRecord{"ffn", "cpu", {}, {}, ""}, "// ffn\n").value();
  const int64_t foreign = other.root().id;
  const auto count = tree().nodes().size();

  auto try_add = [&](NodeKind kind, std::optional<int64_t> parent, std::string source,
                     json params) {
    NewNode n;
    n.kind = kind;
    n.parent_id = parent;
    n.source = std::move(source);
    n.params = std::move(params);
    return tree().add(n);
  };
  EXPECT_FALSE(try_add(NodeKind::kDesign, std::nullopt, "", json::object()).ok());
  EXPECT_FALSE(try_add(NodeKind::kDesign, std::nullopt, "// a\n", json::array()).ok());
  EXPECT_FALSE(try_add(NodeKind::kBaseline, std::nullopt, "// b\n", json::object()).ok());
  EXPECT_FALSE(try_add(NodeKind::kVariant, std::nullopt, "// c\n", json::object()).ok());
  EXPECT_FALSE(try_add(NodeKind::kVariant, 9999, "// d\n", json::object()).ok());
  EXPECT_FALSE(try_add(NodeKind::kVariant, foreign, "// e\n", json::object()).ok());
  auto design_under_node = try_add(NodeKind::kDesign, tiled.id, "// f\n", json::object());
  ASSERT_FALSE(design_under_node.ok());
  EXPECT_TRUE(has(design_under_node.error().message, "child of the root"));
  EXPECT_EQ(tree().nodes().size(), count);
}

TEST_F(TreeDesign, NeverTheSameSourceTwice) {
  const Node tiled = add(NodeKind::kDesign, std::nullopt, "tiled");
  ASSERT_TRUE(tree().set_status(tiled.id, NodeStatus::kBuildFailed, "error: x").ok());
  const auto count = tree().nodes().size();

  NewNode again;
  again.kind = NodeKind::kVariant;
  again.parent_id = tree().root().id;
  again.design = "renamed";
  again.source = "// tiled\n";
  again.proposer = "someone else";
  auto added = tree().add(again);
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_TRUE(added->duplicate);
  EXPECT_EQ(added->node.id, tiled.id);
  EXPECT_EQ(added->node.status, NodeStatus::kBuildFailed);
  EXPECT_EQ(added->node.design, "tiled");
  EXPECT_EQ(tree().nodes().size(), count);

  EXPECT_EQ(tree().find_by_source("// tiled\n")->id, tiled.id);
  EXPECT_EQ(tree().find_by_source("// tiled \n"), std::nullopt);
  EXPECT_EQ(tree().find_by_source(kBaselineSource)->id, tree().root().id);

  // The rule is per kernel: another kernel may hold the same text.
  auto other = DesignTree::create(ws(), KernelRecord{"ffn", "cpu", {}, {}, ""}, "// ffn\n").value();
  NewNode same;
  same.source = "// tiled\n";
  auto elsewhere = other.add(same);
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_FALSE(elsewhere->duplicate);
  EXPECT_EQ(other.find_by_source("// tiled\n")->id, elsewhere->node.id);

  // The database refuses a second row with the same source even when the API is bypassed.
  EXPECT_THROW(
      ws().db().exec(fmt::format("INSERT INTO nodes(kernel, parent_id, kind, source_hash, status) "
                                 "VALUES ('qkv', {}, 'design', '{}', 'proposed')",
                                 tree().root().id, tiled.source_hash)),
      store::StoreError);
}

TEST_F(TreeDesign, EveryStatusReachableFromProposedAndFinalAfterwards) {
  for (const NodeStatus status : kAllNodeStatuses) {
    if (status == NodeStatus::kProposed || status == NodeStatus::kAccepted) continue;
    const std::string label(to_string(status));
    const Node n = add(NodeKind::kDesign, std::nullopt, label);
    auto moved = tree().set_status(n.id, status, "because " + label, {{"log", label}});
    ASSERT_TRUE(moved.ok()) << label << ": " << moved.error().message;
    EXPECT_EQ(moved->status, status);
    EXPECT_EQ(moved->reason, "because " + label);
    EXPECT_EQ(moved->evidence, json({{"log", label}}));
    for (const NodeStatus next : kAllNodeStatuses) {
      auto again = tree().set_status(n.id, next, "again");
      EXPECT_EQ(again.ok(), transition_allowed(status, next) && next != NodeStatus::kAccepted)
          << label << " -> " << to_string(next);
      if (again.ok()) break;  // only inconclusive moves on
    }
  }
}

TEST_F(TreeDesign, BadStatusesAndShortcutsAreRejected) {
  const Node n = add(NodeKind::kDesign, std::nullopt, "tiled");
  for (const char* bad : {"screened", "ACCEPTED", "", "faster"}) {
    auto r = tree().set_status(n.id, std::string_view(bad), "x");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(has(r.error().message, "unknown node status")) << r.error().message;
  }
  auto accepted = tree().set_status(n.id, NodeStatus::kAccepted, "x");
  ASSERT_FALSE(accepted.ok());
  EXPECT_TRUE(has(accepted.error().message, "becoming the head"));
  EXPECT_FALSE(tree().set_status(9999, NodeStatus::kSlower, "x").ok());
  EXPECT_FALSE(tree().set_status(n.id, NodeStatus::kProposed, "x").ok());
  EXPECT_TRUE(tree().set_status(n.id, std::string_view("timed-out"), "10 s").ok());
  const Node after = *tree().node(n.id);
  EXPECT_EQ(after.status, NodeStatus::kTimedOut);
  EXPECT_EQ(after.reason, "10 s");
  EXPECT_TRUE(after.evidence.is_null());
  EXPECT_THROW(ws().db().exec(fmt::format("UPDATE nodes SET status = 'proposed' WHERE id = {}",
                                          tree().root().id)),
               store::StoreError);
}

// A proposed node may carry a note while it waits (a tie in a race); a decided one may not.
TEST_F(TreeDesign, OnlyAProposedNodeTakesANoteAndStaysProposed) {
  const Node n = add(NodeKind::kDesign, std::nullopt, "tiled");
  auto noted = tree().note_proposed(n.id, "tied in a race", {{"tied_in_race", 3}});
  ASSERT_TRUE(noted.ok()) << noted.error().message;
  EXPECT_EQ(noted->status, NodeStatus::kProposed);
  EXPECT_EQ(tree().node(n.id)->reason, "tied in a race");
  EXPECT_EQ(tree().node(n.id)->evidence, json({{"tied_in_race", 3}}));
  ASSERT_TRUE(tree().set_status(n.id, NodeStatus::kRacedOut, "lost").ok());
  auto refused = tree().note_proposed(n.id, "again", {{"tied_in_race", 4}});
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(has(refused.error().message, "raced-out, not proposed")) << refused.error().message;
  EXPECT_EQ(tree().node(n.id)->reason, "lost") << "a refused note changes nothing";
  EXPECT_FALSE(tree().note_proposed(9999, "x", nullptr).ok());
  EXPECT_FALSE(tree().note_proposed(tree().root().id, "x", nullptr).ok());
}

TEST_F(TreeDesign, ARevokedHeadIsCheatedAndTheLatestHonestEarlierHeadIsBack) {
  const int64_t root = tree().root().id;
  EXPECT_FALSE(tree().revoke_head("wrong").ok()) << "the baseline has no earlier head";
  EXPECT_EQ(tree().node(root)->status, NodeStatus::kAccepted);
  const Node a = add(NodeKind::kDesign, std::nullopt, "a");
  const Node b = add(NodeKind::kDesign, std::nullopt, "b");
  const Node c = add(NodeKind::kDesign, std::nullopt, "c");
  ASSERT_TRUE(tree().set_head(a.id, 1.2, std::nullopt).ok());
  ASSERT_TRUE(tree().set_head(b.id, 1.0, std::nullopt).ok());
  ASSERT_TRUE(tree().set_head(c.id, 0.9, std::nullopt).ok());

  auto back = tree().revoke_head("a timed call's output is wrong", {{"reason", "x"}});
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->node_id, b.id);
  EXPECT_EQ(back->median_ms, 1.0) << "the median it had as head";
  EXPECT_EQ(tree().head().node_id, b.id);
  EXPECT_EQ(tree().node(c.id)->status, NodeStatus::kCheated);
  EXPECT_EQ(tree().node(c.id)->reason, "a timed call's output is wrong");
  EXPECT_EQ(tree().node(b.id)->status, NodeStatus::kAccepted);

  // b cheats too: back past c, which is cheated, to a.
  ASSERT_TRUE(tree().revoke_head("wrong again").ok());
  EXPECT_EQ(tree().head().node_id, a.id);
  ASSERT_TRUE(tree().revoke_head("and again").ok());
  EXPECT_EQ(tree().head().node_id, root);
  const auto history = tree().head_history();
  EXPECT_EQ(history.size(), 7u) << "every change of head is a row of the history";
}

TEST_F(TreeDesign, HeadHistoryIsAppendOnlyInOrder) {
  const int64_t root = tree().root().id;
  const Node a = add(NodeKind::kDesign, std::nullopt, "a");
  const Node b = add(NodeKind::kVariant, a.id, "b");
  const Node c = add(NodeKind::kDesign, std::nullopt, "c");
  ASSERT_TRUE(tree().set_status(c.id, NodeStatus::kInconclusive, "retest").ok());

  auto ha = tree().set_head(a.id, 1.2, std::nullopt, "manual", {{"why", "test"}});
  ASSERT_TRUE(ha.ok()) << ha.error().message;
  EXPECT_EQ(tree().node(a.id)->status, NodeStatus::kAccepted);
  EXPECT_EQ(tree().node(a.id)->reason, "manual");
  ASSERT_TRUE(tree().set_head(b.id, 1.0, std::nullopt).ok());
  ASSERT_TRUE(tree().set_head(c.id, 0.9, std::nullopt).ok());
  ASSERT_TRUE(tree().set_head(a.id, 1.2, std::nullopt, "revert").ok());  // a former head

  const auto history = tree().head_history();
  ASSERT_EQ(history.size(), 5u);
  const std::vector<int64_t> order = {root, a.id, b.id, c.id, a.id};
  for (size_t i = 0; i < history.size(); ++i) {
    EXPECT_EQ(history[i].node_id, order[i]) << i;
    if (i > 0) {
      EXPECT_GT(history[i].seq, history[i - 1].seq);
      EXPECT_GE(history[i].since, history[i - 1].since);
    }
  }
  EXPECT_EQ(history[2].median_ms, 1.0);
  EXPECT_EQ(tree().head().node_id, a.id);
  EXPECT_EQ(tree().head().seq, history.back().seq);
  EXPECT_EQ(tree().node(a.id)->reason, "manual");  // a former head keeps its status and reason

  auto same = tree().set_head(a.id, 1.0, std::nullopt);
  ASSERT_FALSE(same.ok());
  EXPECT_TRUE(has(same.error().message, "already is the head"));
  const Node d = add(NodeKind::kDesign, std::nullopt, "d");
  ASSERT_TRUE(tree().set_status(d.id, NodeStatus::kSlower, "slow").ok());
  EXPECT_FALSE(tree().set_head(d.id, 0.1, std::nullopt).ok());
  EXPECT_FALSE(tree().set_head(9999, 0.1, std::nullopt).ok());
  EXPECT_EQ(tree().head_history().size(), 5u);
  EXPECT_EQ(tree().node(d.id)->status, NodeStatus::kSlower);

  EXPECT_THROW(ws().db().exec("UPDATE heads SET median_ms = 0"), store::StoreError);
  EXPECT_THROW(ws().db().exec("DELETE FROM heads"), store::StoreError);
  const Node e = add(NodeKind::kDesign, std::nullopt, "e");
  EXPECT_THROW(
      ws().db().exec(fmt::format("INSERT INTO heads(kernel, node_id) VALUES ('qkv', {})", e.id)),
      store::StoreError);
}

TEST_F(TreeDesign, CountsNodesByStatus) {
  const Node a = add(NodeKind::kDesign, std::nullopt, "a");
  const Node b = add(NodeKind::kDesign, std::nullopt, "b");
  add(NodeKind::kDesign, std::nullopt, "c");
  ASSERT_TRUE(tree().set_status(a.id, NodeStatus::kIncorrect, "wrong").ok());
  ASSERT_TRUE(tree().set_status(b.id, NodeStatus::kIncorrect, "wrong").ok());
  const auto counts = tree().count_by_status();
  EXPECT_EQ(counts.size(), kAllNodeStatuses.size());
  EXPECT_EQ(counts.at(NodeStatus::kIncorrect), 2);
  EXPECT_EQ(counts.at(NodeStatus::kProposed), 1);
  EXPECT_EQ(counts.at(NodeStatus::kAccepted), 1);
  EXPECT_EQ(counts.at(NodeStatus::kSlower), 0);
}

}  // namespace
}  // namespace headway::trees
