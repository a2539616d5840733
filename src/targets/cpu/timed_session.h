#pragma once
// Readings of several built candidates ("arms") of one kernel on the host CPU, on equal terms
// and out of their reach:
//   - every reading runs in a fresh runner child (RunnerHost::spawn), so nothing a process
//     keeps (its pages, its core, the order it started in) outlives one reading, and no
//     candidate shares a process with another or with the clock; the arm's writable block is
//     put back as it was made before the child starts, so nothing it wrote there reaches the
//     next one;
//   - the child makes one warm-up call on one input set (skipped for an arm whose first child
//     ran on a single thread, nothing to start, or on no threads but the harness's, which the
//     runner then starts before the timed request) and then `calls_per_reading()` timed calls back
//     to back in one request, each on another set (InputSets), freshly patched, poisoned and
//     flushed from every cache; the reading is their mean. The sets of
//     one reading hold independent draws, so no call finds the weights of an earlier call of
//     its process, and the rotation starts at a secret set, so a set's place says nothing about
//     which reading of the session it serves. The number of
//     calls is fixed when the session starts, from a first reading of each arm (the probe): the
//     fewest of the fastest arm's calls that fill SessionOptions::timed_per_reading, at most
//     max_calls_per_reading (calls_per_reading_for). It is the same
//     for every arm and every reading the session returns, so that readings stay alike while
//     the process start and the warm-up are shared by more kernel time when the kernel is short;
//   - headway times the call from its request to the kernel's stamp of the reply;
//   - from the end of the warm-up (or of loading) to the timed request the child is stopped,
//     while headway patches the timed sets and flushes them and their slots from the caches, so
//     no candidate code can work on a timed call's inputs early or bring them into a cache;
//   - every timed call is screened as soon as the reading ends (screen_writes: no output left
//     poisoned or not finite, no in/out region left as it was given), so a call that skipped its
//     work is caught whether or not it is sampled below;
//   - after each call the child must be idle (no thread running, no message unasked for), and
//     over its life it may use no more CPU than the cores times the wall time of its calls and
//     of the spells in which the harness's workers spin outside them (warm-up to stop, resume
//     to the timed request);
//   - a reading may run on the inputs of the reading before it, another arm's (the second
//     reading of a pair, Inputs::kAsLastReading): then every timed call's writes are compared
//     with that reading's call on the same inputs, and where the two differ by more than
//     kAgreeShare of the tolerance both are checked against the reference at once, so every
//     call of such a reading is verified, exactly where the arms disagree;
//   - every call of an arm's first reading of each length (once per object in the process:
//     whole_readings.h) and a secret random sample of the others not compared with another
//     arm's are kept and checked against the reference (verify_sampled), so a call that skipped
//     or replayed work in an unpaired reading is caught, and a drift both arms share is too;
//   - a confirming reading (Inputs::kConfirming) checks every call against a reference kept for
//     its inputs, which recur from a few windows; to the child it is a reading like the others.
// A breach of any of these is a Misbehaviour: it ends the arm's part in the session.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "common/rng.h"
#include "kernels/contract.h"
#include "kernels/input_sets.h"
#include "kernels/verify.h"
#include "targets/cpu/preparing_threads.h"
#include "targets/cpu/runner_host.h"
#include "targets/cpu/session_inputs.h"
#include "targets/cpu/whole_readings.h"

