#include "loop/optimizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>

#include "knowledge/facts.h"
#include "knowledge/kernel_timings.h"
#include "loop/kernel_floors.h"
#include "loop/optimize_pause.h"
#include "loop/run_record.h"
#include "loop/screen_calibration.h"
#include "measure/betting_rule.h"
#include "measure/calibration.h"
#include "measure/effect_estimate.h"
#include "measure/racing.h"
#include "search/decision_log.h"
#include "search/design_tree.h"

namespace headway::loop {

namespace {

using Clock = std::chrono::steady_clock;
using search::DecisionLog;
using search::DesignTree;
using search::Node;
using search::NodeStatus;

template <typename T>
T must(store::Result<T> r, const char* what) {
  if (!r) throw std::runtime_error(fmt::format("{}: {}", what, r.error().message));
  return std::move(r).value();
}

constexpr const char* kDeviceActivities[] = {"screen", "timed",        "warm_up", "process_start",
                                             "guard",  "verification", "inputs",  "other"};

void add_activity_seconds(store::Workspace& ws, const std::string& kernel,
                          const std::string& activity, double seconds) {
  const std::string key = "device_seconds." + kernel + "." + activity;
  const auto v = ws.meta(key);
  ws.set_meta(key, fmt::format("{:.6f}", (v ? std::stod(*v) : 0.0) + seconds));
}

// Adds `seconds` of wall time to the kernel's device time; `accounting` (a device's or session's,
// null when it has none) splits it by activity, and what it does not cover counts as "other".
void add_device_seconds(store::Workspace& ws, const std::string& kernel, double seconds,
                        const std::string& activity, const nlohmann::json& accounting = nullptr) {
  ws.set_meta("device_seconds." + kernel,
              fmt::format("{:.6f}", device_seconds(ws, kernel) + seconds));
  if (!accounting.is_object()) {
    add_activity_seconds(ws, kernel, activity, seconds);
    return;
  }
  double covered = 0.0;
  for (const char* a : kDeviceActivities) {
    const double v = accounting.value(std::string(a) + "_seconds", 0.0);
    if (v <= 0.0) continue;
    add_activity_seconds(ws, kernel, a, v);
    covered += v;
  }
  if (seconds > covered) add_activity_seconds(ws, kernel, "other", seconds - covered);
}

// Reports every reading of a test into the decision log as it is taken.
class LogSink final : public measure::ReadingSink {
 public:
  LogSink(DecisionLog& log, int64_t test, int64_t head, int64_t candidate)
      : log_(log), test_(test), head_(head), candidate_(candidate) {}
  void record(const measure::Reading& r) override {
    search::TestReading t;
    t.node_id = r.arm == measure::Arm::kHead ? head_ : candidate_;
    t.pair_index = r.pair_index;
    t.position = r.position;
    t.start_ns = r.start_ns;
    t.seconds = r.seconds;
    t.clock = r.clock;
    if (auto s = log_.record_reading(test_, t); !s) throw std::runtime_error(s.error().message);
  }

 private:
  DecisionLog& log_;
  int64_t test_, head_, candidate_;
};

// The kernel's decided candidates, most recently decided first (ProposalContext::tried).
std::vector<TriedCandidate> tried_candidates(const DesignTree& t) {
  std::vector<search::Node> decided;
  for (auto& n : t.nodes()) {
    if (n.kind != search::NodeKind::kBaseline && n.status != NodeStatus::kProposed)
      decided.push_back(std::move(n));
  }
  std::stable_sort(
      decided.begin(), decided.end(), [](const search::Node& a, const search::Node& b) {
        return a.updated_at != b.updated_at ? a.updated_at > b.updated_at : a.id > b.id;
      });
  std::vector<TriedCandidate> out;
  for (const auto& n : decided) {
    if (out.size() == ProposalContext::kMaxTried) break;
    out.push_back({n.design, n.proposer, std::string(search::to_string(n.status)), n.reason});
  }
  return out;
}

targets::Target& target_or_throw(const OptimizeOptions& options) {
  if (!options.target) throw std::runtime_error("optimize: no target given");
  return *options.target;
}

class Loop {
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
        gate_(ws, [this](const OptimizerGate::Event& e) { on_gate(e); }) {
    if (!target_.identity().found) throw std::runtime_error(target_.identity().error);
  }

