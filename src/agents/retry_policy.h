#pragma once
// How the HTTP providers retry: which failures are retried, how long to wait between attempts
// (exponential backoff with full jitter, at least what a Retry-After header asks), and the sleep
// itself, which tests replace to record the waits.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>

namespace headway::agents {

using Seconds = std::chrono::duration<double>;

struct RetryPolicy {
  int attempts = 5;                // the most attempts per request, the first included (>= 1)
  Seconds base_backoff{1.0};       // the backoff cap before the first retry; doubles per retry
  Seconds max_backoff{60.0};       // the largest backoff cap
  Seconds max_retry_after{120.0};  // a longer Retry-After is cut to this
  // The jitter's seed; empty: std::random_device.
  std::optional<uint64_t> seed;
  // Waits the given time; empty: std::this_thread::sleep_for.
  std::function<void(Seconds)> sleep;
};

// True for the statuses worth retrying: 429 and 500-599.
bool retryable_status(long status);

// The seconds a Retry-After header value asks for: a non-negative number of seconds (decimals
// accepted). Empty for anything else, HTTP dates included (the backoff applies then).
std::optional<Seconds> parse_retry_after(const std::string& value);

// The waits of one request's retries. Not thread-safe: make one per request. Keeps a reference
// to the policy, which must outlive it.
class Backoff {
 public:
  explicit Backoff(const RetryPolicy& policy);

  // The wait before retry `retry` (1 for the wait after the first attempt): uniform in
  // [0, min(max_backoff, base_backoff * 2^(retry-1))], but at least `retry_after` where given
  // (capped at max_retry_after).
  Seconds delay(int retry, std::optional<Seconds> retry_after = std::nullopt);

  // Waits `wait` through the policy's sleep.
  void sleep(Seconds wait) const;

 private:
  const RetryPolicy& policy_;
  std::mt19937_64 rng_;
};

}  // namespace headway::agents
