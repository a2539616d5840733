#pragma once
// The Design Trees of a run's kernels, opened once on the run's connection, and each kernel's head
// and floor figures as last read (reading them takes several queries; the loop asks for every
// kernel's at each round it starts and each progress).
#include <map>
#include <string>

#include "store/workspace.h"
#include "targets/target.h"
#include "trees/design_tree.h"

namespace headway::loop {

// The head's time of `tree` under `target`'s current toolchain (knowledge::current_head_ms), else
// its floor, else 1 ms.
double head_ms_of(store::Workspace& ws, const trees::DesignTree& tree,
                  const targets::Target& target);

// Not thread-safe: the caller serializes every call (the run's lock). `ws` and `target` must
// outlive it.
class KernelTrees {
 public:
  KernelTrees(store::Workspace& ws, const targets::Target& target) : ws_(ws), target_(target) {}

  // The kernel's tree, opened on first use. Throws a Failure with the store's code when it
  // cannot be opened (a kernel not registered: not found).
  trees::DesignTree& tree(const std::string& kernel);
  // Keeps `tree` as the kernel's (a tree just created), replacing any.
  void keep(const std::string& kernel, trees::DesignTree tree);
  // The head's time (head_ms_of) and the floor (1 ms when unknown), as last read.
  double head_ms(const std::string& kernel) { return figures(kernel).head_ms; }
  double floor_ms(const std::string& kernel) { return figures(kernel).floor_ms; }
  // The kernel's head may have changed (its round ended, or one in flight reported): its
  // figures are read again at their next use.
  void forget_figures(const std::string& kernel) { figures_.erase(kernel); }
  // Another process may have changed every tree (after a pause): all are reopened and read
  // again at their next use.
  void reopen_all();

 private:
  struct Figures {
    double head_ms = 0.0;
    double floor_ms = 0.0;
  };
  const Figures& figures(const std::string& kernel);

  store::Workspace& ws_;
  const targets::Target& target_;
  std::map<std::string, trees::DesignTree> trees_;
  std::map<std::string, Figures> figures_;
};

}  // namespace headway::loop