namespace headway::cpu {

struct SessionOptions {
  ProcessLimits limits;
  uint64_t seed = 1;  // the inputs (see shared_input_sets)
  // Traffic of other sets between two uses of a set. Every timed set is flushed from the caches
  // before its call, so none is needed: 0 gives the fewest sets, one reading's window.
  uint64_t cold_bytes = 0;
  double verify_fraction = 1.0 / 16;  // chance that a timed call is kept for verification
  double timed_per_reading = 0.016;   // kernel time a reading aims for, seconds (see above)
  // Every child on one CPU, the harness's threads run one after another (RunnerHost::spawn):
  // readings of what one core does with the kernel, whatever threads the candidate asks for.
  bool one_core = false;
};

// Where the guard's time went, in seconds: the steps of a reading between its warm-up call and
// its end that keep the timed calls honest.
struct GuardCosts {
  double pause = 0.0;       // stopping the child after its warm-up
  double patch = 0.0;       // patching the timed sets, poisoning their slots, noting the in/out
  double flush = 0.0;       // flushing the timed sets and slots from every cache
  double resume = 0.0;      // letting the child run again and its ping
  double screen = 0.0;      // screening every timed call's writes (screen_writes)
  double idle_watch = 0.0;  // checking that the child is idle after its call (idle_breach)
  double exit = 0.0;        // killing and collecting the child, its life's CPU check
  double restore = 0.0;     // waiting for the timed sets to be back as drawn (they are put back
                            // while the child's end is watched)
  double reset = 0.0;       // putting the arm's writable block back as it was made, before spawn
  double total() const {
    return pause + patch + flush + resume + screen + idle_watch + exit + restore + reset;
  }
};

// Where a session's wall time went, in seconds.
struct SessionCosts {
  double inputs = 0.0;         // drawing and laying out the input sets, starting the host
  double process_start = 0.0;  // spawning children and their first empty call
  double warm_up = 0.0;        // warm-up calls
  double timed = 0.0;          // timed calls (headway's clock)
  GuardCosts guard;            // pausing, patching, flushing, idle checks, ending children
  double verification = 0.0;   // comparing paired calls; reference and comparison of kept calls
  int readings = 0;
  int compared_calls = 0;    // timed calls compared with the other arm's on the same inputs
  int disputed_calls = 0;    // of those, calls the two arms disagreed on (checked by the reference)
  double input_bytes = 0.0;  // the input sets' memory
  double input_huge_page_share = 0.0;  // of the input sets' memory, on 2 MiB pages
  // Everything but the inputs: the readings and what they need, first to last.
  double reading_phase() const {
    return process_start + warm_up + timed + guard.total() + verification;
  }
};

struct Misbehaviour {
  int arm = 0;
  std::string reason;
};

struct SessionReading {
  CallResult call;  // the reading: seconds and runner_seconds are means over its timed calls;
                    // !call.ok(): the run failed (the arm is done)
  int calls = 0;    // timed calls made
  // set: an arm broke a rule of the session (this reading's, or the arm of the reading it was
  // compared with, whose wrong output this one showed)
  std::optional<Misbehaviour> cheat;
  bool ok() const { return call.ok() && !cheat; }
  // !ok(): why the arm is out, one line.
  std::string failure() const;
};

class TimedSession {
 public:
  // Draws the inputs and starts the host for `objects` (one arm each). nullptr with *failure
  // set when the host cannot start.
  static std::unique_ptr<TimedSession> start(const KernelContract& kernel,
                                             const std::vector<std::filesystem::path>& objects,
                                             const SessionOptions& options, CallResult* failure);
  // Where a reading's timed calls find their inputs.
  enum class Inputs {
    kFresh,          // the next window of sets, freshly patched
    kAsLastReading,  // the last reading's window and patches, when that reading was another
                     // arm's and ended well (else fresh): its calls are compared with this
                     // reading's, and the last reading's inputs serve no third reading
    kConfirming,     // one of a few windows of sets with patches fixed when the session first
                     // needs them, whose references are computed once: every call of the
                     // reading is checked against the reference as the reading ends. A reading
                     // like any other to the child (a fresh process, its writable block reset,
                     // the same calls per reading), which has no way to know its inputs recur.
  };
  // One reading of `arm`.
  SessionReading reading(int arm, Inputs inputs = Inputs::kFresh);
  // Checks every kept call (of `arm` only, when given: the others stay kept) against the
  // reference; the first wrong one, if any.
  std::optional<Misbehaviour> verify_sampled(std::optional<int> arm = std::nullopt);
  // Calls kept for verify_sampled so far.
  size_t kept_calls() const { return kept_.size(); }
  // Timed calls of `arm` checked against the reference in its confirming readings
  // (Inputs::kConfirming) and found right.
  int64_t confirmed_calls(int arm) const;
  const SessionCosts& costs() const { return costs_; }
  // Median round trip of an empty call so far (seconds), and the number of readings where the
  // child's own figure was further from headway's than the round trip allows.
  double round_trip_seconds() const;
  int clock_disagreements() const { return clock_disagreements_; }
  // Timed readings that end at headway's receipt of the reply, not at the kernel's stamp of it.
  int unstamped_readings() const { return unstamped_; }
  int arms() const { return static_cast<int>(writable_.size()); }
  int calls_per_reading() const { return calls_per_reading_; }
  // The first input set of the next reading's window (its warm-up set; the timed sets follow)
  // and the window's length.
  std::pair<int, int> next_sets() const;

