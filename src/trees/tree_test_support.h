#pragma once
// For tests: a workspace in a temp dir with one kernel registered.
#include <string>

#include "store/test_temp_dir.h"
#include "store/workspace.h"
#include "trees/design_tree.h"

namespace headway::trees {

inline constexpr const char* kBaselineSource = "// baseline\nvoid kernel() {}\n";

class TreeFixture {
 public:
  TreeFixture()
      : ws_(store::Workspace::create(dir_.path()).value()),
        tree_(DesignTree::create(ws_, KernelRecord{"qkv", "cpu", 0.05, 1.5, ""}, kBaselineSource,
                                 nlohmann::json::object(), 1.5)
                  .value()) {}

  TreeFixture(const TreeFixture&) = delete;
  TreeFixture& operator=(const TreeFixture&) = delete;

  const std::filesystem::path& dir() const { return dir_.path(); }
  store::Workspace& ws() { return ws_; }
  DesignTree& tree() { return tree_; }

  // Adds a node that must be new; its source is "// <label>\n", or "// <label> <params>\n" when
  // params are not empty.
  Node add(NodeKind kind, std::optional<int64_t> parent, const std::string& label,
           nlohmann::json params = nlohmann::json::object()) {
    NewNode n;
    n.kind = kind;
    n.parent_id = parent;
    n.design = label;
    n.params = std::move(params);
    n.source = "// " + label + (n.params.empty() ? "" : " " + n.params.dump()) + "\n";
    n.proposer = "test";
    auto added = tree_.add(n);
    if (!added.ok()) throw std::runtime_error(added.error().message);
    if (added->duplicate) throw std::runtime_error("unexpected duplicate " + label);
    return added->node;
  }

 private:
  store::TestTempDir dir_;
  store::Workspace ws_;
  DesignTree tree_;
};

}  // namespace headway::trees
