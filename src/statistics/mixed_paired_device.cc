#include "statistics/mixed_paired_device.h"

#include <algorithm>
#include <stdexcept>

#include "statistics/device_accounting.h"

namespace headway::statistics {

MixedPairedDevice::MixedPairedDevice(std::vector<std::unique_ptr<PairedDevice>> devices,
                                     uint64_t seed)
    : devices_(std::move(devices)), pairs_(devices_.size(), 0), draw_(seed) {
  if (devices_.empty()) throw std::logic_error("MixedPairedDevice needs at least one device");
}

double MixedPairedDevice::run_once(Arm arm, nlohmann::json* clock_out) {
  const double seconds = devices_[current_]->run_once(arm, clock_out);
  if (clock_out) {
    if (!clock_out->is_object()) *clock_out = nlohmann::json::object();
    (*clock_out)[kShapeSetKey] = current_;
  }
  return seconds;
}

int64_t MixedPairedDevice::now_ns() { return devices_[current_]->now_ns(); }

void MixedPairedDevice::begin_pair() {
  current_ = static_cast<size_t>(draw_.below(devices_.size()));
  ++pairs_[current_];
  devices_[current_]->begin_pair();
}

bool MixedPairedDevice::run_confirming_reading() {
  const auto at = static_cast<size_t>(draw_.below(devices_.size()));
  return devices_[at]->run_confirming_reading();
}

void MixedPairedDevice::verify_arms() {
  for (auto& d : devices_) d->verify_arms();
}

int64_t MixedPairedDevice::verified_calls(Arm arm) const {
  int64_t sum = -1;
  for (const auto& d : devices_) {
    if (const int64_t n = d->verified_calls(arm); n >= 0) sum = std::max<int64_t>(sum, 0) + n;
  }
  return sum;
}

nlohmann::json MixedPairedDevice::accounting() const {
  std::vector<nlohmann::json> each;
  each.reserve(devices_.size());
  for (const auto& d : devices_) each.push_back(d->accounting());
  nlohmann::json sum = sum_accountings(each);
  if (sum.is_null()) return nullptr;
  sum["pairs_per_device"] = pairs_;
  return sum;
}

}  // namespace headway::statistics
