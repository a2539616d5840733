#pragma once
// What a Design Tree node is (its kind) and where it stands (its status), with the life cycle
// that decides which status may follow which.
//
//   proposed ──► lint-rejected | build-failed | incorrect | crashed | timed-out | raced-out
//            ──► slower | same | inconclusive | accepted | cheated
//   inconclusive ──► slower | same | inconclusive | accepted | cheated   (a retest with more pairs)
//
// A proposed node may wait as proposed with a note (DesignTree::note_proposed): a candidate tied
// with a race's winner is decided again later (loop/proposals.h).
//
// cheated: the candidate passed the check but broke a rule of timing (a wrong output in a timed
// call, work outside its calls, a forged reply, a failure under timing). Such a node is never a
// head nor a parent.
//
// Every other status is final: failures are results, kept and never retried blindly.
#include <array>
#include <optional>
#include <string_view>

namespace headway::trees {

enum class NodeKind { kBaseline, kDesign, kVariant };

enum class NodeStatus {
  kProposed,
  kLintRejected,
  kBuildFailed,
  kIncorrect,
  kCrashed,
  kTimedOut,
  kRacedOut,
  kSlower,
  kSame,
  kInconclusive,
  kAccepted,
  kCheated,
};

inline constexpr std::array<NodeStatus, 12> kAllNodeStatuses{
    NodeStatus::kProposed,     NodeStatus::kLintRejected, NodeStatus::kBuildFailed,
    NodeStatus::kIncorrect,    NodeStatus::kCrashed,      NodeStatus::kTimedOut,
    NodeStatus::kRacedOut,     NodeStatus::kSlower,       NodeStatus::kSame,
    NodeStatus::kInconclusive, NodeStatus::kAccepted,     NodeStatus::kCheated};

inline constexpr std::array<NodeKind, 3> kAllNodeKinds{NodeKind::kBaseline, NodeKind::kDesign,
                                                       NodeKind::kVariant};

// "baseline", "design", "variant".
std::string_view to_string(NodeKind kind);
std::optional<NodeKind> parse_node_kind(std::string_view text);

// "proposed", "lint-rejected", "build-failed", "incorrect", "crashed", "timed-out",
// "raced-out", "slower", "same", "inconclusive", "accepted", "cheated".
std::string_view to_string(NodeStatus status);
// The inverse of to_string (exact); nullopt for anything else.
std::optional<NodeStatus> parse_node_status(std::string_view text);

// Whether the life cycle above lets `from` become `to`.
bool transition_allowed(NodeStatus from, NodeStatus to);
// Whether a node in this status may be the candidate of an acceptance test.
bool testable(NodeStatus status);
// True for the statuses that mean the candidate never reached a timing comparison.
bool is_failure(NodeStatus status);

}  // namespace headway::trees
