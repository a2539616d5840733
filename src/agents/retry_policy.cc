#include "agents/retry_policy.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace headway::agents {

bool retryable_status(long status) { return status == 429 || (status >= 500 && status <= 599); }

std::optional<Seconds> parse_retry_after(const std::string& value) {
  const auto first = value.find_first_not_of(" \t");
  const auto last = value.find_last_not_of(" \t");
  if (first == std::string::npos) return std::nullopt;
  const std::string text = value.substr(first, last - first + 1);
  if (text.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  size_t used = 0;
  double seconds = 0.0;
  try {
    seconds = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || !std::isfinite(seconds)) return std::nullopt;
  return Seconds(seconds);
}

Backoff::Backoff(const RetryPolicy& policy)
    : policy_(policy), rng_(policy.seed ? *policy.seed : std::random_device{}()) {}

Seconds Backoff::delay(int retry, std::optional<Seconds> retry_after) {
  const double exponent = std::clamp(retry - 1, 0, 62);
  const double cap =
      std::min(policy_.max_backoff.count(), policy_.base_backoff.count() * std::pow(2.0, exponent));
  double wait = 0.0;
  if (cap > 0.0) wait = std::uniform_real_distribution<double>(0.0, cap)(rng_);
  if (retry_after) {
    wait = std::max(wait, std::min(retry_after->count(), policy_.max_retry_after.count()));
  }
  return Seconds(wait);
}

void Backoff::sleep(Seconds wait) const {
  if (policy_.sleep) {
    policy_.sleep(wait);
  } else if (wait.count() > 0.0) {
    std::this_thread::sleep_for(wait);
  }
}

}  // namespace headway::agents