 private:
  struct Kept {
    int arm;
    int set;
    uint64_t patch_seed;
    // The length of the arm's first reading of that length, of which this is one of every call;
    // 0: a sampled call.
    int whole_reading;
    // The call's slot of the writable block right after it. While `slot` is not -1 it is still
    // there, slot `slot` of the arm's block, which nothing writes until the arm's next reading:
    // it is copied into `writable` only then (copy_out_kept), so that a call dropped before
    // (compared with another arm's) costs no copy.
    int slot = -1;
    std::vector<std::byte> writable;
  };
  // Copies the writes of `arm`'s kept calls still in its slots out of them: before its block is
  // reset for its next reading.
  void copy_out_kept(int arm);
  // A kept call's writes, wherever they are now.
  std::span<const std::byte> writes_of(const Kept& kept) const;
  // What a reading on the same inputs needs of the reading before it.
  // Its writes stay in its arm's slots until that arm's next reading, after this one's.
  struct LastReading {
    int arm = 0;
    int first = 0;                  // its window's first set (the warm-up set)
    std::vector<uint64_t> patches;  // per timed call
  };
  // A window of confirming readings' inputs and, once computed, the reference of each call.
  struct ConfirmingWindow {
    int first = 0;
    std::vector<uint64_t> patches;                      // per timed call
    std::vector<std::vector<ExpectedOutput>> expected;  // per timed call, empty until needed
  };
  // The reference of a call on `set` patched with `patch_seed`, its writable regions laid out in
  // verify_scratch(thread), which holds the call's slot as the reference left it until the next
  // one. Threads may compute references at once on different sets, each with its own scratch.
  std::vector<ExpectedOutput> reference_for(int set, uint64_t patch_seed, int thread = 0);
  // One slot's bytes for references per preparing thread, made when that thread first needs it
  // and kept for the session (a fresh one per reference cost as much as the reference: its pages
  // zeroed and faulted in). The vector has its length from the start, so that threads computing
  // references at once each touch only their own element.
  SharedMemory& verify_scratch(int thread = 0);
  std::vector<std::unique_ptr<SharedMemory>> verify_scratch_ =
      std::vector<std::unique_ptr<SharedMemory>>(static_cast<size_t>(preparing_threads()));
  // Checks `arm`'s calls, still in its slots, against `window`'s references: the first wrong
  // one, or nullopt (and the calls count as confirmed).
  std::optional<Misbehaviour> check_confirming(ConfirmingWindow& window, int arm);
  // The window the next confirming reading runs on (made from the next fresh window the first
  // time each of the kConfirmingWindows is needed).
  ConfirmingWindow& next_confirming_window();
  // Calls on `set` patched with `patch_seed`, each of which left one of `writes` in its slot,
  // judged against one computation of the reference: per call, why it is wrong, or nullopt.
  std::vector<std::optional<Violation>> wrong_outputs(
      int set, uint64_t patch_seed, const std::vector<std::span<const std::byte>>& writes,
      int thread = 0);
  // Compares `arm`'s timed calls, still in its slots, with `last`'s on the same inputs; where
  // two disagree, the reference judges both: the first wrong call, or nullopt. Only the chunks
  // where either slot differs from a slot as made are compared, and then put back as made.
  std::optional<Misbehaviour> compare_with(const LastReading& last, int arm);
  TimedSession(const KernelContract& kernel, SessionOptions options)
      : kernel_(kernel), options_(options) {}
  const KernelContract& kernel_;
  SessionOptions options_;
  std::shared_ptr<InputSets> inputs_;
  std::vector<std::shared_ptr<SharedMemory>> writable_;  // one per arm (shared_writable_block)
  // Per arm and slot of its block: put back as made since its last child (by compare_with,
  // which found every byte the two readings' calls changed), so that its next reading need not
  // read the slot to reset it.
  std::vector<std::vector<bool>> slots_as_made_;
  std::unique_ptr<RunnerHost> host_;
  // A first reading of every arm; the fastest one's time fixes calls_per_reading_ for the
  // session, so that a short kernel timed beside a long one (a head beside its baseline) is
  // read in the same batches as beside its peers. The kept calls are verified with the others;
  // an arm's failure is the result of its next reading.
  void probe();
  // Slot k of arm's writable block.
  std::byte* slot(int arm, int k) const;
  Rng secret_{1};
  int next_window_ = 0;
  int calls_per_reading_ = 1;
  std::map<int, SessionReading> probe_failures_;  // per arm
  std::vector<Kept> kept_;
  // Per timed call of the reading in progress: its patch (kept, so that its storage serves the
  // next reading's).
  std::vector<InputSets::Patch> drawn_;
  std::optional<LastReading> last_;
  std::vector<ConfirmingWindow> confirming_;
  int confirming_readings_ = 0;
  std::map<int, int64_t> confirmed_calls_;  // per arm
  std::map<int, int> fully_kept_;           // per arm: the longest reading kept whole so far
  // per arm: what its whole readings are remembered by in this process (whole_readings.h)
  std::vector<std::optional<WholeReadingKey>> whole_keys_;
  std::set<int> single_threaded_;  // arms whose first child ran on one thread
  std::set<int> harness_only_;     // arms whose first child ran on the harness's threads alone
  std::vector<double> round_trips_;
  int clock_disagreements_ = 0;
  int unstamped_ = 0;
  SessionCosts costs_;
};

}  // namespace headway::cpu
