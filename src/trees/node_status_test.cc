#include "trees/node_status.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace headway::trees {
namespace {

TEST(TreeNodeStatus, NamesRoundTripAndAreDistinct) {
  std::set<std::string> names;
  for (const NodeStatus s : kAllNodeStatuses) {
    names.emplace(to_string(s));
    EXPECT_EQ(parse_node_status(to_string(s)), s) << to_string(s);
  }
  EXPECT_EQ(names.size(), kAllNodeStatuses.size());
  for (const NodeKind k : kAllNodeKinds) EXPECT_EQ(parse_node_kind(to_string(k)), k);
}

TEST(TreeNodeStatus, UnknownNamesAreRejected) {
  for (const char* bad : {"", "Accepted", "screened", "rejected", "faster", "accepted "}) {
    EXPECT_EQ(parse_node_status(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(parse_node_kind("root"), std::nullopt);
}

TEST(TreeNodeStatus, LifeCycle) {
  for (const NodeStatus to : kAllNodeStatuses) {
    EXPECT_EQ(transition_allowed(NodeStatus::kProposed, to), to != NodeStatus::kProposed)
        << to_string(to);
  }
  const std::set<NodeStatus> after_inconclusive = {NodeStatus::kSlower, NodeStatus::kSame,
                                                   NodeStatus::kInconclusive, NodeStatus::kAccepted,
                                                   NodeStatus::kCheated};
  for (const NodeStatus to : kAllNodeStatuses) {
    EXPECT_EQ(transition_allowed(NodeStatus::kInconclusive, to), after_inconclusive.count(to) > 0)
        << to_string(to);
  }
  for (const NodeStatus from : kAllNodeStatuses) {
    if (from == NodeStatus::kProposed || from == NodeStatus::kInconclusive) continue;
    for (const NodeStatus to : kAllNodeStatuses) {
      EXPECT_FALSE(transition_allowed(from, to)) << to_string(from) << " -> " << to_string(to);
    }
    EXPECT_FALSE(testable(from)) << to_string(from);
  }
  EXPECT_TRUE(testable(NodeStatus::kProposed));
  EXPECT_TRUE(testable(NodeStatus::kInconclusive));
}

TEST(TreeNodeStatus, FailuresAreTheScreenStatuses) {
  EXPECT_TRUE(is_failure(NodeStatus::kBuildFailed));
  EXPECT_TRUE(is_failure(NodeStatus::kTimedOut));
  EXPECT_FALSE(is_failure(NodeStatus::kSlower));
  EXPECT_FALSE(is_failure(NodeStatus::kRacedOut));
  EXPECT_FALSE(is_failure(NodeStatus::kAccepted));
}

}  // namespace
}  // namespace headway::trees
