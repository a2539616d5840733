#pragma once
// The optimize loop on one target (targets/target.h): per kernel, propose, screen, race the
// survivors and run the acceptance test of the winner against the head; FASTER replaces the head.
// Every step is persisted in the workspace as it happens, so a run killed at any moment resumes
// where it stopped (an unfinished acceptance test is discarded and run again from its first pair).
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "loop/proposer.h"
#include "loop/screen.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::loop {

struct OptimizeOptions {
  std::vector<std::string> kernels = {"qkv", "attn_out", "ffn"};
  std::chrono::duration<double> budget = std::chrono::minutes(10);
  int batch = 4;  // proposals per round
  int race_initial_readings = 3;
  int race_budget = 40;  // readings per race, all survivors together
  double alpha = 0.05;
  int cap = 24;
  int baseline_readings = 11;
  // Where the target has a static cost (Target::static_cost): a screened candidate it predicts
  // slower than the head by more than this (percent) is not raced (status raced-out), while the
  // screen calibration trusts the static cost (loop/screen_calibration.h).
  double static_cost_reject_pct = 10.0;
  // A kernel whose head is within this ratio of its floor gets no more proposals.
  double done_within_floor = 1.10;
  // Required, not owned: the target the loop builds, checks and times on, with the toolchain to
  // start with selected (the workspace's: knowledge/workspace_target.h).
  targets::Target* target = nullptr;
  // Optional, not owned: a second instance of the same target and toolchain, used from other
  // threads to build proposals while `target` times (only where !target->times_on_host()). Null:
  // every build waits for the loop's thread.
  targets::Target* build_target = nullptr;
  LintHook lint;
  // Called after a candidate failed screening and its status was recorded (a legality rule can
  // be learned from it before the next candidate is linted).
  std::function<void(const std::string& kernel, int64_t node)> on_screen_failure;
};

// A registered kernel's head as the loop ranks it (its time under the current toolchain).
struct KernelHead {
  std::string name;
  double head_ms = 0.0;
  double floor_ms = 0.0;
};

// One line of progress: what the loop is doing now.
struct Progress {
  std::string kernel;
  int64_t node = 0;
  std::string design;
  std::string stage;  // "baseline timed", "propose" (node: the head), "screen", "race of N",
                      // "acceptance test", its outcome, ...; for the loop
                      // itself (kernel empty): "paused", "resumed", "stale pause"
  std::string note;   // the loop's own events: who paused it and why, the toolchain after
  double head_ms = 0.0;
  double floor_ms = 0.0;
  double elapsed_s = 0.0;
  // The budget not yet spent (paused time does not count), never below 0.
  double budget_left_s = 0.0;
  // Every kernel of the run registered so far, in the order of OptimizeOptions::kernels.
  std::vector<KernelHead> kernels;
};

struct OptimizeSummary {
  int rounds = 0;
  int proposed = 0;
  int accepted = 0;
  int tests = 0;
  int cheated = 0;             // candidates disqualified under timing (node status cheated)
  bool budget_spent = false;   // false: every kernel ran out of proposals first
  int cost_rejected = 0;       // candidates not raced because the static cost predicted a loss
  std::string device_stopped;  // non-empty: the run ended because the device stopped (its
                               // budget of jobs or minutes is spent, it keeps failing): why
  std::vector<std::string> near_floor;  // kernels left alone at the end: within done_within_floor
  std::string proposer_stopped;  // non-empty: the proposer stopped before it ran out of ideas
                                 // (Proposer::stopped, e.g. an agent budget is spent): why
};

// Registers missing kernels (measuring the read bandwidth once per workspace for the floor and
// timing each baseline), then runs rounds until the budget is spent or every kernel has nothing
// left to try or is within done_within_floor of its floor. Each round goes to the kernel
// whose head's time exceeds its floor by the most milliseconds (the most a decode step can still
// gain from it); the head's time is its re-measured time under the current toolchain when a
// migration measured one (knowledge::current_head_ms), else the head history's figure.
//
// The run holds the workspace's optimize lock (optimize_pause.h) throughout, so two optimizers
// never interleave on one workspace: a second one fails naming the first. Before each round and
// each screened candidate it honours a pause request: it releases the lock, reports "paused",
// waits until the request is withdrawn, re-takes the lock and reports "resumed", then reopens
// its Design Trees (heads may have fallen back) and adopts the workspace's toolchain when it
// changed (meta <target>.toolchain, set by `headway migrate`). Time spent paused does not count
// against the budget (nor in Progress::elapsed_s).
// While it holds the lock it keeps the workspace's run record (run_record.h) up to date with
// every progress, for other processes to follow the run; the record goes when the run ends.
// Where the proposer works in the background (Proposer::works_in_background: agent calls), the
// next round's proposals are asked for when the device starts timing a round (its race and
// acceptance test), for the kernel the next round would go to if the round changed nothing;
// they are stored as proposed nodes of that kernel before the next round, and at the end of the
// run. Where the device is not the host and a build target is given, their sources are built
// as they arrive, so builds overlap the timing too; checks stay serial (they use the device).
// Where the target has a static cost, the head is timed in every race too, and every raced or
// tested candidate's predicted and measured effect is recorded (loop/screen_calibration.h).
// A targets::DeviceStopped from the target ends the run (summary.device_stopped); an
// acceptance test it interrupted is discarded.
// Throws std::runtime_error for environment failures (no compiler, database errors), when
// options.target is null, and when another process holds the workspace's optimize lock.
OptimizeSummary optimize(store::Workspace& ws, Proposer& proposer, const OptimizeOptions& options,
                         const std::function<void(const Progress&)>& on_progress);

// The device seconds spent on a kernel so far (screening, races, tests), from the workspace.
double device_seconds(store::Workspace& ws, const std::string& kernel);
// The same seconds by what they were spent on: "screen" (builds and checks), and for races and
// tests what their sessions accounted ("timed", "warm_up", "process_start", "guard",
// "verification", "inputs"), the rest of their wall time as "other". Empty when none recorded.
std::map<std::string, double> device_seconds_split(store::Workspace& ws, const std::string& kernel);

}  // namespace headway::loop
