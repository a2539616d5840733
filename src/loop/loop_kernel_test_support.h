#pragma once
// For tests of the loop's parts: a workspace with one kernel registered on the tests' target,
// made by name through the registry and used through the Target interface only, and candidates
// added to its tree and built.
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/contract.h"
#include "loop/kernel_registration.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"
#include "targets/registry/test_targets.h"
#include "trees/design_tree.h"

namespace headway::loop {

class LoopKernel {
 public:
  // `toolchain`: the test target's toolchain spec, e.g. "test-1:stop-after=13" for a device
  // that stops once the kernel is registered (2 warm-up and 11 timed readings).
  explicit LoopKernel(const std::string& kernel = "attn_out", const std::string& toolchain = "")
      : target_(targets::make_test_target(toolchain)),
        kernel_(*builtin_kernel(kernel)),
        tree_(*register_kernel(
            ws_, *target_, kernel_,
            [this](const std::string& s) { return target_->build(s, dir_.path() / "builds"); },
            11)) {}

  store::Workspace& ws() { return ws_; }
  targets::Target& target() { return *target_; }
  const KernelContract& kernel() const { return kernel_; }
  trees::DesignTree& tree() { return tree_; }

  // A new design node whose source is `lines` in the test target's format (e.g. "time: 0.5\n"),
  // labelled `design`.
  trees::Node add(const std::string& design, const std::string& lines) {
    trees::NewNode n;
    n.kind = trees::NodeKind::kDesign;
    n.design = design;
    n.params = nlohmann::json::object();
    n.source = "// " + design + "\n" + lines;
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
  std::unique_ptr<targets::Target> target_;
  const KernelContract& kernel_;
  trees::DesignTree tree_;
};

}  // namespace headway::loop
