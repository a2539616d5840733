#include "trees/tree_render.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "trees/tree_test_support.h"

namespace headway::trees {
namespace {

class TreeRender : public ::testing::Test, public TreeFixture {
 protected:
  // root -> a (former head) -> c (head); root -> b (build-failed, reason with quotes/newline)
  void SetUp() override {
    a_ = add(NodeKind::kDesign, std::nullopt, "tiled", {{"tile", 64}});
    b_ = add(NodeKind::kDesign, std::nullopt, "unrolled");
    c_ = add(NodeKind::kVariant, a_.id, "tiled", {{"tile", 128}});
    ASSERT_TRUE(
        tree()
            .set_status(b_.id, NodeStatus::kBuildFailed, "error: expected \";\"\n  at line 3")
            .ok());
    ASSERT_TRUE(tree().set_head(a_.id, 1.25, std::nullopt, "faster").ok());
    ASSERT_TRUE(tree().set_head(c_.id, 0.75, std::nullopt, "faster still").ok());
  }

  static std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

  Node a_, b_, c_;
};

TEST_F(TreeRender, TextIsAnIndentedTreeWithHeadMarkers) {
  const auto out = lines(render_text(tree()));
  ASSERT_EQ(out.size(), 5u) << render_text(tree());
  const int64_t root = tree().root().id;
  EXPECT_EQ(out[0], fmt::format("qkv (target cpu): head #{} at 0.75 ms, 3 heads, 4 nodes", c_.id));
  EXPECT_EQ(out[1],
            fmt::format("#{} baseline baseline [accepted] (former head) - the baseline", root));
  EXPECT_EQ(
      out[2],
      fmt::format("├─ #{} design tiled {{\"tile\":64}} [accepted] (former head) - faster", a_.id));
  EXPECT_EQ(
      out[3],
      fmt::format(
          "│  └─ #{} variant tiled {{\"tile\":128}} [accepted] <== HEAD 0.75 ms - faster still",
          c_.id));
  EXPECT_EQ(out[4],
            fmt::format("└─ #{} design unrolled [build-failed] - error: expected \";\" at line 3",
                        b_.id));
}

TEST_F(TreeRender, DotIsADigraphColoredByStatusWithABoldHead) {
  const std::string dot = render_dot(tree());
  EXPECT_EQ(dot.rfind("digraph \"qkv\" {\n", 0), 0u) << dot;
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
  const int64_t root = tree().root().id;
  for (const auto& [parent, child] : {std::pair{root, a_.id}, {root, b_.id}, {a_.id, c_.id}}) {
    EXPECT_NE(dot.find(fmt::format("  n{} -> n{};\n", parent, child)), std::string::npos);
  }
  std::string head_line, failed_line, former_line;
  for (const auto& line : lines(dot)) {
    if (line.rfind(fmt::format("  n{} [", c_.id), 0) == 0) head_line = line;
    if (line.rfind(fmt::format("  n{} [", b_.id), 0) == 0) failed_line = line;
    if (line.rfind(fmt::format("  n{} [", a_.id), 0) == 0) former_line = line;
  }
  EXPECT_NE(head_line.find("bold"), std::string::npos) << head_line;
  EXPECT_NE(head_line.find("penwidth=3"), std::string::npos) << head_line;
  EXPECT_NE(head_line.find("HEAD 0.75 ms"), std::string::npos) << head_line;
  EXPECT_NE(head_line.find(status_color(NodeStatus::kAccepted)), std::string::npos);
  EXPECT_NE(former_line.find("peripheries=2"), std::string::npos) << former_line;
  EXPECT_EQ(former_line.find("bold"), std::string::npos) << former_line;
  EXPECT_NE(failed_line.find(status_color(NodeStatus::kBuildFailed)), std::string::npos);
  EXPECT_NE(failed_line.find("expected \\\";\\\" at line 3"), std::string::npos) << failed_line;
  EXPECT_NE(dot.find("{\\\"tile\\\":64}"), std::string::npos) << dot;
}

TEST_F(TreeRender, DotOptionsLinkNodesAndDrawTheHeadPath) {
  DotOptions options;
  options.link = [](const Node& n) {
    return n.kind == NodeKind::kBaseline ? "" : fmt::format("#node-{}", n.id);
  };
  options.highlight_head_path = true;
  const std::string dot = render_dot(tree(), options);
  const int64_t root = tree().root().id;
  const std::string bold = "[color=\"#c0392b\", penwidth=3];\n";
  EXPECT_NE(dot.find(fmt::format("  n{} -> n{} {}", root, a_.id, bold)), std::string::npos) << dot;
  EXPECT_NE(dot.find(fmt::format("  n{} -> n{} {}", a_.id, c_.id, bold)), std::string::npos) << dot;
  EXPECT_NE(dot.find(fmt::format("  n{} -> n{};\n", root, b_.id)), std::string::npos) << dot;
  EXPECT_NE(dot.find(fmt::format("URL=\"#node-{}\"", b_.id)), std::string::npos) << dot;
  EXPECT_EQ(dot.find(fmt::format("URL=\"#node-{}\"", root)), std::string::npos) << dot;
  EXPECT_EQ(render_dot(tree(), DotOptions{}), render_dot(tree()));
}

TEST_F(TreeRender, StatusColorsTellFailuresFromResults) {
  std::set<std::string> colors;
  for (const NodeStatus s : kAllNodeStatuses) colors.insert(status_color(s));
  EXPECT_GE(colors.size(), 8u);
  EXPECT_NE(status_color(NodeStatus::kAccepted), status_color(NodeStatus::kProposed));
  EXPECT_NE(status_color(NodeStatus::kBuildFailed), status_color(NodeStatus::kSlower));
}

}  // namespace
}  // namespace headway::trees
