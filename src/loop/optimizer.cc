#include "loop/optimizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "knowledge/kernel_timings.h"
#include "knowledge/workspace_target.h"
#include "loop/beam.h"
#include "loop/kernel_registration.h"
#include "loop/proposals.h"
#include "loop/round.h"
#include "loop/run_record.h"
#include "loop/workspace_pause.h"

namespace headway::loop {

namespace {

using Clock = std::chrono::steady_clock;
using trees::DesignTree;
using trees::Node;
using trees::NodeStatus;

targets::Target& target_or_throw(const OptimizeOptions& options) {
  if (!options.target) throw std::runtime_error("optimize: no target given");
  return *options.target;
}

class Loop final {
 public:
  Loop(store::Workspace& ws, Proposer& proposer, const OptimizeOptions& options,
       const std::function<void(const Progress&)>& on_progress)
      : ws_(ws),
        proposer_(proposer),
        options_(options),
        on_progress_(on_progress),
        target_(target_or_throw(options)),
        workspace_toolchain_(knowledge::workspace_toolchain(ws, target_.name())),
        cache_(ws.root() / ".headway" / "builds"),
        start_(Clock::now()),
        lock_(ws, [this](const PausableLock::Event& e) { on_pause_event(e); }) {
    if (!target_.identity().found) throw std::runtime_error(target_.identity().error);
  }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;
  // Rounds still in flight (the run failed on this thread) stop at their next candidate.
  ~Loop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    for (auto& [name, r] : in_flight_) {
      if (r.thread.joinable()) r.thread.join();
    }
  }