  OptimizeSummary run() {
    // The workspace's optimize lock is held from here to the end, except while paused.
    if (auto waited = gate_.enter()) resume(*waited);
    // Holding the lock: the run's record for other processes (run_record.h) is this one's.
    record_.emplace(ws_, options_.budget.count());
    if (auto waited = gate_.pause_if_requested()) resume(*waited);
    for (const auto& name : options_.kernels) setup(name);
    rounds();
    // Proposals asked for while the last round was timed are kept for the next run.
    collect_prefetch();
    return summary_;
  }

 private:
  void rounds() {
    for (;;) {
      collect_prefetch();  // before a pause: its proposals belong to the trees of now
      if (auto waited = gate_.pause_if_requested()) {
        resume(*waited);
        exhausted_.clear();  // a head may have fallen back: there may be new things to try
      }
      if (budget_spent()) {
        summary_.budget_spent = true;
        return;
      }
      const std::string* next = next_kernel(&summary_.near_floor);
      if (!next) {
        summary_.proposer_stopped = proposer_.stopped();
        return;
      }
      try {
        if (!round(*next)) exhausted_.insert(*next);
      } catch (const targets::DeviceStopped& e) {
        summary_.device_stopped = e.what();
        event("device stopped", e.what());
        return;
      }
      ++summary_.rounds;
    }
  }

