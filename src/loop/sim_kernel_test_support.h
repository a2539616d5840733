#pragma once
// For tests of the loop's parts: a workspace with one kernel registered on a sim target
// (targets/sim/sim_target.h), and candidates added to its tree and built.
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/contract.h"
#include "loop/kernel_registration.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"
#include "targets/sim/sim_target.h"
#include "trees/design_tree.h"

namespace headway::loop {

class SimKernel {
 public:
  explicit SimKernel(const std::string& kernel = "attn_out", sim::SimTargetConfig config = {})
      : target_(std::make_unique<sim::SimTarget>("", config)),
        kernel_(*find_kernel(kernel)),
        tree_(*register_kernel(
            ws_, *target_, kernel_,
            [this](const std::string& s) { return target_->build(s, dir_.path() / "builds"); },
            11)) {}

  store::Workspace& ws() { return ws_; }
  sim::SimTarget& target() { return *target_; }
  const KernelContract& kernel() const { return kernel_; }
  trees::DesignTree& tree() { return tree_; }

  // A new design node whose sim source is `directives` (e.g. "sim-x 0.5\n"), labelled `design`.
  trees::Node add(const std::string& design, const std::string& directives) {
    trees::NewNode n;
    n.kind = trees::NodeKind::kDesign;
    n.design = design;
    n.params = nlohmann::json::object();
    n.source = "// " + design + "\n" + directives;
    n.proposer = "test";
    auto added = tree_.add(n);
    if (!added.ok()) throw std::runtime_error(added.error().message);
    return added->node;
  }
  // The artifact of a node's source (it must build).
  targets::Artifact artifact(const trees::Node& node) {
    auto built = target_->build(tree_.source(node.id).value(), dir_.path() / "builds");
    if (!built.built()) throw std::runtime_error(built.diagnostics);
    return built.artifact;
  }
  trees::Node head() { return *tree_.node(tree_.head().node_id); }

 private:
  store::TestTempDir dir_;
  store::Workspace ws_ = store::Workspace::create(dir_.path()).value();
  std::unique_ptr<sim::SimTarget> target_;
  const KernelContract& kernel_;
  trees::DesignTree tree_;
};

}  // namespace headway::loop