  OptimizeSummary run() {
    // The workspace's workspace lock is held from here to the end, except while paused.
    if (auto waited = lock_.enter()) resume(*waited);
    // Holding the lock: the run's record for other processes (run_record.h) is this one's.
    record_.emplace(ws_, options_.budget.count());
    if (auto waited = lock_.pause_if_requested()) resume(*waited);
    for (const auto& name : options_.kernels) setup(name);
    rounds();
    // Proposals asked for while the last round was timed are kept for the next run.
    collect_prefetch();
    return summary_;
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
        if (in_flight_.empty()) break;
        round_ended_.wait(lock);
        continue;
      }
      if (in_flight_.empty()) {
        collect_prefetch();  // before a pause: its proposals belong to the trees of now
        if (auto waited = lock_.pause_if_requested()) {
          resume(*waited);
          exhausted_.clear();  // a head may have fallen back: there may be new things to try
        }
      } else if (lock_.pause_requested()) {
        round_ended_.wait(lock);  // the rounds in flight stop at their next candidate
        continue;
      }
      if (budget_spent()) {
        summary_.budget_spent = true;
        stopping_ = true;
        continue;
      }
      if (static_cast<int>(in_flight_.size()) < concurrency()) {
        if (const std::string* next = next_kernel(&summary_.near_floor)) {
          start_round(*next);
          continue;
        }
        if (in_flight_.empty()) {
          summary_.proposer_stopped = proposer_.stopped();
          break;
        }
      }
      round_ended_.wait(lock);
    }
    if (failure_) std::rethrow_exception(failure_);
    next_kernel(&summary_.near_floor);  // with no round in flight left out
  }

  int concurrency() const { return std::max(1, options_.concurrent_rounds); }

  // The kernel the next round goes to: the one whose head could save the most time per decode
  // step (its head's time over its floor, in milliseconds); a kernel within done_within_floor of
  // its floor (listed in *near_floor), with nothing left to try or stopped, gets no more. Without
  // floor guidance (OptimizeOptions::floor_guidance), the kernel with the fewest rounds so far
  // (the first of them in the run's order), and none is left alone near its floor. nullptr: none.
  const std::string* next_kernel(std::vector<std::string>* near_floor = nullptr) {
    const std::string* next = nullptr;
    double most = -1.0;
    int fewest = std::numeric_limits<int>::max();
    if (near_floor) near_floor->clear();
    for (const auto& name : options_.kernels) {
      if (exhausted_.count(name) || in_flight_.count(name) || summary_.kernels_stopped.count(name))
        continue;
      if (!options_.floor_guidance) {
        if (const int rounds = rounds_started_[name]; rounds < fewest) {
          fewest = rounds;
          next = &name;
        }
        continue;
      }
      if (head_ms(name) <= options_.done_within_floor * floor_ms(name)) {
        if (near_floor) near_floor->push_back(name);
        continue;
      }
      const double saving = head_ms(name) - floor_ms(name);
      if (saving > most) {
        most = saving;
        next = &name;
      }
    }
    return next;
  }

  // Time spent paused does not count: neither against the budget nor in the elapsed time shown.
  bool budget_spent() const { return Clock::now() - start_ - paused_ >= options_.budget; }
  double elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start_ - paused_).count();
  }

  // After a pause: another process (a toolchain migration) may have changed the workspace's
  // toolchain and the heads. Trees are reopened and the workspace's toolchain is adopted when it
  // changed since this run began.
  void resume(double paused_seconds) {
    paused_ +=
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(paused_seconds));
    trees_.clear();
    figures_.clear();  // a migration may have re-measured them
    const std::string now = knowledge::workspace_toolchain(ws_, target_.name());
    std::string note = fmt::format("after {:.1f} s paused; toolchain {}", paused_seconds,
                                   target_.identity().version);
    if (now != workspace_toolchain_) {
      const std::string was = target_.identity().version;
      const targets::ToolchainInfo id = target_.select_toolchain(now);
      if (!id.found) {
        throw std::runtime_error(
            fmt::format("the workspace's new toolchain '{}': {}", target_.toolchain(), id.error));
      }
      note = fmt::format("after {:.1f} s paused; toolchain now {} ({}, was {})", paused_seconds,
                         target_.toolchain(), id.version, was);
      workspace_toolchain_ = now;
    }
    event("resumed", note);
  }

  void on_pause_event(const PausableLock::Event& e) {
    if (e.kind == PausableLock::Event::Kind::kPaused) {
      event("paused", fmt::format("by pid {}: {}", e.request.pid, e.request.reason));
    } else if (e.kind == PausableLock::Event::Kind::kStaleCleared) {
      event("stale pause", fmt::format("cleared the pause request of pid {}, which is not "
                                       "running ({})",
                                       e.request.pid, e.request.reason));
    }  // kResumed: resume() reports it, with the toolchain
  }

  // A progress line about the loop itself rather than a kernel.
  void event(const std::string& stage, const std::string& note) {
    Progress p;
    p.stage = stage;
    p.note = note;
    report(p);
  }

  void progress(const std::string& kernel, const Node& node, const std::string& stage) {
    Progress p;
    p.kernel = kernel;
    p.node = node.id;
    p.design = node.design;
    p.stage = stage;
    report(p);
  }

  // Completes p with the clock and the heads, records it and passes it on.
  void report(Progress& p) {
    p.elapsed_s = elapsed();  // one clock reading gives both figures
    p.budget_left_s = std::max(0.0, options_.budget.count() - p.elapsed_s);
    if (!record_ && !on_progress_) return;
    // The kernel of this progress may have a new head in its round in flight: read it again.
    if (!p.kernel.empty()) figures_.erase(p.kernel);
    for (const auto& name : options_.kernels) {
      if (!registered_.count(name)) continue;
      p.kernels.push_back({name, head_ms(name), floor_ms(name)});
      if (name == p.kernel) {
        p.head_ms = p.kernels.back().head_ms;
        p.floor_ms = p.kernels.back().floor_ms;
      }
    }
    if (record_) record_->update(p);
    if (on_progress_) on_progress_(p);
  }

  DesignTree& tree(const std::string& name) {
    auto it = trees_.find(name);
    if (it != trees_.end()) return it->second;
    auto opened = DesignTree::open(ws_, name);
    if (!opened) throw std::runtime_error("open tree: " + opened.error().message);
    return trees_.emplace(name, std::move(opened).value()).first->second;
  }
  // A kernel's floor, and its head's time under the current toolchain (re-measured by a
  // migration) when known, as last read: reading them takes several queries, and the loop asks
  // for every kernel's at each round it starts and each progress. A kernel's head changes only
  // in its own round, after which (and after its progress) its figures are read again, or in a
  // migration, after which all are.
  struct Figures {
    double head_ms = 0.0;
    double floor_ms = 0.0;
  };
  const Figures& figures(const std::string& name) {
    auto it = figures_.find(name);
    if (it == figures_.end()) {
      DesignTree& t = tree(name);
      it = figures_.emplace(name, Figures{head_ms_of(ws_, t), t.record().floor_ms.value_or(1.0)})
               .first;
    }
    return it->second;
  }
  double floor_ms(const std::string& name) { return figures(name).floor_ms; }
  double head_ms(const std::string& name) { return figures(name).head_ms; }
  double head_ms_of(store::Workspace& ws, const DesignTree& t) {
    return knowledge::current_head_ms(ws, t, target_.identity().id)
        .value_or(t.record().floor_ms.value_or(1.0));
  }
  const KernelContract& kernel_of(const std::string& name) {
    const KernelContract* kernel = find_kernel(name);
    if (!kernel) throw std::runtime_error(fmt::format("unknown kernel '{}'", name));
    return *kernel;
  }

  // Registers the kernel with its floor and timed baseline, once per workspace, and discards
  // what a killed run left undecided. A baseline that does not build or fails its timing stops
  // its kernel, unregistered.
  void setup(const std::string& name) {
    std::optional<DesignTree> created;
    try {
      created = register_kernel(
          ws_, target_, kernel_of(name), [this](const std::string& s) { return build(s); },
          options_.baseline_readings);
    } catch (const KernelStopped& e) {
      stop_kernel(name, e.what());
      return;
    }
    registered_.insert(name);
    if (created) {
      trees_.insert_or_assign(name, std::move(*created));
      progress(name, tree(name).root(), "baseline timed");
    }
    discard_unfinished_decisions(tree(name));
  }

  targets::BuildOutcome build(const std::string& source) { return builds_.build(source); }

  // What a proposer is told for up to `max_proposals` candidates of `t`'s kernel, read through
  // `ws`, the connection `t` uses (which must outlive the proposals' wait()).
  ProposalContext context_of(store::Workspace& ws, DesignTree& t, int max_proposals) {
    const Node head = *t.node(t.head().node_id);
    ProposalContext ctx;
    ctx.kernel = &kernel_of(t.kernel());
    ctx.head_source = t.source(head.id).value_or("");
    ctx.head_design = head.design;
    ctx.head_params = targets::params_from_json(head.params);
    ctx.already_tried = [&t](const std::string& s) { return t.find_by_source(s).has_value(); };
    ctx.max_proposals = max_proposals;
    ctx.head_ms = head_ms_of(ws, t);
    ctx.floor_ms = t.record().floor_ms;
    ctx.tried = tried_candidates(t);
    if (options_.build_target && !target_.times_on_host()) {
      ctx.prebuild = [this](const std::string& source) { prebuild(source); };
    }
    return ctx;
  }
  // The same for kernel `name` on the loop's thread, when the proposals may be waited for after a
  // pause (a prefetch): its check of what was tried goes by name, since a pause reopens the trees.
  ProposalContext context_for(const std::string& name, int max_proposals) {
    ProposalContext ctx = context_of(ws_, tree(name), max_proposals);
    ctx.already_tried = [this, name](const std::string& s) {
      return tree(name).find_by_source(s).has_value();
    };
    return ctx;
  }

  std::vector<Node> take(const std::string& name, const std::vector<Proposal>& proposals) {
    auto added = add_proposals(tree(name), proposer_, proposals);
    summary_.proposed += static_cast<int>(added.size());
    return added;
  }

  // Before the device times this round: where the proposer works in the background, asks for
  // the next round's proposals now, for the kernel the next round would go to if this round
  // changed nothing (if it does change something, they wait in that kernel's tree). `deciding`:
  // the nodes this round races and tests, still proposed until it decides them.
  void begin_prefetch(const std::set<int64_t>& deciding) {
    if (concurrency() > 1 || prefetch_ || !proposer_.works_in_background() ||
        !proposer_.stopped().empty())
      return;
    const std::string* next = next_kernel();
    if (!next) return;
    int waiting = 0;
    for (const auto& n : proposed_nodes(tree(*next))) waiting += !deciding.count(n.id);
    if (waiting >= options_.batch) return;
    prefetch_.emplace(
        Prefetch{*next, proposer_.begin(context_for(*next, options_.batch - waiting))});
  }

  // Waits for the proposals asked for ahead and stores them in their kernel's tree.
  void collect_prefetch() {
    if (!prefetch_) return;
    Prefetch p = std::move(*prefetch_);
    prefetch_.reset();
    if (!take(p.kernel, p.pending->wait()).empty()) exhausted_.erase(p.kernel);
  }

  // Builds a proposal's source on the build target while the device times (ProposalContext::
  // prebuild); one build at a time, never at the same time as the loop's own builds.
  void prebuild(const std::string& source) {
    std::lock_guard lock(build_mu_);
    try {
      options_.build_target->build(source, cache_);
    } catch (const std::exception&) {
      // The loop's own build of the source, when it screens it, reports what went wrong.
    }
  }

  // The nodes a round on `t`'s kernel decides, `ws` being the connection `t` uses: those
  // proposed earlier, then new proposals (asked for on the round's thread; an agent's may take
  // minutes).
  std::vector<Node> pending_of(store::Workspace& ws, DesignTree& t) {
    std::vector<Node> pending = proposed_nodes(t);
    if (static_cast<int>(pending.size()) >= options_.batch) return pending;
    const Node head = *t.node(t.head().node_id);
    {
      std::lock_guard lock(mu_);
      progress(t.kernel(), head, "propose");
    }
    std::vector<Node> added;
    ProposalContext ctx = context_of(ws, t, options_.batch - static_cast<int>(pending.size()));
    for (const Node& parent : parents_of(ws, t)) {
      ctx.head_source = t.source(parent.id).value_or("");
      ctx.head_design = parent.design;
      ctx.head_params = targets::params_from_json(parent.params);
      added = add_proposals(t, proposer_, proposer_.begin(ctx)->wait());
      if (!added.empty()) break;
    }
    {
      std::lock_guard lock(mu_);
      summary_.proposed += static_cast<int>(added.size());
    }
    pending.insert(pending.end(), added.begin(), added.end());
    return pending;
  }

  // The nodes a round's proposals vary, in the order asked: the head alone, or with a beam
  // (OptimizeOptions::beam) the beam's member whose turn it is (the head and the runners-up,
  // loop/beam.h, by the kernel's rounds), then the head when that one has nothing new.
  std::vector<Node> parents_of(store::Workspace& ws, DesignTree& t) {
    const Node head = *t.node(t.head().node_id);
    if (options_.beam <= 1) return {head};
    std::vector<Node> beam{head};
    for (auto& n : beam_runners_up(ws, t, options_.beam - 1)) beam.push_back(std::move(n));
    int round = 0;
    {
      std::lock_guard lock(mu_);
      round = std::max(0, rounds_started_[t.kernel()] - 1);
    }
    const Node& turn = beam[static_cast<size_t>(round) % beam.size()];
    if (turn.id == head.id) return {head};
    return {turn, head};
  }

  // One round on `name` (loop/round.h) after asking for proposals: here when rounds run one at a
  // time, else on a thread of its own with its own connection to the workspace. A kernel with
  // nothing left to try is marked exhausted.
  void start_round(const std::string& name) {
    ++rounds_started_[name];
    if (concurrency() == 1) {
      summary_.most_rounds_at_once = 1;
      try {
        tally_round(name, run_round(ws_, tree(name), options_));
      } catch (const targets::DeviceStopped& e) {
        stop_for_device(e.what());
      } catch (const KernelStopped& e) {
        stop_kernel(name, e.what());
      }
      return;
    }
    InFlight& r = in_flight_[name];
    summary_.most_rounds_at_once =
        std::max(summary_.most_rounds_at_once, static_cast<int>(in_flight_.size()));
    r.options = options_for_threads();
    r.thread = std::thread([this, &r, name, root = ws_.root()] {
      std::optional<RoundCounts> counts;
      std::exception_ptr error;
      try {
        auto ws = store::Workspace::open(root);
        if (!ws) throw std::runtime_error("open the workspace: " + ws.error().message);
        auto t = DesignTree::open(ws.value(), name);
        if (!t) throw std::runtime_error("open tree: " + t.error().message);
        counts = run_round(ws.value(), t.value(), r.options);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard lock(mu_);
      r.counts = counts;
      r.error = error;
      r.done = true;
      round_ended_.notify_all();
    });
  }

  // Joins the rounds in flight that ended and adds what they decided; the first failure stops
  // the run (a stopped device as at the end of a round here, anything else rethrown by rounds()).
  void end_rounds() {
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
      if (!it->second.done) {
        ++it;
        continue;
      }
      it->second.thread.join();
      if (!it->second.error) {
        tally_round(it->first, it->second.counts);
      } else {
        try {
          std::rethrow_exception(it->second.error);
        } catch (const targets::DeviceStopped& e) {
          stop_for_device(e.what());
        } catch (const KernelStopped& e) {
          stop_kernel(it->first, e.what());
        } catch (...) {
          if (!failure_) failure_ = std::current_exception();
          stopping_ = true;
        }
      }
      it = in_flight_.erase(it);
    }
  }

  // Proposals, then a round (loop/round.h) on `t`'s kernel through `ws`, the connection `t`
  // uses; nullopt when nothing was left to decide.
  std::optional<RoundCounts> run_round(store::Workspace& ws, DesignTree& t,
                                       const OptimizeOptions& options) {
    const std::vector<Node> pending = pending_of(ws, t);
    if (pending.empty()) return std::nullopt;
    KernelRound events(*this, t.kernel());
    return Round(ws, builds_, t, options, events).run(pending);
  }

  // What a round on `name` decided, or nullopt: it had nothing left to try.
  void tally_round(const std::string& name, const std::optional<RoundCounts>& counts) {
    ++summary_.rounds;
    figures_.erase(name);
    if (!counts) {
      exhausted_.insert(name);
      return;
    }
    const RoundCounts& c = *counts;
    summary_.tests += c.tests;
    summary_.accepted += c.accepted;
    summary_.cheated += c.cheated;
    summary_.cost_rejected += c.cost_rejected;
  }

  // Registering the kernel or a round on it found it can go no further: it gets no more rounds in
  // this run.
  void stop_kernel(const std::string& name, const std::string& why) {
    if (registered_.count(name)) ++summary_.rounds;
    figures_.erase(name);
    summary_.kernels_stopped[name] = why;
    event("kernel stopped", fmt::format("{}: {}", name, why));
  }

  void stop_for_device(const std::string& why) {
    stopping_ = true;
    if (!summary_.device_stopped.empty()) return;  // another round's device stopped first
    summary_.device_stopped = why;
    event("device stopped", why);
  }

  // The options of a round on another thread: the CLI's hooks use this run's connection, so they
  // are called holding the run's lock.
  OptimizeOptions options_for_threads() {
    OptimizeOptions o = options_;
    if (o.lint) {
      o.lint = [this](const std::string& source) {
        std::lock_guard lock(mu_);
        return options_.lint(source);
      };
    }
    if (o.on_screen_failure) {
      o.on_screen_failure = [this](const std::string& kernel, int64_t node) {
        std::lock_guard lock(mu_);
        options_.on_screen_failure(kernel, node);
      };
    }
    return o;
  }

  // What a round on one kernel tells the run, from whichever thread it runs on.
  class KernelRound final : public RoundEvents {
   public:
    KernelRound(Loop& loop, std::string kernel) : loop_(loop), kernel_(std::move(kernel)) {}
    void progress(const Node& node, const std::string& stage) override {
      std::lock_guard lock(loop_.mu_);
      loop_.progress(kernel_, node, stage);
    }
    // A pause request, the spent budget or the run stopping ends the round.
    bool should_stop() override {
      std::lock_guard lock(loop_.mu_);
      return loop_.stopping_ || loop_.budget_spent() || loop_.lock_.pause_requested();
    }
    void timing_starts(const std::set<int64_t>& deciding) override {
      std::lock_guard lock(loop_.mu_);
      loop_.begin_prefetch(deciding);
    }

   private:
    Loop& loop_;
    std::string kernel_;
  };

  store::Workspace& ws_;
  Proposer& proposer_;
  const OptimizeOptions& options_;
  std::function<void(const Progress&)> on_progress_;
  targets::Target& target_;
  std::string workspace_toolchain_;  // the workspace's toolchain spec (meta) as last seen
  std::filesystem::path cache_;
  Clock::time_point start_;
  std::map<std::string, Figures> figures_;  // figures()
  Clock::duration paused_{};
  PausableLock lock_;
  std::map<std::string, DesignTree> trees_;
  std::set<std::string> registered_;           // kernels of this run set up so far
  std::set<std::string> exhausted_;            // kernels whose proposer had nothing left to try
  std::map<std::string, int> rounds_started_;  // by kernel
  struct Prefetch {
    std::string kernel;
    std::unique_ptr<PendingProposals> pending;
  };
  std::optional<Prefetch> prefetch_;  // the next round's proposals, asked for while timing
  std::mutex build_mu_;
  SerialBuilds builds_{target_, cache_, build_mu_};
  std::optional<RunRecorder> record_;  // from the moment the lock is held
  OptimizeSummary summary_;
  // The run's lock: the loop's state (the summary, trees_, the rounds in flight) and the
  // workspace's connection ws_ with what uses it (the run record, the progress callback, the
  // CLI's hooks). Recursive: a round on the loop's thread reports its progress through it too.
  std::recursive_mutex mu_;
  std::condition_variable_any round_ended_;
  struct InFlight {
    OptimizeOptions options;
    std::thread thread;
    bool done = false;
    std::optional<RoundCounts> counts;  // none: nothing left to try
    std::exception_ptr error;
  };
  std::map<std::string, InFlight> in_flight_;  // by kernel
  bool stopping_ = false;       // no round starts again: budget spent, device stopped, failure
  std::exception_ptr failure_;  // a round's, rethrown once every round has ended
};

}  // namespace

OptimizeSummary optimize(store::Workspace& ws, Proposer& proposer, const OptimizeOptions& options,
                         const std::function<void(const Progress&)>& on_progress) {
  return Loop(ws, proposer, options, on_progress).run();
}

}  // namespace headway::loop
