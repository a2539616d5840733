#include "targets/cpu/timed_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <tuple>

#include "common/elapsed.h"
#include "common/stats.h"
#include "kernels/verify.h"
#include "targets/cpu/host_abi.h"
#include "targets/cpu/idle_breach.h"
#include "targets/cpu/preparing_threads.h"

namespace headway::cpu {

namespace {

using Clock = std::chrono::steady_clock;
// CPU a child may use in its life beyond its calls' wall time times the cores: loading, the
// empty call, and the scheduler's accounting granularity.
constexpr double kCpuAllowanceSeconds = 0.05;
// How long a child polls for the request that follows its ping, its warm-up and timed calls.
constexpr int kNextWithinUs = 2000;
// How long a child may take to stop when headway prepares its timed calls.
constexpr double kPauseTimeoutSeconds = 1.0;

}  // namespace

std::string SessionReading::failure() const {
  return cheat ? cheat->reason : call.describe() + " during a timed reading";
}

std::unique_ptr<TimedSession> TimedSession::start(const KernelContract& kernel,
                                                  const std::vector<std::filesystem::path>& objects,
                                                  const SessionOptions& options,
                                                  CallResult* failure) {
  const auto t0 = Clock::now();
  std::unique_ptr<TimedSession> session(new TimedSession(kernel, options));
  std::random_device entropy;
  session->secret_ = Rng((uint64_t{entropy()} << 32) ^ entropy());
  const size_t set_bytes = InputSets::input_block_bytes(kernel);
  const int window = 1 + max_calls_per_reading(set_bytes, InputSets::slot_bytes_of(kernel));
  // As many draws as the longest reading uses sets: a reading's window of consecutive sets
  // then holds a different draw in every set.
  session->inputs_ = shared_input_sets(
      kernel, options.seed, input_sets_for(set_bytes, options.cold_bytes, window), window);
  session->next_window_ =
      static_cast<int>(session->secret_.below(static_cast<uint64_t>(session->inputs_->count())));
  RunnerSpec spec;
  spec.kernel = &kernel;
  spec.inputs = &session->inputs_->memory();
  spec.set_bytes = session->inputs_->set_bytes();
  spec.sets = session->inputs_->count();
  spec.objects = objects;
  spec.limits = options.limits;
  for (size_t arm = 0; arm < objects.size(); ++arm) {
    session->writable_.push_back(shared_writable_block(*session->inputs_, window - 1));
    session->slots_as_made_.emplace_back(
        session->writable_.back()->size() / session->inputs_->slot_bytes(), false);
    spec.writable.push_back(session->writable_.back().get());
    session->whole_keys_.push_back(whole_reading_key(kernel, objects[arm], options.one_core));
  }
  session->host_ = RunnerHost::start(spec, failure);
  if (!session->host_) return nullptr;
  session->costs_.inputs = seconds_since(t0);
  session->costs_.input_bytes = static_cast<double>(session->inputs_->memory().size());
  session->costs_.input_huge_page_share = session->inputs_->memory().huge_page_share();
  session->probe();
  return session;
}

void TimedSession::probe() {
  double fastest = 0.0;
  for (int arm = 0; arm < arms(); ++arm) {
    SessionReading first = reading(arm);
    if (!first.ok()) {
      probe_failures_.emplace(arm, std::move(first));
    } else if (fastest == 0.0 || first.call.seconds < fastest) {
      fastest = first.call.seconds;
    }
  }
  if (fastest == 0.0) return;  // every arm failed: each reads its failure next
  calls_per_reading_ = calls_per_reading_for(options_.timed_per_reading, fastest,
                                             inputs_->set_bytes(), inputs_->slot_bytes());
}

std::pair<int, int> TimedSession::next_sets() const {
  const int window = 1 + calls_per_reading_;
  return {window * (next_window_ % (inputs_->count() / window)), window};
}

std::byte* TimedSession::slot(int arm, int k) const {
  return writable_[static_cast<size_t>(arm)]->data() +
         inputs_->slot_bytes() * static_cast<size_t>(k);
}

SessionReading TimedSession::reading(int arm, Inputs inputs) {
  std::optional<LastReading> same;
  if (inputs == Inputs::kAsLastReading && last_ && last_->arm != arm &&
      last_->patches.size() == static_cast<size_t>(calls_per_reading_)) {
    same = std::move(last_);
  }
  last_.reset();
  if (const auto failed = probe_failures_.find(arm); failed != probe_failures_.end()) {
    SessionReading probed = std::move(failed->second);
    probe_failures_.erase(failed);
    return probed;
  }
  SessionReading out;
  const int calls = calls_per_reading_;
  ConfirmingWindow* confirming =
      inputs == Inputs::kConfirming ? &next_confirming_window() : nullptr;
  const auto [first, window] = same         ? std::pair{same->first, 1 + calls}
                               : confirming ? std::pair{confirming->first, 1 + calls}
                                            : next_sets();
  if (!same && !confirming) ++next_window_;
  copy_out_kept(arm);
  // Nothing an earlier process of this arm left in its slots reaches this one.
  const auto reset_started = Clock::now();
  const SharedMemory& block = *writable_[static_cast<size_t>(arm)];
  std::vector<bool>& as_made = slots_as_made_[static_cast<size_t>(arm)];
  for_each_call(static_cast<int>(as_made.size()), [&](int k) {
    if (!as_made[static_cast<size_t>(k)])
      inputs_->reset_writable_slot(block, static_cast<size_t>(k));
  });
  inputs_->reset_writable_tail(block);
  std::fill(as_made.begin(), as_made.end(), false);
  costs_.guard.reset += seconds_since(reset_started);
  // A warm-up call first, unless this arm's first child showed it needs none: it ran on one
  // thread (no thread pool to start), or on no threads but the harness's, which the runner then
  // starts before the timed request (the ping after the resume below). Either way its first call
  // can be timed.
  const bool on_harness = harness_only_.count(arm) > 0;
  const bool warm_up = !single_threaded_.count(arm) && !on_harness;
  auto t = Clock::now();
  auto child = host_->spawn(arm, warm_up ? first : first + 1, warm_up ? window : calls, &out.call,
                            options_.one_core);
  if (!child) return out;
  const CallResult ping = child->ping(kNextWithinUs);
  if (!ping.ok()) {
    out.call = ping;
    return out;
  }
  round_trips_.push_back(ping.seconds);
  costs_.process_start += seconds_since(t);

  CallResult warm;
  // Wall time in which the harness's workers may spin outside a call: from the warm-up's reply
  // to the stop, and from the resume to the timed request. Their CPU then is headway's, so the
  // life's CPU check below allows for it.
  double hot_seconds = 0.0;
  if (warm_up) {
    // Its workers, if it starts the harness's, stay hot through the stop below, so that the
    // timed request does not wait for them to wake.
    warm = child->call(first, kNextWithinUs, 1, /*hot_workers=*/true);
    costs_.warm_up += warm.seconds;
    if (!warm.ok()) {
      out.call = warm;
      return out;
    }
  }
  // The child is stopped while every timed set is patched, its slot poisoned and all its lines
  // flushed from the caches: no candidate code runs from the end of the warm-up (or of loading)
  // to the timed request, so none can work on a timed call's inputs early or bring them into a
  // cache. The one request then runs all timed calls back to back, leaving no gap between them
  // for work outside a call. A ping after the child resumes has it polling for the request, and
  // the harness's workers spinning until its reply, so that no core the kernel uses is asleep
  // when it comes.
  GuardCosts& guard = costs_.guard;
  t = Clock::now();
  const bool paused = child->pause(kPauseTimeoutSeconds);
  guard.pause += seconds_since(t);
  if (warm_up) hot_seconds += seconds_since(t);
  if (!paused) {
    child->resume();
    out.call = child->ping();  // a child that died after its warm-up fails as it died
    if (out.call.ok()) {
      out.cheat = Misbehaviour{
          arm, fmt::format("could not be stopped within {} s to prepare its timed calls",
                           kPauseTimeoutSeconds)};
    }
    return out;
  }
  const auto n = static_cast<size_t>(calls);
  std::vector<uint64_t> patches;
  for (size_t k = 0; k < n; ++k) {
    patches.push_back(same         ? same->patches[k]
                      : confirming ? confirming->patches[k]
                                   : secret_.next_u64());
  }
  std::vector<InputSets::Patch>& drawn = drawn_;  // per call: its patch's lines
  drawn.resize(n);
  std::vector<std::unique_ptr<SharedBuffers>> views(n);  // per call: its set and slot
  std::vector<std::vector<uint64_t>> given(n);           // per call: its in/out regions as given
  // The child is stopped: every core of the host may patch, then flush.
  t = Clock::now();
  for_each_call(calls, [&](int k) {
    inputs_->draw_patch(patches[static_cast<size_t>(k)], drawn[static_cast<size_t>(k)]);
  });
  for_each_share(calls, [&](int k, Share share) {
    const auto i = static_cast<size_t>(k);
    inputs_->prepare(first + 1 + k, patches[i], drawn[i], slot(arm, k), share);
  });
  for_each_call(calls, [&](int k) {
    const auto i = static_cast<size_t>(k);
    views[i] = inputs_->view(first + 1 + k, slot(arm, k));
    given[i] = hash_inout_regions(*views[i]);
  });
  guard.patch += seconds_since(t);
  t = Clock::now();
  for_each_share(calls,
                 [&](int k, Share share) { inputs_->flush(first + 1 + k, slot(arm, k), share); });
  guard.flush += seconds_since(t);
  auto restore_sets = [&] {
    for_each_share(calls, [&](int k, Share share) {
      inputs_->restore(first + 1 + k, drawn[static_cast<size_t>(k)], share);
    });
  };
  const auto resumed = Clock::now();
  child->resume();
  const CallResult awake =
      child->ping(kNextWithinUs, /*hot_workers=*/true, /*start_workers=*/on_harness);
  hot_seconds += seconds_since(resumed);
  guard.resume += seconds_since(resumed);
  if (!awake.ok()) {
    out.call = awake;
    t = Clock::now();
    restore_sets();
    guard.restore += seconds_since(t);
    return out;
  }
  out.call = child->call(first + 1, 0, calls);
  // The sets are put back while the child's end is watched, which mostly waits (the restore
  // touches only the sets, which nothing below reads; guard.restore counts the wait for it).
  // What it throws is thrown here once it has ended.
  std::exception_ptr restore_failed;
  std::jthread restoring([&] {
    try {
      restore_sets();
    } catch (...) {
      restore_failed = std::current_exception();
    }
  });
  t = Clock::now();
  ++costs_.readings;
  if (out.call.ok()) {
    out.calls = calls;
    costs_.timed += out.call.seconds;
    unstamped_ += !out.call.stamped;
    const double rtt = round_trip_seconds();
    if (out.call.seconds + 1e-6 < out.call.runner_seconds ||
        out.call.seconds - out.call.runner_seconds > 3 * rtt + 100e-6) {
      ++clock_disagreements_;
    }
    // Every call of an arm's first reading of each length is kept (a child knows which call of
    // its batch it is, but not which reading it serves: each is a fresh process), unless this
    // process has checked a reading of the object that long whole already (whole_readings.h),
    // and then a random fraction of the others; all are dropped again where the reading is
    // compared with another arm's (compare_with verifies each of those calls).
    const auto& key = whole_keys_[static_cast<size_t>(arm)];
    // A confirming reading's calls are all checked as it ends.
    const bool keep_all =
        !confirming && fully_kept_[arm] < calls && !(key && checked_whole_length(*key) >= calls);
    fully_kept_[arm] = std::max(fully_kept_[arm], calls);
    for (int k = 0; k < calls; ++k) {
      if (!confirming && (keep_all || secret_.uniform() < options_.verify_fraction)) {
        kept_.push_back(
            {arm, first + 1 + k, patches[static_cast<size_t>(k)], keep_all ? calls : 0, k, {}});
      }
    }
    t = Clock::now();
    for (int k = 0; k < calls && !out.cheat; ++k) {
      const auto i = static_cast<size_t>(k);
      if (const auto skipped = screen_writes(*views[i], given[i])) {
        out.cheat = Misbehaviour{
            arm, fmt::format("timed call {} of {} in a reading {}: it skipped its work", k + 1,
                             calls, skipped->describe())};
      }
    }
    guard.screen += seconds_since(t);
    t = Clock::now();
    if (!out.cheat) {
      if (auto breach = idle_breach(*child)) out.cheat = Misbehaviour{arm, *breach};
    }
    if (warm_up) {
      const int threads = child->thread_count();
      if (threads == 1) {
        single_threaded_.insert(arm);
      } else if (threads == child->harness_threads()) {
        harness_only_.insert(arm);
      }
    }
    guard.idle_watch += seconds_since(t);
  }
  t = Clock::now();
  const double wall = warm.seconds + out.call.seconds + hot_seconds;
  const ChildFate fate = child->finish();
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  // The runner's preparation is not the candidate's; what it cost (mostly first touches of
  // pages, which under some hypervisors are exits of microseconds each) is allowed once more
  // for the first touches after loading (code, stacks, output pages).
  const double prepared = child->prepared_cpu_seconds();
  const double candidate_cpu = fate.cpu_seconds - prepared;
  if (out.call.ok() && !out.cheat && fate.known &&
      candidate_cpu > wall * cores + kCpuAllowanceSeconds + prepared) {
    out.cheat = Misbehaviour{arm, fmt::format("used {:.1f} ms of CPU in a life whose calls (and "
                                              "the harness's hot spells) took {:.1f} ms on {} "
                                              "cores: work outside its calls",
                                              candidate_cpu * 1e3, wall * 1e3, cores)};
  }
  guard.exit += seconds_since(t);
  t = Clock::now();
  restoring.join();
  guard.restore += seconds_since(t);
  if (restore_failed) std::rethrow_exception(restore_failed);
  if (!out.ok()) return out;
  out.call.seconds /= calls;
  out.call.runner_seconds /= calls;
  if (same) {
    out.cheat = compare_with(*same, arm);
  } else if (confirming) {
    out.cheat = check_confirming(*confirming, arm);
  } else {
    last_ = LastReading{arm, first, patches};
  }
  return out;
}

double TimedSession::round_trip_seconds() const {
  return round_trips_.empty() ? 0.0 : median(round_trips_);
}

}  // namespace headway::cpu
