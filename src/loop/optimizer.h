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

#include "loop/optimize_options.h"
#include "loop/proposer.h"
#include "store/workspace.h"

namespace headway::loop {

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
                      // itself (kernel empty): "paused", "resumed", "stale pause", "floors"
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
  int most_rounds_at_once = 0;          // rounds in flight together at some moment (at most
                                        // OptimizeOptions::concurrent_rounds)
  std::string proposer_stopped;  // non-empty: the proposer stopped before it ran out of ideas
                                 // (Proposer::stopped, e.g. an agent budget is spent): why
  std::map<std::string, std::string> kernels_stopped;  // kernel -> why: it could go no further
                                                       // (loop/round.h, KernelStopped); the run
                                                       // went on with the others
};

// Registers missing kernels (measuring the read bandwidth once per workspace for the floor and
// timing each baseline), then runs rounds until the budget is spent or every kernel has nothing
// left to try, is within done_within_floor of its floor or has stopped (a baseline that does not
// build or is found wrong under timing: OptimizeSummary::kernels_stopped). Each round goes to the
// kernel whose head's time exceeds its floor by the most milliseconds (the most a decode step can
// still gain from it); the head's time is its re-measured time under the current toolchain when a
// migration measured one (knowledge::current_head_ms), else the head history's figure.
//
// The run holds the workspace's workspace lock (workspace_pause.h) throughout, so two optimizers
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
// With concurrent_rounds above 1, up to that many rounds run at once on different kernels (the
// next kernel is the first by the rule above that has no round in flight), each on its own
// thread and connection, asking for its own proposals there (the proposer is called from
// several threads at once: loop/proposer.h); the next round's are not asked for ahead. A pause
// request, the spent budget or a stopped device lets the rounds in flight end at their next
// candidate (a race or test under way finishes) before the loop pauses or ends. A
// targets::DeviceStopped from the target ends the run (summary.device_stopped); an acceptance test
// it interrupted is discarded. Throws a Failure (common/result.h) whose code says what failed:
// invalid input when options.target is null, not found for a kernel this process does not know,
// environment when the target's toolchain is not found (at start, or the workspace's new one
// after a pause), conflict when another process holds the workspace's workspace lock, and the
// store's code (database) when the workspace cannot be opened or written; store::StoreError for
// a database statement that fails.
OptimizeSummary optimize(store::Workspace& ws, Proposer& proposer, const OptimizeOptions& options,
                         const std::function<void(const Progress&)>& on_progress);

}  // namespace headway::loop
