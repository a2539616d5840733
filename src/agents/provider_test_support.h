#pragma once
// For tests of the HTTP providers: options that retry fast and record their waits instead of
// sleeping, and environment variables set for one scope.
#include <stdlib.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agents/http_provider.h"

namespace headway::agents::testing {

// The waits a provider asked for, in order.
struct RecordedWaits {
  std::mutex mutex;
  std::vector<Seconds> waits;

  std::vector<Seconds> get() {
    std::lock_guard lock(mutex);
    return waits;
  }
};

// Sets or unsets an environment variable for one scope, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Options for `model` at `base_url`: `attempts` attempts, millisecond backoffs, a 5 s timeout
// and a sleep that records into `waits` without waiting.
inline ProviderOptions fast_options(const std::string& base_url, const std::string& model,
                                    const std::string& api_key,
                                    const std::shared_ptr<RecordedWaits>& waits, int attempts = 3) {
  ProviderOptions options;
  options.base_url = base_url;
  options.model = model;
  options.api_key = api_key;
  options.timeout = Seconds(5.0);
  options.retry.attempts = attempts;
  options.retry.base_backoff = Seconds(0.001);
  options.retry.max_backoff = Seconds(0.005);
  options.retry.seed = 1;
  options.retry.sleep = [waits](Seconds wait) {
    std::lock_guard lock(waits->mutex);
    waits->waits.push_back(wait);
  };
  return options;
}

}  // namespace headway::agents::testing
