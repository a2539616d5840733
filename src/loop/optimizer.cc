#include "loop/optimizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <set>

#include "common/result.h"
#include "loop/beam.h"
#include "loop/device_time.h"
#include "loop/floor_recheck.h"
#include "loop/kernel_registration.h"
#include "loop/kernel_trees.h"
#include "loop/proposal_feed.h"
#include "loop/round.h"
#include "loop/round_threads.h"
#include "loop/run_progress.h"
#include "loop/run_tally.h"
#include "loop/schedule.h"
#include "loop/toolchain_follow.h"
#include "loop/workspace_pause.h"

namespace headway::loop {

namespace {

using trees::DesignTree;
using trees::Node;

targets::Target& target_or_fail(const OptimizeOptions& options) {
  if (!options.target) fail_with(invalid_input("optimize: no target given"));
  return *options.target;
}

// One run: wires the parts (schedule.h, kernel_trees.h, proposal_feed.h, round_threads.h,
// run_progress.h, workspace_pause.h) into rounds until the run ends, and keeps its summary.
class Loop final {
 public:
  Loop(store::Workspace& ws, Proposer& proposer, const OptimizeOptions& options,
       const std::function<void(const Progress&)>& on_progress)
      : ws_(ws),
        proposer_(proposer),
        options_(options),
        target_(target_or_fail(options)),
        toolchain_(ws, target_),
        cache_(ws.root() / ".headway" / "builds"),
        lock_(ws, [this](const PausableLock::Event& e) { on_pause_event(e); }),
        progress_(options.budget, on_progress, options.kernels, trees_) {
    if (!target_.identity().found) fail_with(environment_error(target_.identity().error));
  }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;
  // Rounds still in flight (the run failed on this thread) stop at their next candidate; rounds_
  // waits for them.
  ~Loop() {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }

  OptimizeSummary run() {
    // The workspace's workspace lock is held from here to the end, except while paused.
    if (auto waited = lock_.enter()) resume(*waited);
    // Holding the lock: the run's record for other processes (run_record.h) is this one's.
    progress_.keep_record(ws_);
    if (auto waited = lock_.pause_if_requested()) resume(*waited);
    for (const auto& name : options_.kernels) setup(name);
    rounds();
    // Proposals asked for while the last round was timed are kept for the next run.
    collect_ahead();
    return tally_.summary();
  }

 private:
  // Starts rounds until the budget is spent, the device stops or no kernel has anything left to
  // try; up to concurrent_rounds at once, on kernels that have none in flight. Pauses and the
  // end wait for the rounds in flight. Rethrows a round's failure once every round has ended.
  void rounds() {
    std::unique_lock lock(mu_);
    for (;;) {
      end_rounds();
      if (stopping_) {
        if (rounds_.empty()) break;
        rounds_.wait(lock);
        continue;
      }
      if (rounds_.empty()) {
        collect_ahead();  // before a pause: its proposals belong to the trees of now
        if (auto waited = lock_.pause_if_requested()) {
          resume(*waited);
          tally_.something_new_for_all();  // a head may have fallen back
        }
      } else if (lock_.pause_requested()) {
        rounds_.wait(lock);  // the rounds in flight stop at their next candidate
        continue;
      }
      if (progress_.budget_spent()) {
        tally_.summary().budget_spent = true;
        stopping_ = true;
        continue;
      }
      if (rounds_.count() < concurrency()) {
        NextKernel next = schedule();
        // A kernel about to be left alone near its floor is judged by a floor measured now,
        // with the device idle (floor_recheck.h; a pool of several models keeps each model's).
        if (rounds_.empty() && options_.floor_guidance &&
            floor_recheck_.wanted(next.near_floor, trees_) && target_.device_models().size() <= 1) {
          recheck_floors(next.near_floor);
          next = schedule();
        }
        tally_.summary().near_floor = next.near_floor;
        if (next.index) {
          start_round(options_.kernels[*next.index]);
          continue;
        }
        if (rounds_.empty()) {
          tally_.summary().proposer_stopped = proposer_.stopped();
          break;
        }
      }
      rounds_.wait(lock);
    }
    if (failure_) std::rethrow_exception(failure_);
    tally_.summary().near_floor = schedule().near_floor;  // with no round in flight left out
  }

  int concurrency() const { return std::max(1, options_.concurrent_rounds); }

