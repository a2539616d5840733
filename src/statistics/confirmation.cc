#include "statistics/confirmation.h"

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

Confirmation confirm_candidate(PairedDevice& device, Rng& coin, int64_t calls, int max_pairs) {
  Confirmation out;
  out.verified_calls = device.verified_calls(Arm::kCandidate);
  DiscardingSink sink;
  while (out.verified_calls >= 0 && out.verified_calls < calls && out.pairs < max_pairs) {
    run_pair(device, coin, {"", "", 0, out.pairs}, sink);
    ++out.pairs;
    out.verified_calls = device.verified_calls(Arm::kCandidate);
  }
  return out;
}

}  // namespace headway::statistics
