#pragma once
// A kernel the schedule would leave alone near its floor is judged by a floor measured now, not
// only by the one stored when it was registered: that one comes from the read bandwidth of
// another moment, and on a shared machine the bandwidth moves by a third within minutes
// (docs/PERFORMANCE.md, "Machines"), so a head could be left alone at 1.10x of a floor from a
// slow moment and 1.24x of one measured beside it. A floor measured again is kept only where it
// is lower: the fastest reading is the floor no head beats; a slower moment never raises it.
#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "kernels/kernel_catalog.h"
#include "loop/kernel_trees.h"
#include "targets/target.h"

namespace headway::loop {

struct LoweredFloor {
  std::string kernel;
  double was_ms = 0.0;
  double now_ms = 0.0;
};

class FloorRecheck {
 public:
  // True when a kernel of `near` has a head (by its time in `trees`) that no floor measured
  // since it became the head has judged; those heads count as judged from here on.
  bool wanted(const std::vector<std::string>& near, KernelTrees& trees);
  // Measures the target's floor facts once and lowers the stored floor of each of `kernels`
  // (registered ones) that the fresh one undercuts; returns those, or why the facts could not be
  // measured (nothing is changed then).
  static Result<std::vector<LoweredFloor>> lower_floors(targets::Target& target,
                                                        const KernelCatalog& catalog,
                                                        const std::vector<std::string>& kernels,
                                                        KernelTrees& trees);

 private:
  std::map<std::string, double> judged_;  // per kernel: the head time a fresh floor last judged
};

}  // namespace headway::loop
