#pragma once
// What one `headway optimize` run is given: the kernels, the budget, and the settings of its
// screen, race and acceptance test.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/rng.h"
#include "kernels/kernel_catalog.h"
#include "loop/acceptance_procedure.h"
#include "loop/screen.h"
#include "targets/target.h"

namespace headway::loop {

struct OptimizeOptions {
  std::vector<std::string> kernels = {"qkv", "attn_out", "ffn"};
  // Where `kernels` are looked up (kernels/kernel_catalog.h): by default the built-in kernels; a
  // verb's holds its workspace's too. The loop keeps its contracts for the run.
  KernelCatalog catalog;
  std::chrono::duration<double> budget = std::chrono::minutes(10);
  int batch = 4;  // proposals per round
  int race_initial_readings = 3;
  int race_budget = 40;  // readings per race, all survivors together
  // The acceptance test's rule and settings (loop/acceptance_procedure.h); its run_seed is `seed`
  // below.
  AcceptanceOptions acceptance;
  int baseline_readings = 11;
  // Where the target has a static cost (Target::static_cost): a screened candidate it predicts
  // slower than the head by more than this (percent) is not raced (status raced-out), while the
  // screen calibration trusts the static cost (loop/screen_calibration.h).
  double static_cost_reject_pct = 10.0;
  // The loop's parts that a run can switch off or swap (loop/optimize_switches.h), each at the
  // full loop's setting by default.
  // false: static-cost predictions are still recorded, but never keep a candidate from the race.
  bool static_cost_screen = true;
  // false: every survivor of the screen takes an acceptance test, in the order proposed, each
  // against the head of the moment.
  bool racing = true;
  // The knowledge the loop is given (chip facts, learned rules, the cheat sheet). Applied by the
  // loop: floor_guidance (false: rounds go to the kernels in turn, the one with the fewest rounds
  // first, and no kernel is left alone near its floor) and rule_lint (false: candidates are not
  // linted against the learned legality rules, which are still learned). Applied by whoever
  // makes the proposer (the CLI): isa_gating (false: designs are proposed whatever the
  // instruction-set facts say) and cheat_sheet (false: agent prompts get none); and by the
  // proposal feed: slow_designs (false: the library proposes variants of designs this chip
  // makes slow, loop/slow_designs.h).
  bool floor_guidance = true;
  bool isa_gating = true;
  bool slow_designs = true;
  bool rule_lint = true;
  bool cheat_sheet = true;
  // Heads whose variants are proposed (loop/beam.h): 1, the head alone; k > 1, the head and the
  // k - 1 fastest other designs measured so far, in turn. The head still changes only through
  // the acceptance test.
  int beam = 1;
  // 0: the loop's fixed seeds, so that a run on a deterministic target (sim) is a function of its
  // inputs. N: every seed the loop gives the target (races, acceptance tests) and every coin of a
  // pair's order is mixed with N (run_seeded), so that runs with different seeds draw different
  // inputs, noise and orders (`headway ablate` runs each run of an arm with its own).
  uint64_t seed = 0;
  // A kernel whose head is within this ratio of its floor gets no more proposals.
  double done_within_floor = 1.10;
  // Required, not owned: the target the loop builds, checks and times on, with the toolchain to
  // start with selected (the workspace's: knowledge/workspace_target.h).
  targets::Target* target = nullptr;
  // Optional, not owned: a second instance of the same target and toolchain, used from other
  // threads to build proposals while `target` times (only where !target->times_on_host()). Null:
  // every build waits for the loop's thread.
  targets::Target* build_target = nullptr;
  // Rounds on different kernels at once, each on its own thread with its own connection to the
  // workspace (never two on one kernel). Above 1 only for a target whose device work is
  // thread-safe: one given a device pool (Target::use_pool), whose devices this usually is.
  int concurrent_rounds = 1;
  // The CLI's, called with the workspace's connection: the loop calls lint and on_screen_failure
  // one at a time, holding the run's lock on that connection.
  LintHook lint;
  // Called after a candidate failed screening and its status was recorded (a legality rule can
  // be learned from it before the next candidate is linted).
  std::function<void(const std::string& kernel, int64_t node)> on_screen_failure;
};

// `seed` itself when run_seed is 0, else both mixed (OptimizeOptions::seed).
inline uint64_t run_seeded(uint64_t seed, uint64_t run_seed) {
  return run_seed == 0 ? seed : mix_seed(seed, run_seed);
}

}  // namespace headway::loop