  // The kernel the next round goes to: the one whose head could save the most time per decode
  // step (its head's time over its floor, in milliseconds); a kernel within done_within_floor of
  // its floor (listed in *near_floor), or with nothing left to try, gets no more. nullptr: none.
  const std::string* next_kernel(std::vector<std::string>* near_floor = nullptr) {
    const std::string* next = nullptr;
    double most = -1.0;
    if (near_floor) near_floor->clear();
    for (const auto& name : options_.kernels) {
      if (exhausted_.count(name)) continue;
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
  // The budget left after elapsed_s seconds of the run; one clock reading gives both figures.
  double budget_left(double elapsed_s) const {
    return std::max(0.0, options_.budget.count() - elapsed_s);
  }

  // After a pause: another process (a toolchain migration) may have changed the workspace's
  // toolchain and the heads. Trees are reopened and the workspace's toolchain is adopted when it
  // changed since this run began.
  void resume(double paused_seconds) {
    paused_ +=
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(paused_seconds));
    trees_.clear();
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

  void on_gate(const OptimizerGate::Event& e) {
    switch (e.kind) {
      case OptimizerGate::Event::Kind::kPaused:
        event("paused", fmt::format("by pid {}: {}", e.request.pid, e.request.reason));
        break;
      case OptimizerGate::Event::Kind::kResumed:
        break;  // resume() reports it, with the toolchain
      case OptimizerGate::Event::Kind::kStaleCleared:
        event("stale pause",
              fmt::format("cleared the pause request of pid {}, which is not running ({})",
                          e.request.pid, e.request.reason));
        break;
    }
  }

  // A progress line about the loop itself rather than a kernel.
  void event(const std::string& stage, const std::string& note) {
    Progress p;
    p.stage = stage;
    p.note = note;
    report(p);
  }

  // Completes p with the clock and the heads, records it and passes it on.
  void report(Progress& p) {
    p.elapsed_s = elapsed();
    p.budget_left_s = budget_left(p.elapsed_s);
    if (!record_ && !on_progress_) return;
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
    if (it == trees_.end())
      it = trees_.emplace(name, must(DesignTree::open(ws_, name), "open tree")).first;
    return it->second;
  }
  double floor_ms(const std::string& name) { return tree(name).record().floor_ms.value_or(1.0); }
  // The head's time under the current toolchain (re-measured by a migration) when known.
  double head_ms(const std::string& name) {
    return knowledge::current_head_ms(ws_, tree(name), target_.identity().id)
        .value_or(floor_ms(name));
  }

  void progress(const std::string& kernel, int64_t node, const std::string& design,
                const std::string& stage) {
    Progress p;
    p.kernel = kernel;
    p.node = node;
    p.design = design;
    p.stage = stage;
    report(p);
  }

  // Registers the kernel with its floor and timed baseline, once per workspace.
  void setup(const std::string& name) {
    const KernelContract* kernel = find_kernel(name);
    if (!kernel) throw std::runtime_error(fmt::format("unknown kernel '{}'", name));
    bool known = false;
    for (const auto& k : DesignTree::kernels(ws_)) known |= k.name == name;
    if (!known) {
      const double floor =
          target_.floors(*kernel, load_or_measure_floor_facts(ws_, target_)).memory_ms;
      const std::string source = target_.baseline_source(*kernel);
      const auto built = build(source);
      if (!built.built()) {
        throw std::runtime_error(
            fmt::format("the {} baseline does not build: {}", name, built.diagnostics));
      }
      const auto timing =
          target_.time_side_by_side(*kernel, {built.artifact}, options_.baseline_readings, 1)
              .front();
      if (!timing.ok())
        throw std::runtime_error(fmt::format("the {} baseline {}", name, timing.failure));
      const double baseline = timing.median_seconds * 1e3;
      search::KernelRecord record{name, target_.name(), floor, baseline, ""};
      trees_.emplace(
          name, must(DesignTree::create(ws_, record, source, nlohmann::json::object(), baseline),
                     "register kernel"));
      registered_.insert(name);
      progress(name, tree(name).root().id, "baseline", "baseline timed");
    }
    registered_.insert(name);
    DecisionLog log(tree(name));
    log.abandon_unfinished_tests();
  }

  targets::Artifact artifact_of(const KernelContract& kernel, const std::string& source) {
    const auto built = build(source);
    if (!built.built()) {
      throw std::runtime_error(fmt::format("{}: a source that built before no longer builds: {}",
                                           kernel.name(), built.diagnostics));
    }
    return built.artifact;
  }

  // The kernel's nodes still proposed (left by a killed run or asked for ahead), oldest first.
  std::vector<Node> proposed_nodes(DesignTree& t) {
    std::vector<Node> out;
    const int64_t head = t.head().node_id;
    for (auto& n : t.nodes()) {
      if (n.status == NodeStatus::kProposed && n.id != head) out.push_back(std::move(n));
    }
    return out;
  }

  // What a proposer is told for up to `max_proposals` candidates of kernel `name`.
  ProposalContext context_for(const std::string& name, int max_proposals) {
    DesignTree& t = tree(name);
    const Node head = *t.node(t.head().node_id);
    ProposalContext ctx;
    ctx.kernel = find_kernel(name);
    ctx.head_source = t.source(head.id).value_or("");
    ctx.head_design = head.design;
    ctx.head_params = params_from_json(head.params);
    // By name: the trees are reopened after a pause, and a prefetch's check comes later.
    ctx.already_tried = [this, name](const std::string& s) {
      return tree(name).find_by_source(s).has_value();
    };
    ctx.max_proposals = max_proposals;
    ctx.head_ms = head_ms(name);
    ctx.floor_ms = t.record().floor_ms;
    ctx.tried = tried_candidates(t);
    if (options_.build_target && !target_.times_on_host()) {
      ctx.prebuild = [this](const std::string& source) { prebuild(source); };
    }
    return ctx;
  }

  // Stores proposals as nodes of t; the new ones (not duplicates), in order.
  std::vector<Node> add_proposals(DesignTree& t, const std::vector<Proposal>& proposals) {
    std::vector<Node> added_nodes;
    for (const auto& p : proposals) {
      search::NewNode n;
      n.design = p.design;
      n.params = nlohmann::json(p.params);
      n.source = p.source;
      n.proposer = p.proposer.empty() ? proposer_.name() : p.proposer;
      n.kind = search::NodeKind::kDesign;
      if (!p.parent_source.empty()) {
        if (auto parent = t.find_by_source(p.parent_source)) {
          n.kind = search::NodeKind::kVariant;
          n.parent_id = parent->id;
        }
      }
      const auto added = must(t.add(n), "add node");
      if (p.agent_call) proposer_.proposed(added.node.id, *p.agent_call, added.duplicate);
      if (!added.duplicate) {
        added_nodes.push_back(added.node);
        ++summary_.proposed;
      }
    }
    return added_nodes;
  }

  // Before the device times this round: where the proposer works in the background, asks for
  // the next round's proposals now, for the kernel the next round would go to if this round
  // changed nothing (if it does change something, they wait in that kernel's tree). `deciding`:
  // the nodes this round races and tests, still proposed until it decides them.
  void begin_prefetch(const std::set<int64_t>& deciding) {
    if (prefetch_ || !proposer_.works_in_background() || !proposer_.stopped().empty()) return;
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
    if (!add_proposals(tree(p.kernel), p.pending->wait()).empty()) exhausted_.erase(p.kernel);
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

  targets::BuildOutcome build(const std::string& source) {
    std::lock_guard lock(build_mu_);
    return target_.build(source, cache_);
  }

  // One round on one kernel; false when the kernel has nothing left to try.
  bool round(const std::string& name) {
    const KernelContract& kernel = *find_kernel(name);
    DesignTree& t = tree(name);
    const Node head = *t.node(t.head().node_id);
    // Nodes proposed earlier come first; then new proposals.
    std::vector<Node> pending = proposed_nodes(t);
    if (static_cast<int>(pending.size()) < options_.batch) {
      // Proposing may take minutes (an agent): shown as the current step, on the head.
      progress(name, head.id, head.design, "propose");
      const ProposalContext ctx =
          context_for(name, options_.batch - static_cast<int>(pending.size()));
      for (auto& n : add_proposals(t, proposer_.begin(ctx)->wait())) pending.push_back(n);
    }
    if (pending.empty()) return false;

    struct Survivor {
      Node node;
      targets::Artifact artifact;
      std::optional<double> predicted_pct;  // the static cost's predicted gain over the head
    };
    std::vector<Survivor> survivors;
    for (const auto& n : pending) {
      // A pause request ends the round: the rest stay proposed and come first next round.
      if (budget_spent() || gate_.pause_requested()) return true;
      progress(name, n.id, n.design, "screen");
      const auto source = t.source(n.id);
      const ScreenResult s = [&] {
        std::lock_guard lock(build_mu_);
        return screen_candidate(kernel, source.value_or(""), target_, cache_, options_.lint);
      }();
      add_device_seconds(ws_, name, s.seconds, "screen");
      if (s.passed) {
        survivors.push_back({n, s.artifact, std::nullopt});
      } else {
        must(t.set_status(n.id, s.status, s.reason, s.evidence), "record screen");
        if (options_.on_screen_failure) options_.on_screen_failure(name, n.id);
      }
    }
    if (survivors.empty()) return true;
    // The static cost, where the target has one: predicted effects, and the screen by them.
    std::optional<targets::Artifact> head_artifact;
    if (target_.static_cost(survivors.front().artifact)) {
      head_artifact = artifact_of(kernel, t.source(head.id).value_or(""));
      survivors = screen_by_static_cost(t, *head_artifact, std::move(survivors));
      if (survivors.empty()) return true;
    }

    // The device times from here to the end of the round.
    std::set<int64_t> deciding;
    for (const auto& s : survivors) deciding.insert(s.node.id);
    begin_prefetch(deciding);
    size_t winner = 0;
    if (survivors.size() > 1) {
      progress(name, survivors[0].node.id, survivors[0].node.design,
               fmt::format("race of {}", survivors.size()));
      const auto race_start = Clock::now();
      // Every survivor runs over the same inputs: equal terms for the ranking.
      std::vector<targets::Artifact> artifacts;
      for (const auto& s : survivors) artifacts.push_back(s.artifact);
      // With a static cost the head runs in the race too (not ranked), for the calibration.
      if (head_artifact) artifacts.push_back(*head_artifact);
      auto session = target_.start_session(kernel, artifacts, 1);
      if (!session) throw std::runtime_error("cannot start the race: " + session.error().message);
      std::vector<std::optional<std::string>> cheated(survivors.size());
      measure::RaceConfig rc;
      rc.initial_readings = options_.race_initial_readings;
      rc.budget = std::max<int64_t>(options_.race_budget,
                                    static_cast<int64_t>(survivors.size()) * rc.initial_readings);
      auto raced = measure::race(static_cast<int>(survivors.size()), rc, [&](int i) {
        auto& why = cheated[static_cast<size_t>(i)];
        if (why) return std::numeric_limits<double>::infinity();
        const auto r = session.value()->reading(i);
        if (r.ok()) return r.value();
        why = r.error().message;
        return std::numeric_limits<double>::infinity();
      });
      if (auto breach = session.value()->verify_arms();
          breach && breach->arm < static_cast<int>(survivors.size())) {
        cheated[static_cast<size_t>(breach->arm)] = breach->reason;
      }
      for (size_t i = 0; i < survivors.size(); ++i) {
        if (!cheated[i]) continue;
        disqualify(t, survivors[i].node, *cheated[i]);
      }
      add_device_seconds(ws_, name,
                         std::chrono::duration<double>(Clock::now() - race_start).count(), "other",
                         session.value()->accounting());
      if (!raced) throw std::runtime_error(raced.error().message);
      if (head_artifact) {
        record_race_calibration(name, head, survivors, raced.value().medians, *session.value(),
                                cheated);
      }
      winner = static_cast<size_t>(raced.value().ranking.front());
      if (cheated[winner]) return true;  // every survivor was disqualified
      for (size_t i = 0; i < survivors.size(); ++i) {
        if (i == winner || cheated[i]) continue;
        const double ms = raced.value().medians[i] * 1e3;
        must(t.set_status(survivors[i].node.id, NodeStatus::kRacedOut,
                          fmt::format("lost the race: median {:.3f} ms vs winner {:.3f} ms", ms,
                                      raced.value().medians[winner] * 1e3),
                          {{"race_median_ms", ms}}),
             "record race");
      }
    }
    accept_or_reject(kernel, t, head, survivors[winner].node, survivors[winner].artifact,
                     survivors[winner].predicted_pct);
    return true;
  }

  // Predicts each survivor's effect from its static cost against the head's; while the screen
  // calibration trusts the static cost, a survivor predicted slower than the head by more than
  // options_.static_cost_reject_pct is not raced. Returns the survivors left.
  template <typename S>
  std::vector<S> screen_by_static_cost(DesignTree& t, const targets::Artifact& head_artifact,
                                       std::vector<S> survivors) {
    const auto head_cost = target_.static_cost(head_artifact);
    if (!head_cost || *head_cost <= 0) return survivors;
    const bool trusted = static_cost_trusted(summarize_calibration(ws_, t.kernel()));
    std::vector<S> kept;
    for (auto& s : survivors) {
      const auto cost = target_.static_cost(s.artifact);
      if (cost) s.predicted_pct = 100.0 * (1.0 - *cost / *head_cost);
      if (trusted && s.predicted_pct && *s.predicted_pct < -options_.static_cost_reject_pct) {
        must(t.set_status(s.node.id, NodeStatus::kRacedOut,
                          fmt::format("screened out by static cost: {:g} against the head's {:g} "
                                      "predicts {:.1f}% slower",
                                      *cost, *head_cost, -*s.predicted_pct),
                          {{"static_cost", *cost},
                           {"head_static_cost", *head_cost},
                           {"predicted_pct", *s.predicted_pct}}),
             "record static-cost screen");
        ++summary_.cost_rejected;
        progress(t.kernel(), s.node.id, s.node.design, "static cost: not raced");
        continue;
      }
      kept.push_back(std::move(s));
    }
    return kept;
  }

  // The race's calibration points: each survivor's median against the head's (the last arm of
  // the session), for every survivor with a predicted effect and a median.
  template <typename S>
  void record_race_calibration(const std::string& name, const Node& head,
                               const std::vector<S>& survivors, const std::vector<double>& medians,
                               targets::Session& session,
                               const std::vector<std::optional<std::string>>& cheated) {
    const int head_arm = static_cast<int>(survivors.size());
    std::vector<double> head_readings;
    try {
      for (int i = 0; i < options_.race_initial_readings; ++i) {
        const auto r = session.reading(head_arm);
        if (!r) return;  // the head failed in the race: no calibration from it
        head_readings.push_back(r.value());
      }
    } catch (const targets::DeviceStopped&) {
      return;  // no calibration from this race; the next use of the device ends the run
    }
    std::sort(head_readings.begin(), head_readings.end());
    const double head_median = head_readings[head_readings.size() / 2];
    for (size_t i = 0; i < survivors.size(); ++i) {
      if (!survivors[i].predicted_pct || cheated[i] || !std::isfinite(medians[i]) ||
          medians[i] <= 0)
        continue;
      record_calibration(
          ws_, {name, survivors[i].node.id, head.id, target_.identity().id,
                *survivors[i].predicted_pct, 100.0 * (1.0 - medians[i] / head_median), "race"});
    }
  }

  // Marks a candidate that broke a rule of timing; it is never a head nor a parent.
  void disqualify(DesignTree& t, const Node& node, const std::string& reason) {
    must(t.set_status(node.id, NodeStatus::kCheated, reason, {{"reason", reason}}), "record cheat");
    ++summary_.cheated;
    progress(t.kernel(), node.id, node.design, "cheated: " + reason);
  }

  void accept_or_reject(const KernelContract& kernel, DesignTree& t, const Node& head,
                        const Node& candidate, const targets::Artifact& candidate_artifact,
                        std::optional<double> predicted_pct) {
    const std::string name(kernel.name());
    progress(name, candidate.id, candidate.design, "acceptance test");
    const auto test_start = Clock::now();
    const auto head_artifact = artifact_of(kernel, t.source(head.id).value_or(""));
    auto paired = target_.paired_device(kernel, head_artifact, candidate_artifact,
                                        static_cast<uint64_t>(candidate.id));
    if (!paired) throw std::runtime_error(paired.error().message);
    measure::PairedDevice* device = paired.value().get();
    auto s0 = measure::estimate_s0(*device, 10);
    measure::BettingConfig config;
    config.alpha = options_.alpha;
    config.cap = options_.cap;
    config.s0 = s0 ? s0.value() : 0.02;
    config.adapt_s0 = true;  // the warm-up's estimate is a prior the test's pairs update
    measure::BettingRule rule(config);
    DecisionLog log(t);
    const int64_t test = must(log.begin_test(candidate.id, "betting"), "begin test");
    LogSink sink(log, test, head.id, candidate.id);
    Rng coin(mix_seed(static_cast<uint64_t>(test), measure::kCoinStream));
    const measure::PairLabel label{name, std::to_string(candidate.id), test, 0};
    measure::DecisionRecord record;
    try {
      record = measure::run_decision(*device, rule, coin, label, sink);
      device->verify_arms();  // before the outcome counts: a wrong timed call voids it
    } catch (const targets::DeviceStopped&) {
      log.abandon_unfinished_tests();  // nothing measured after the stop counts
      throw;
    } catch (const measure::ArmDisqualified& e) {
      if (e.arm() == measure::Arm::kHead)
        throw std::runtime_error(
            fmt::format("the head of {} failed under timing: {}", name, e.what()));
      log.abandon_unfinished_tests();
      disqualify(t, candidate, e.what());
      add_device_seconds(ws_, name,
                         std::chrono::duration<double>(Clock::now() - test_start).count(), "other",
                         device->accounting());
      return;
    }
    const auto effect = measure::estimate_effect(record.d);
    search::TestDecision decision;
    decision.outcome = record.outcome;
    decision.pairs = static_cast<int64_t>(record.d.size());
    decision.effect_pct = -effect.median_pct;
    decision.ci_low = -effect.upper_pct;
    decision.ci_high = -effect.lower_pct;
    decision.note =
        measure::early_stop_note(record.outcome, static_cast<int>(record.d.size()), config.cap);
    decision.rule_config = measure::to_json(config);
    must(log.finish_test(test, decision), "finish test");
    if (predicted_pct) {
      record_calibration(ws_, {name, candidate.id, head.id, target_.identity().id, *predicted_pct,
                               -effect.median_pct, "test"});
    }
    add_device_seconds(ws_, name, std::chrono::duration<double>(Clock::now() - test_start).count(),
                       "other", device->accounting());
    ++summary_.tests;
    if (record.outcome == measure::Outcome::kFaster) ++summary_.accepted;
    progress(name, candidate.id, candidate.design, std::string(measure::to_string(record.outcome)));
  }

  store::Workspace& ws_;
  Proposer& proposer_;
  const OptimizeOptions& options_;
  std::function<void(const Progress&)> on_progress_;
  targets::Target& target_;
  std::string workspace_toolchain_;  // the workspace's toolchain spec (meta) as last seen
  std::filesystem::path cache_;
  Clock::time_point start_;
  Clock::duration paused_{};
  OptimizerGate gate_;
  std::map<std::string, DesignTree> trees_;
  std::set<std::string> registered_;  // kernels of this run set up so far
  std::set<std::string> exhausted_;   // kernels whose proposer had nothing left to try
  struct Prefetch {
    std::string kernel;
    std::unique_ptr<PendingProposals> pending;
  };
  std::optional<Prefetch> prefetch_;  // the next round's proposals, asked for while timing
  std::mutex build_mu_;
  std::optional<RunRecorder> record_;  // from the moment the lock is held
  OptimizeSummary summary_;
};

}  // namespace

std::map<std::string, double> device_seconds_split(store::Workspace& ws,
                                                   const std::string& kernel) {
  std::map<std::string, double> out;
  for (const char* a : kDeviceActivities) {
    if (const auto v = ws.meta("device_seconds." + kernel + "." + a)) out[a] = std::stod(*v);
  }
  return out;
}

double device_seconds(store::Workspace& ws, const std::string& kernel) {
  const auto v = ws.meta("device_seconds." + kernel);
  return v ? std::stod(*v) : 0.0;
}

OptimizeSummary optimize(store::Workspace& ws, Proposer& proposer, const OptimizeOptions& options,
                         const std::function<void(const Progress&)>& on_progress) {
  return Loop(ws, proposer, options, on_progress).run();
}

}  // namespace headway::loop