  // Times the heads of `near` inside a bracket of floor facts measured now, lowers the floors
  // those facts undercut and keeps each head's ratio to them (floor_recheck.h); the device
  // seconds go to the kernels that asked, as "other". A failed measurement changes nothing.
  void recheck_floors(const std::vector<std::string>& near) {
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::string> registered;
    for (const auto& name : options_.kernels) {
      if (!tally_.standing(name).stopped) registered.push_back(name);
    }
    Result<Recheck> checked = Recheck{};
    try {
      checked = floor_recheck_.recheck(
          target_, options_.catalog, registered, near, trees_,
          [this](const std::string& k, const std::string& s) { return builds_.artifact_of(k, s); });
    } catch (const std::exception& e) {
      checked = environment_error(e.what());
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    for (const auto& name : near)
      add_device_seconds(ws_, name, seconds / static_cast<double>(near.size()), "other", nullptr);
    progress_.event("floors",
                    checked ? checked->describe() : "not measured: " + checked.error().message);
  }

  // The next round's kernel by the rules of schedule.h, from the run's state now.
  NextKernel schedule() {
    std::vector<KernelStanding> standings;
    for (const auto& name : options_.kernels) {
      KernelStanding k = tally_.standing(name);
      k.in_flight = rounds_.in_flight(name);
      // Only an eligible kernel's figures are read: a stopped one may have no tree.
      if (options_.floor_guidance && !k.stopped && !k.nothing_left && !k.in_flight) {
        k.head_ms = trees_.head_ms(name);
        k.floor_ms = trees_.floor_ms(name);
        // A head timed beside a floor measured now is judged by that ratio, not by figures of
        // two other moments (floor_recheck.h).
        if (const auto ratio = floor_recheck_.judged_ratio(name, trees_))
          k.head_ms = *ratio * k.floor_ms;
      }
      standings.push_back(std::move(k));
    }
    return next_kernel(standings, {options_.floor_guidance, options_.done_within_floor});
  }

  // After a pause: another process (a toolchain migration) may have changed the workspace's
  // toolchain and the heads. Trees are reopened and the workspace's toolchain is adopted when it
  // changed since this run began.
  void resume(double paused_seconds) {
    progress_.add_paused(paused_seconds);
    trees_.reopen_all();  // a migration may have re-measured the heads
    progress_.event("resumed",
                    fmt::format("after {:.1f} s paused; {}", paused_seconds, toolchain_.follow()));
  }

  void on_pause_event(const PausableLock::Event& e) {
    if (e.kind == PausableLock::Event::Kind::kPaused) {
      progress_.event("paused", fmt::format("by pid {}: {}", e.request.pid, e.request.reason));
    } else if (e.kind == PausableLock::Event::Kind::kStaleCleared) {
      progress_.event("stale pause", fmt::format("cleared the pause request of pid {}, which is "
                                                 "not running ({})",
                                                 e.request.pid, e.request.reason));
    }  // kResumed: resume() reports it, with the toolchain
  }

  // Registers the kernel with its floor and timed baseline, once per workspace, and discards
  // what a killed run left undecided. A baseline that does not build or fails its timing stops
  // its kernel, unregistered.
  void setup(const std::string& name) {
    std::optional<DesignTree> created;
    try {
      created = register_kernel(
          ws_, target_, kernel_or_fail(options_.catalog, name),
          [this](const std::string& s) { return builds_.build(s); }, options_.baseline_readings);
    } catch (const KernelStopped& e) {
      stop_kernel(name, e.what());
      return;
    }
    progress_.registered(name);
    if (created) {
      trees_.keep(name, std::move(*created));
      progress_.step(name, trees_.tree(name).root(), "baseline timed");
    }
    discard_unfinished_decisions(trees_.tree(name));
  }

  // Before the device times a round (rounds one at a time): asks for the next round's proposals
  // now, for the kernel the next round would go to if this round changed nothing (if it does
  // change something, they wait in that kernel's tree). `deciding`: the nodes this round races
  // and tests, still proposed until it decides them.
  void ask_ahead(const std::set<int64_t>& deciding) {
    if (concurrency() > 1 || !feed_.may_ask_ahead()) return;
    if (const NextKernel next = schedule(); next.index)
      feed_.ask_ahead(ws_, trees_, options_.kernels[*next.index], deciding);
  }

  // Waits for the proposals asked for ahead and stores them in their kernel's tree.
  void collect_ahead() {
    const std::optional<ProposalsAhead> stored = feed_.collect_ahead(trees_);
    if (!stored) return;
    tally_.proposed(stored->added);
    if (stored->added > 0) tally_.something_new(stored->kernel);
  }

  // One round on `name`: here when rounds run one at a time, else on a thread of its own with its
  // own connection to the workspace.
  void start_round(const std::string& name) {
    tally_.round_started(name);
    if (concurrency() == 1) {
      tally_.summary().most_rounds_at_once = 1;
      try {
        tally_round(name, run_round(ws_, trees_.tree(name), options_));
      } catch (const targets::DeviceStopped& e) {
        stop_for_device(e.what());
      } catch (const KernelStopped& e) {
        stop_kernel(name, e.what());
      }
      return;
    }
    rounds_.start(
        name, [this, name, root = ws_.root(), options = with_hooks_locked(options_, mu_)] {
          store::Workspace ws = value_or_fail(store::Workspace::open(root), "open the workspace");
          DesignTree t = value_or_fail(DesignTree::open(ws, name), "open tree");
          return run_round(ws, t, options);
        });
    int& most = tally_.summary().most_rounds_at_once;
    most = std::max(most, rounds_.count());
  }

  // Adds what the rounds that ended decided; the first failure stops the run (a stopped device
  // as at the end of a round here, anything else rethrown by rounds()).
  void end_rounds() {
    for (EndedRound& r : rounds_.take_ended()) {
      if (!r.error) {
        tally_round(r.kernel, r.counts);
        continue;
      }
      try {
        std::rethrow_exception(r.error);
      } catch (const targets::DeviceStopped& e) {
        stop_for_device(e.what());
      } catch (const KernelStopped& e) {
        stop_kernel(r.kernel, e.what());
      } catch (...) {
        if (!failure_) failure_ = std::current_exception();
        stopping_ = true;
      }
    }
  }

  // Proposals (proposal_feed.h), then a round (loop/round.h) on `t`'s kernel through `ws`, the
  // connection `t` uses; nullopt when nothing was left to decide.
  std::optional<RoundCounts> run_round(store::Workspace& ws, DesignTree& t,
                                       const OptimizeOptions& options) {
    int added = 0;
    const std::vector<Node> pending = feed_.pending_of(
        ws, t, [&] { return parents_of(ws, t); },
        [&] {
          std::lock_guard lock(mu_);
          progress_.step(t.kernel(), *t.node(t.head().node_id), "propose");
        },
        &added);
    {
      std::lock_guard lock(mu_);
      tally_.proposed(added);
    }
    if (pending.empty()) return std::nullopt;
    KernelRound events(*this, t.kernel());
    return Round(ws, builds_, t, options, events).run(pending);
  }

  // The nodes a round's proposals vary (loop/beam.h): the head alone, or with a beam the member
  // whose turn it is by the kernel's rounds, then the head.
  std::vector<Node> parents_of(store::Workspace& ws, const DesignTree& t) {
    int rounds_before = 0;
    {
      std::lock_guard lock(mu_);
      rounds_before = tally_.rounds_started(t.kernel()) - 1;
    }
    return beam_parents(ws, t, options_.beam, rounds_before);
  }

  // What a round on `name` decided, or nullopt: it had nothing left to try.
  void tally_round(const std::string& name, const std::optional<RoundCounts>& counts) {
    tally_.round_ended(name, counts);
    trees_.forget_figures(name);
  }

  // Registering the kernel or a round on it found it can go no further: it gets no more rounds in
  // this run.
  void stop_kernel(const std::string& name, const std::string& why) {
    tally_.kernel_stopped(name, why, progress_.is_registered(name));
    trees_.forget_figures(name);
    progress_.event("kernel stopped", fmt::format("{}: {}", name, why));
  }

  void stop_for_device(const std::string& why) {
    stopping_ = true;
    if (tally_.device_stopped(why)) progress_.event("device stopped", why);
  }

  // What a round on one kernel tells the run, from whichever thread it runs on.
  class KernelRound final : public RoundEvents {
   public:
    KernelRound(Loop& loop, std::string kernel) : loop_(loop), kernel_(std::move(kernel)) {}
    void progress(const Node& node, const std::string& stage) override {
      std::lock_guard lock(loop_.mu_);
      loop_.progress_.step(kernel_, node, stage);
    }
    // A pause request, the spent budget or the run stopping ends the round.
    bool should_stop() override {
      std::lock_guard lock(loop_.mu_);
      return loop_.stopping_ || loop_.progress_.budget_spent() || loop_.lock_.pause_requested();
    }
    void timing_starts(const std::set<int64_t>& deciding) override {
      std::lock_guard lock(loop_.mu_);
      loop_.ask_ahead(deciding);
    }

   private:
    Loop& loop_;
    std::string kernel_;
  };

  store::Workspace& ws_;
  Proposer& proposer_;
  const OptimizeOptions& options_;
  targets::Target& target_;
  ToolchainFollower toolchain_;
  std::filesystem::path cache_;
  KernelTrees trees_{ws_, target_};
  PausableLock lock_;
  RunProgress progress_;  // after lock_: the run record goes before the lock is released
  std::mutex build_mu_;
  SerialBuilds builds_{target_, cache_, build_mu_};
  ProposalFeed feed_{proposer_, options_, target_, cache_, build_mu_};
  RunTally tally_;
  FloorRecheck floor_recheck_;
  // The run's lock: the loop's state (the tally, trees_, the rounds in flight) and the
  // workspace's connection ws_ with what uses it (the run record, the progress callback, the
  // CLI's hooks). Recursive: a round on the loop's thread reports its progress through it too.
  std::recursive_mutex mu_;
  bool stopping_ = false;       // no round starts again: budget spent, device stopped, failure
  std::exception_ptr failure_;  // a round's, rethrown once every round has ended
  // Last, so that it is destroyed first: its threads use the members above until they end.
  RoundThreads rounds_{mu_};
};

}  // namespace

OptimizeSummary optimize(store::Workspace& ws, Proposer& proposer, const OptimizeOptions& options,
                         const std::function<void(const Progress&)>& on_progress) {
  return Loop(ws, proposer, options, on_progress).run();
}

}  // namespace headway::loop
