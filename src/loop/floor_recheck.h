#pragma once
// A kernel the schedule would leave alone near its floor is judged by a floor measured now, not
// only by the one stored when it was registered: that one comes from the read bandwidth of
// another moment, and on a shared machine the bandwidth moves by a third within minutes
// (docs/PERFORMANCE.md, "Machines"), so a head could be left alone at 1.10x of a floor from a
// slow moment and 1.24x of one measured beside it. A floor measured again is kept only where it
// is lower: the fastest reading is the floor no head beats; a slower moment never raises it.
//
// The head's own figure has the same flaw: it comes from the readings of the acceptance test
// that made it head, in that test's moment (EPYC: ffn's head read 1.75 ms in its test and 3.0 ms
// beside a floor of 2.2 ms minutes later). So the head is timed again inside the bracket of floor
// measurements (targets/floor_bracket.h), and its ratio to the floor of those same seconds is
// what decides whether it is near.
#include <functional>
#include <map>
#include <optional>
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

// A near kernel's head timed now, and the memory floor of the facts measured around it.
struct JudgedHead {
  std::string kernel;
  double head_ms = 0.0;
  double floor_ms = 0.0;
  double ratio() const { return head_ms / floor_ms; }
};

struct Recheck {
  std::vector<LoweredFloor> lowered;
  std::vector<JudgedHead> judged;
  std::vector<std::string> unjudged;  // "KERNEL: why", a head whose timing failed
  // "lowered: qkv 0.741 -> 0.738 ms; heads timed around it: ffn 1.24x (2.912 ms against 2.348
  // ms)", with "measured again, none lower than stored" first when none was lowered.
  std::string describe() const;
};

class FloorRecheck {
 public:
  // The artifact of a node's source (the run's build cache).
  using ArtifactOf =
      std::function<targets::Artifact(const std::string& kernel, const std::string& source)>;
  static constexpr int kReadings = 5;  // readings of each head timed in a recheck
  // Timed readings per reader and thread count of each bandwidth measurement around them: a
  // measurement at the facts' 11 took 0.84 s on the EPYC, at 5 0.38 s (ReadBandwidth in
  // headway_microbench), and a run makes four or five rechecks of two measurements or more.
  static constexpr int kFloorReadings = 5;

  // True when a kernel of `near` has a head (by its time in `trees`) that no recheck since it
  // became the head has judged; those heads count as judged from here on.
  bool wanted(const std::vector<std::string>& near, KernelTrees& trees);
  // Times each of `near`'s heads (kReadings readings, alone) inside a bracket of the target's
  // memory floors' facts (Target::memory_floor_facts), lowers the stored floor of each of `kernels`
  // (registered ones) that the bracket's facts undercut, and keeps each judged head's ratio to its
  // own kernel's floor of those facts (judged_ratio). Returns what changed, or why the facts could
  // not be measured (nothing is changed then).
  Result<Recheck> recheck(targets::Target& target, const KernelCatalog& catalog,
                          const std::vector<std::string>& kernels,
                          const std::vector<std::string>& near, KernelTrees& trees,
                          const ArtifactOf& artifact_of);
  // The ratio the last recheck found for the kernel's head while that head (by its time in
  // `trees`) is still the head; nullopt when none judged it.
  std::optional<double> judged_ratio(const std::string& kernel, KernelTrees& trees) const;

 private:
  struct Judged {
    double head_ms = 0.0;         // the head's figure in the trees when it was judged
    std::optional<double> ratio;  // what the recheck found; nullopt until it ran
  };
  std::map<std::string, Judged> judged_;
};

}  // namespace headway::loop
