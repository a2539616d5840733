#include "trees/node_status.h"

namespace headway::trees {

std::string_view to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::kBaseline:
      return "baseline";
    case NodeKind::kDesign:
      return "design";
    case NodeKind::kVariant:
      return "variant";
  }
  return "";
}

std::optional<NodeKind> parse_node_kind(std::string_view text) {
  for (const NodeKind kind : kAllNodeKinds) {
    if (to_string(kind) == text) return kind;
  }
  return std::nullopt;
}

std::string_view to_string(NodeStatus status) {
  switch (status) {
    case NodeStatus::kProposed:
      return "proposed";
    case NodeStatus::kLintRejected:
      return "lint-rejected";
    case NodeStatus::kBuildFailed:
      return "build-failed";
    case NodeStatus::kIncorrect:
      return "incorrect";
    case NodeStatus::kCrashed:
      return "crashed";
    case NodeStatus::kTimedOut:
      return "timed-out";
    case NodeStatus::kRacedOut:
      return "raced-out";
    case NodeStatus::kSlower:
      return "slower";
    case NodeStatus::kSame:
      return "same";
    case NodeStatus::kInconclusive:
      return "inconclusive";
    case NodeStatus::kAccepted:
      return "accepted";
    case NodeStatus::kCheated:
      return "cheated";
  }
  return "";
}

std::optional<NodeStatus> parse_node_status(std::string_view text) {
  for (const NodeStatus status : kAllNodeStatuses) {
    if (to_string(status) == text) return status;
  }
  return std::nullopt;
}

bool transition_allowed(NodeStatus from, NodeStatus to) {
  switch (from) {
    case NodeStatus::kProposed:
      return to != NodeStatus::kProposed;
    case NodeStatus::kInconclusive:
      return to == NodeStatus::kSlower || to == NodeStatus::kSame ||
             to == NodeStatus::kInconclusive || to == NodeStatus::kAccepted ||
             to == NodeStatus::kCheated;
    default:
      return false;
  }
}

bool testable(NodeStatus status) {
  return status == NodeStatus::kProposed || status == NodeStatus::kInconclusive;
}

bool is_failure(NodeStatus status) {
  switch (status) {
    case NodeStatus::kLintRejected:
    case NodeStatus::kBuildFailed:
    case NodeStatus::kIncorrect:
    case NodeStatus::kCrashed:
    case NodeStatus::kTimedOut:
      return true;
    default:
      return false;
  }
}

}  // namespace headway::trees
