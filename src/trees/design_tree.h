#pragma once
// The Design Tree of one kernel, kept in the workspace store.
//
// The root is the kernel's baseline (kind baseline, status accepted). A design is a whole-kernel
// design and a child of the root; a variant is a small change to any node and its child. Every
// node keeps its source (as an artifact; the node holds the hash), parameters, proposer, status
// (node_status.h) and the reason for it. A kernel never holds the same source twice: adding a
// source that is already there returns the existing node, marked duplicate, and adds nothing.
//
// Each kernel has one head: the newest row of an append-only history. A node becomes accepted
// only by becoming the head, in the same transaction, so every head is an accepted node and
// every accepted node has been a head. Every change is one transaction; several processes may
// share a tree. Database failures of the environment (disk full, I/O) throw store::StoreError.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "store/workspace.h"
#include "trees/node_status.h"

namespace headway::trees {

struct KernelRecord {
  std::string name;
  std::string target;              // the target that builds and times it (cpu, cuda, ...)
  std::optional<double> floor_ms;  // the time below which no kernel can go (bytes / bandwidth)
  std::optional<double> baseline_ms;
  std::string created_at;  // set by the store
};

struct Node {
  int64_t id = 0;
  std::string kernel;
  std::optional<int64_t> parent_id;  // empty only for the baseline root
  NodeKind kind = NodeKind::kDesign;
  std::string design;  // the design's name; a variant usually keeps its parent's
  nlohmann::json params = nlohmann::json::object();
  std::string source_hash;
  std::string proposer;
  NodeStatus status = NodeStatus::kProposed;
  std::string reason;
  nlohmann::json evidence;  // null when none
  std::string created_at;
  std::string updated_at;
};

struct NewNode {
  NodeKind kind = NodeKind::kDesign;
  // A design's parent is the root (leave empty, or give the root's id); a variant's is required.
  std::optional<int64_t> parent_id;
  std::string design;
  nlohmann::json params = nlohmann::json::object();  // a JSON object (null: empty)
  std::string source;                                // must not be empty
  std::string proposer;
};

struct Added {
  Node node;               // the new node, or the existing one with the same source
  bool duplicate = false;  // true: nothing was added
};

struct HeadRecord {
  int64_t seq = 0;  // position in the history; grows with every new head
  int64_t node_id = 0;
  std::string since;
  std::optional<double> median_ms;  // the head's median time when it became head
  std::optional<int64_t> test_id;   // the acceptance test that made it head, if any
  // The workspace's device seconds (every kernel's) when it became head, where the caller said.
  std::optional<double> device_seconds;
};

class DesignTree {
 public:
  // Registers a kernel in the workspace with its baseline as the root node (kind baseline,
  // status accepted, proposer "baseline") and first head. An error when the name or the source
  // is empty, the params are not a JSON object (null: empty), or the kernel is already
  // registered. The tree refers to ws, which must outlive it and not move.
  static Result<DesignTree> create(store::Workspace& ws, const KernelRecord& kernel,
                                   std::string_view baseline_source,
                                   const nlohmann::json& baseline_params = nlohmann::json::object(),
                                   std::optional<double> baseline_median_ms = std::nullopt);
  // The tree of a registered kernel; an error naming the registered kernels otherwise.
  static Result<DesignTree> open(store::Workspace& ws, std::string_view kernel);
  // Every registered kernel, by name.
  static std::vector<KernelRecord> kernels(store::Workspace& ws);

  const std::string& kernel() const { return kernel_; }
  store::Workspace& workspace() const { return *ws_; }
  KernelRecord record() const;
  void set_kernel_times(std::optional<double> floor_ms, std::optional<double> baseline_ms);

  Node root() const;
  std::optional<Node> node(int64_t id) const;    // nullopt when absent or of another kernel
  std::vector<Node> nodes() const;               // every node, by id
  std::vector<Node> children(int64_t id) const;  // by id
  // The node, its parent, ..., the root; empty when the node is not in this tree.
  std::vector<Node> path_to_root(int64_t id) const;
  std::optional<Node> find_by_source(std::string_view source) const;
  // The node's source text; nullopt when the node or its artifact is missing.
  std::optional<std::string> source(int64_t id) const;

  // Adds a node with status proposed (see NewNode for what is required), or returns the node
  // that already has this source (duplicate = true) without adding anything.
  Result<Added> add(const NewNode& node);

  // Moves a node along the life cycle (transition_allowed) and records why. An error, changing
  // nothing, for an unknown node, a transition the life cycle forbids, or accepted (a node is
  // accepted only through set_head). The string form also rejects an unknown status name.
  Result<Node> set_status(int64_t id, NodeStatus status, std::string_view reason,
                          const nlohmann::json& evidence = nullptr);
  Result<Node> set_status(int64_t id, std::string_view status, std::string_view reason,
                          const nlohmann::json& evidence = nullptr);
  // Changes the reason and evidence of a node that stays proposed (one that waits for a later
  // round, such as a candidate tied in a race: loop/proposals.h). An error, changing nothing,
  // for an unknown node or one that is no longer proposed.
  Result<Node> note_proposed(int64_t id, std::string_view reason, const nlohmann::json& evidence);

  // Makes the node the head: in one transaction it becomes accepted (when it is proposed or
  // inconclusive; a former head stays accepted) with this reason and evidence, and a row is
  // appended to the head history. An error, changing nothing, when the node is unknown, already
  // the head, or in a status that cannot become accepted.
  Result<HeadRecord> set_head(int64_t id, std::optional<double> median_ms,
                              std::optional<int64_t> test_id, std::string_view reason = "",
                              const nlohmann::json& evidence = nullptr,
                              std::optional<double> device_seconds = std::nullopt);
  // The head was found breaking a rule of timing after it became head: in one transaction it
  // becomes cheated with this reason and evidence (the one way out of accepted), and the latest
  // earlier head not cheated becomes the head again (a row appended to the history, with its
  // median then). An error, changing nothing, when the head is the baseline, which is the
  // user's and has no earlier head.
  Result<HeadRecord> revoke_head(std::string_view reason, const nlohmann::json& evidence = nullptr);
  HeadRecord head() const;
  std::vector<HeadRecord> head_history() const;  // oldest first; the last is head()

  // How many nodes are in each status; every status is present, most with 0.
  std::map<NodeStatus, int64_t> count_by_status() const;

 private:
  DesignTree(store::Workspace& ws, std::string kernel) : ws_(&ws), kernel_(std::move(kernel)) {}

  store::Workspace* ws_;
  std::string kernel_;
};

}  // namespace headway::trees
