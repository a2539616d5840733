#pragma once
// One pair of readings: head and candidate back to back, the order decided by a seeded coin.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/rng.h"
#include "statistics/reading.h"
#include "statistics/reading_sink.h"

namespace headway::statistics {

// The device seam: anything that can time one run of either arm.
class PairedDevice {
 public:
  virtual ~PairedDevice();
  // Runs `arm` once and returns its duration in seconds (finite, > 0). May describe the clock
  // state in *clock_out (never null when called by run_pair). Throws on a failed run.
  virtual double run_once(Arm arm, nlohmann::json* clock_out) = 0;
  // The device clock in nanoseconds, stamped on each reading; defaults to the system clock.
  virtual int64_t now_ns();
  // A pair starts: its two readings follow (run_pair_ordered calls it first). A device that
  // reads both arms at once (one job per pair) carries nothing over from before.
  virtual void begin_pair() {}
  // Pairs the device can run at once (one on each device of a pool); run_decision then draws
  // the orders of that many pairs ahead and announces them through prepare_pairs.
  virtual int pairs_at_once() const { return 1; }
  // The next pairs will begin with these arms, in order: each a begin_pair() (not in a warm-up),
  // run_once(first) and, except in a warm-up (estimate_s0), run_once of the other arm. A device
  // may run them all now and serve their readings in that order; what it prepared and was not
  // asked for is dropped by the next prepare_pairs.
  virtual void prepare_pairs(const std::vector<Arm>& /*firsts*/) {}
  // Checks what the device kept of its readings (for example sampled outputs against the
  // reference); throws ArmDisqualified when an arm is found to have broken the rules.
  virtual void verify_arms() {}
  // Timed calls of `arm` whose output the device has verified so far (each checked against the
  // reference or compared with the other arm's call on the same inputs), or -1 when it does not
  // count them.
  virtual int64_t verified_calls(Arm /*arm*/) const { return -1; }
  // One reading of the candidate alone, every call of which the device checks against the
  // reference (adding to verified_calls(kCandidate)); no decision reads it. To the candidate it
  // is a reading like those of a pair. Returns false, having run nothing, when the device has no
  // such readings (a confirmation then runs pairs). Throws ArmDisqualified for a wrong call.
  virtual bool run_confirming_reading() { return false; }
  // Where the device's time went so far (a JSON object), or null when it does not account.
  virtual nlohmann::json accounting() const { return nullptr; }
};

// Thrown by a device when an arm broke the rules of measurement: wrong output in a timed call,
// work outside its calls, a forged reply, a crash after it passed the check. A decision that
// meets it has no outcome; the arm's candidate is disqualified.
class ArmDisqualified : public std::runtime_error {
 public:
  ArmDisqualified(Arm arm, const std::string& reason) : std::runtime_error(reason), arm_(arm) {}
  Arm arm() const { return arm_; }

 private:
  Arm arm_;
};

struct PairLabel {
  std::string kernel;
  std::string node;
  int64_t test_id = 0;
  int pair_index = 0;
};

// The outcome of one pair. d = ln(t_candidate) - ln(t_head): negative when the candidate was
// faster.
struct PairResult {
  double d = 0.0;
  Arm first = Arm::kHead;
};

// Runs `first`, then the other arm, records both readings (positions 0 and 1) to `sink`, and
// returns d. Throws std::runtime_error when the device returns a duration that is not finite and
// positive (a failed run, the only reason a caller may run a pair again).
PairResult run_pair_ordered(PairedDevice& device, Arm first, const PairLabel& label,
                            ReadingSink& sink);

// As run_pair_ordered, with one flip of `coin` deciding the order: heads (true) puts the
// candidate first. The order is logged through the readings' positions.
PairResult run_pair(PairedDevice& device, Rng& coin, const PairLabel& label, ReadingSink& sink);

}  // namespace headway::statistics
