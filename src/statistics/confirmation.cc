#include "statistics/confirmation.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace headway::statistics {

namespace {

class DiscardingSink final : public ReadingSink {
 public:
  void record(const Reading&) override {}
};

}  // namespace

int64_t calls_to_catch(double p, double escape) {
  if (!(p > 0 && p < 1) || !(escape > 0 && escape < 1))
    throw std::invalid_argument("calls_to_catch: p and escape must lie strictly between 0 and 1");
  return static_cast<int64_t>(std::ceil(std::log(escape) / std::log1p(-p)));
}

Confirmation confirm_candidate(PairedDevice& device, Rng& coin, int64_t calls, int max_runs,
                               const std::function<void(const Confirmation&)>& after_run) {
  Confirmation out;
  out.verified_calls = device.verified_calls(Arm::kCandidate);
  DiscardingSink sink;
  if (after_run) after_run(out);
  while (out.verified_calls >= 0 && out.verified_calls < calls &&
         out.pairs + out.readings < max_runs) {
    if (device.run_confirming_reading()) {
      ++out.readings;
    } else {
      run_pair(device, coin, {"", "", 0, out.pairs}, sink);
      ++out.pairs;
    }
    out.verified_calls = device.verified_calls(Arm::kCandidate);
    if (after_run) after_run(out);
  }
  return out;
}

ConfirmedDecision decide_and_confirm(PairedDevice& device, DecisionRule& rule, Rng& coin,
                                     const PairLabel& label, ReadingSink& sink, int64_t calls,
                                     int max_runs, const AfterPair& after_pair,
                                     const std::function<void(const Confirmation&)>& after_run) {
  ConfirmedDecision out;
  out.record = run_decision(device, rule, coin, label, sink, after_pair);
  if (out.record.outcome == Outcome::kFaster)
    out.confirmation = confirm_candidate(device, coin, calls, max_runs, after_run);
  device.verify_arms();
  return out;
}

std::string Confirmation::describe() const {
  std::string runs;
  if (readings > 0) runs = fmt::format("{} readings of the candidate alone", readings);
  if (pairs > 0) runs += fmt::format("{}{} more pairs", runs.empty() ? "" : " and ", pairs);
  if (runs.empty()) return "";
  return fmt::format("confirmed by {} ({} of the candidate's calls verified)", runs,
                     verified_calls);
}

}  // namespace headway::statistics
