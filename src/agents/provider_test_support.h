#pragma once
// For tests of the HTTP providers: options that retry fast and record their waits instead of
// sleeping, environment variables set for one scope, and a check that replies are malformed.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agents/http_provider.h"
#include "agents/test_http_server.h"
#include "common/scoped_env_test_support.h"

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

using headway::testing::ScopedEnv;

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

// A `Provider` for `model` with the key `api_key` (none where empty) that calls `server` with
// fast_options.
template <typename Provider>
Provider provider_at(const TestHttpServer& server, const std::string& model,
                     const std::string& api_key) {
  return Provider(
      fast_options(server.base_url(), model, api_key, std::make_shared<RecordedWaits>()));
}

// Serves each of `bodies` at `path` with status 200 in turn and expects the provider that
// `make(server)` returns to throw a kMalformed AgentError for it.
template <typename Make>
void expect_each_malformed(const std::string& path, std::initializer_list<const char*> bodies,
                           Make make) {
  for (const char* body : bodies) {
    TestHttpServer server(path, [&](int, const httplib::Request&, httplib::Response& response) {
      response.set_content(body, "application/json");
    });
    try {
      make(server).complete(AgentRequest{});
      ADD_FAILURE() << "no error for " << body;
    } catch (const AgentError& e) {
      EXPECT_EQ(e.kind(), AgentError::Kind::kMalformed) << body;
    }
  }
}

}  // namespace headway::agents::testing
