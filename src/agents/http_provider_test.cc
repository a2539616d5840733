// The failure handling both HTTP providers share (http_provider.h), run against each protocol:
// the suites are OpenAi/ChatProvider and Anthropic/ChatProvider.
#include "agents/http_provider.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agents/anthropic_provider.h"
#include "agents/openai_provider.h"
#include "agents/provider_test_support.h"
#include "agents/test_http_server.h"

namespace headway::agents {
namespace {

using testing::fast_options;
using testing::RecordedWaits;
using testing::TestHttpServer;
using Kind = AgentError::Kind;

constexpr const char* kKey = "sk-test-0123456789-secret";

struct Protocol {
  std::string name;
  std::string path;        // where the server answers
  std::string key_header;  // the header that carries the key
  std::string key_env;
  std::function<std::unique_ptr<Agent>(ProviderOptions)> make;
  std::string ok_body;               // a reply whose text is "hello"
  std::string model_not_found_body;  // an error body that says the model is unknown
};

Protocol openai() {
  return {"openai",
          "/v1/chat/completions",
          "Authorization",
          "OPENAI_API_KEY",
          [](ProviderOptions o) { return std::make_unique<OpenAiProvider>(std::move(o)); },
          R"({"model":"m","choices":[{"message":{"role":"assistant","content":"hello"},)"
          R"("finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}})",
          R"({"error":{"message":"The model `m` does not exist","type":"invalid_request_error",)"
          R"("code":"model_not_found"}})"};
}

Protocol anthropic() {
  return {"anthropic",
          "/v1/messages",
          "x-api-key",
          "ANTHROPIC_API_KEY",
          [](ProviderOptions o) { return std::make_unique<AnthropicProvider>(std::move(o)); },
          R"({"model":"m","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn",)"
          R"("usage":{"input_tokens":3,"output_tokens":1}})",
          R"({"type":"error","error":{"type":"not_found_error","message":"model: m"}})"};
}

class ChatProvider : public ::testing::TestWithParam<Protocol> {
 protected:
  const Protocol& protocol() const { return GetParam(); }

  std::unique_ptr<Agent> agent(const TestHttpServer& server, const std::string& key = kKey,
                               int attempts = 3) {
    return protocol().make(fast_options(server.base_url(), "m", key, waits_, attempts));
  }

  // Runs one request and returns the error it must end in.
  AgentError fail(Agent& agent) {
    try {
      agent.complete(request());
    } catch (const AgentError& e) {
      return e;
    }
    ADD_FAILURE() << "no error";
    return AgentError(Kind::kCommand, "none");
  }

  static AgentRequest request() {
    AgentRequest r;
    r.system = "be brief";
    r.prompt = "hi";
    r.max_tokens = 64;
    return r;
  }

  void answer(httplib::Response& response, int status, const std::string& body) const {
    response.status = status;
    response.set_content(body, "application/json");
  }

  std::shared_ptr<RecordedWaits> waits_ = std::make_shared<RecordedWaits>();
};

TEST_P(ChatProvider, SucceedsAtOnce) {
  TestHttpServer server(protocol().path, [&](int, const auto&, auto& response) {
    answer(response, 200, protocol().ok_body);
  });
  const AgentReply reply = agent(server)->complete(request());
  EXPECT_EQ(reply.text, "hello");
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_GT(reply.latency_s, 0.0);
  EXPECT_TRUE(waits_->get().empty());
}

TEST_P(ChatProvider, SendsTheKeyHeaderExactlyWhenAKeyIsGiven) {
  TestHttpServer server(protocol().path, [&](int, const auto&, auto& response) {
    answer(response, 200, protocol().ok_body);
  });
  agent(server, kKey)->complete(request());
  agent(server, "")->complete(request());
  const auto received = server.received();
  ASSERT_EQ(received.size(), 2u);
  ASSERT_TRUE(received[0].has_header(protocol().key_header));
  EXPECT_NE(received[0].header(protocol().key_header).find(kKey), std::string::npos);
  EXPECT_FALSE(received[1].has_header(protocol().key_header));
}

TEST_P(ChatProvider, TooManyRequestsWaitsForRetryAfterThenSucceeds) {
  TestHttpServer server(protocol().path, [&](int n, const auto&, auto& response) {
    if (n == 1) {
      response.set_header("Retry-After", "2");
      answer(response, 429, R"({"error":{"message":"slow down","type":"rate_limit_error"}})");
    } else {
      answer(response, 200, protocol().ok_body);
    }
  });
  const AgentReply reply = agent(server)->complete(request());
  EXPECT_EQ(reply.text, "hello");
  EXPECT_EQ(reply.attempts, 2);
  const auto waits = waits_->get();
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_GE(waits[0].count(), 2.0);
}

TEST_P(ChatProvider, RetryAfterIsWaitedForByTheDefaultSleep) {
  TestHttpServer server(protocol().path, [&](int n, const auto&, auto& response) {
    if (n == 1) {
      response.set_header("Retry-After", "0.2");
      answer(response, 429, "{}");
    } else {
      answer(response, 200, protocol().ok_body);
    }
  });
  ProviderOptions options = fast_options(server.base_url(), "m", kKey, waits_);
  options.retry.sleep = nullptr;
  const AgentReply reply = protocol().make(options)->complete(request());
  EXPECT_EQ(reply.attempts, 2);
  EXPECT_GE(reply.latency_s, 0.2);
}

TEST_P(ChatProvider, ServerErrorsAreRetriedUntilSuccess) {
  TestHttpServer server(protocol().path, [&](int n, const auto&, auto& response) {
    if (n <= 3) {
      answer(response, 500, R"({"error":{"message":"oops"}})");
    } else {
      answer(response, 200, protocol().ok_body);
    }
  });
  const AgentReply reply = agent(server, kKey, 5)->complete(request());
  EXPECT_EQ(reply.text, "hello");
  EXPECT_EQ(reply.attempts, 4);
  EXPECT_EQ(server.received().size(), 4u);
  const auto waits = waits_->get();
  ASSERT_EQ(waits.size(), 3u);
  for (const auto& wait : waits) EXPECT_LE(wait.count(), 0.005);
}

TEST_P(ChatProvider, ServerErrorsForeverEndTransientAfterTheAttempts) {
  TestHttpServer server(protocol().path, [&](int, const auto&, auto& response) {
    answer(response, 503, R"({"error":{"message":"overloaded, try later"}})");
  });
  const AgentError error = fail(*agent(server, kKey, 3));
  EXPECT_EQ(error.kind(), Kind::kTransient) << error.what();
  EXPECT_FALSE(error.fatal_for_run());
  EXPECT_EQ(server.received().size(), 3u);
  EXPECT_EQ(waits_->get().size(), 2u);
  const std::string what = error.what();
  EXPECT_NE(what.find("3 attempts"), std::string::npos) << what;
  EXPECT_NE(what.find("503"), std::string::npos) << what;
  EXPECT_NE(what.find("overloaded, try later"), std::string::npos) << what;
}

TEST_P(ChatProvider, ConnectionRefusedIsRetriedThenTransient) {
  ProviderOptions options = fast_options(
      "http://127.0.0.1:" + std::to_string(testing::unused_port()) + "/v1", "m", kKey, waits_);
  const AgentError error = fail(*protocol().make(options));
  EXPECT_EQ(error.kind(), Kind::kTransient) << error.what();
  EXPECT_EQ(waits_->get().size(), 2u);
  EXPECT_EQ(std::string(error.what()).find(kKey), std::string::npos) << error.what();
}

TEST_P(ChatProvider, UnauthorizedIsFinalAndNeverQuotesTheKey) {
  // The body echoes the key, as a careless server might.
  TestHttpServer server(protocol().path, [&](int, const httplib::Request& request, auto& response) {
    answer(
        response, 401,
        nlohmann::json{{"error",
                        {{"message", "bad key: " + request.get_header_value(protocol().key_header)},
                         {"type", "authentication_error"}}}}
            .dump());
  });
  const AgentError error = fail(*agent(server));
  EXPECT_EQ(error.kind(), Kind::kAuth);
  EXPECT_TRUE(error.fatal_for_run());
  EXPECT_EQ(server.received().size(), 1u);
  EXPECT_TRUE(waits_->get().empty());
  const std::string what = error.what();
  EXPECT_EQ(what.find(kKey), std::string::npos) << what;
  EXPECT_NE(what.find(protocol().key_env), std::string::npos) << what;
}

TEST_P(ChatProvider, ForbiddenWithoutAKeySaysTheVariableIsUnset) {
  TestHttpServer server(protocol().path, [&](int, const auto&, auto& response) {
    answer(response, 403, R"({"error":{"message":"no key"}})");
  });
  const AgentError error = fail(*agent(server, ""));
  EXPECT_EQ(error.kind(), Kind::kAuth);
  EXPECT_NE(std::string(error.what()).find(protocol().key_env + " is not set"), std::string::npos)
      << error.what();
}

TEST_P(ChatProvider, NotFoundIsAnUnknownModel) {
  TestHttpServer server(protocol().path, [&](int, const auto&, auto& response) {
    answer(response, 404, protocol().model_not_found_body);
  });
  const AgentError error = fail(*agent(server));
  EXPECT_EQ(error.kind(), Kind::kUnknownModel) << error.what();
  EXPECT_EQ(server.received().size(), 1u);
  EXPECT_NE(std::string(error.what()).find("'m'"), std::string::npos) << error.what();
}

TEST_P(ChatProvider, AModelNotFoundErrorBodyIsAnUnknownModelWhateverTheStatus) {
  TestHttpServer server(protocol().path, [&](int, const auto&, auto& response) {
    answer(response, 400, protocol().model_not_found_body);
  });
  const AgentError error = fail(*agent(server));
  EXPECT_EQ(error.kind(), Kind::kUnknownModel) << error.what();
  EXPECT_EQ(server.received().size(), 1u);
}

TEST_P(ChatProvider, BadRequestIsFinalWithTheProvidersMessageShortened) {
  const std::string message = "prompt is too long: " + std::string(2000, 'x');
  TestHttpServer server(protocol().path, [&](int, const auto&, auto& response) {
    answer(response, 400,
           nlohmann::json{{"error", {{"message", message}, {"type", "invalid_request_error"}}}}
               .dump());
  });
  const AgentError error = fail(*agent(server));
  EXPECT_EQ(error.kind(), Kind::kBadRequest);
  EXPECT_EQ(server.received().size(), 1u);
  const std::string what = error.what();
  EXPECT_NE(what.find("prompt is too long"), std::string::npos) << what;
  EXPECT_LT(what.size(), 600u);
}

TEST_P(ChatProvider, PayloadTooLargeAndUnprocessableAreBadRequests) {
  for (const int status : {413, 422}) {
    TestHttpServer server(protocol().path, [&](int, const auto&, auto& response) {
      answer(response, status, "too big");
    });
    const AgentError error = fail(*agent(server));
    EXPECT_EQ(error.kind(), Kind::kBadRequest) << status;
    EXPECT_NE(std::string(error.what()).find("too big"), std::string::npos) << error.what();
  }
}

TEST_P(ChatProvider, AStallPastTheTimeoutIsRetriedThenATimeout) {
  TestHttpServer* self = nullptr;
  TestHttpServer server(protocol().path, [&](int, const auto&, auto& response) {
    self->stall(std::chrono::seconds(3));
    answer(response, 200, protocol().ok_body);
  });
  self = &server;
  ProviderOptions options = fast_options(server.base_url(), "m", kKey, waits_, 2);
  options.timeout = Seconds(0.3);
  const auto start = std::chrono::steady_clock::now();
  const AgentError error = fail(*protocol().make(options));
  EXPECT_EQ(error.kind(), Kind::kTimeout) << error.what();
  EXPECT_EQ(server.received().size(), 2u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST_P(ChatProvider, ANonJsonSuccessIsMalformedWithoutRetry) {
  TestHttpServer server(protocol().path, [&](int, const auto&, auto& response) {
    answer(response, 200, "<html>gateway</html>");
  });
  const AgentError error = fail(*agent(server));
  EXPECT_EQ(error.kind(), Kind::kMalformed);
  EXPECT_EQ(server.received().size(), 1u);
  EXPECT_NE(std::string(error.what()).find("<html>gateway"), std::string::npos) << error.what();
}

TEST_P(ChatProvider, AJsonSuccessWithoutTheFieldsIsMalformed) {
  TestHttpServer server(protocol().path, [&](int, const auto&, auto& response) {
    answer(response, 200, R"({"id":"x","object":"something else"})");
  });
  const AgentError error = fail(*agent(server));
  EXPECT_EQ(error.kind(), Kind::kMalformed);
  EXPECT_EQ(server.received().size(), 1u);
}

TEST_P(ChatProvider, ConcurrentCallsEachGetTheirAnswer) {
  TestHttpServer server(protocol().path, [&](int n, const auto&, auto& response) {
    if (n <= 6) {
      answer(response, 500, "{}");  // some calls need retries, none more than 6
    } else {
      answer(response, 200, protocol().ok_body);
    }
  });
  const auto shared = agent(server, kKey, 10);
  std::atomic<int> answered{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 4; ++i) {
        try {
          if (shared->complete(request()).text == "hello") ++answered;
        } catch (const AgentError&) {
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(answered, 24);
  EXPECT_EQ(server.received().size(), 30u);
}

INSTANTIATE_TEST_SUITE_P(OpenAi, ChatProvider, ::testing::Values(openai()),
                         [](const auto& p) { return p.param.name; });
INSTANTIATE_TEST_SUITE_P(Anthropic, ChatProvider, ::testing::Values(anthropic()),
                         [](const auto& p) { return p.param.name; });

TEST(HttpProvider, OptionsFromTheEnvironmentReadTheKey) {
  constexpr ProviderIdentity kWho{"test", "HEADWAY_TEST_PROVIDER_KEY", "https://x/v1"};
  std::optional<testing::ScopedEnv> env;
  env.emplace(kWho.key_env, "sk-from-env");
  ProviderOptions options = options_from_env(kWho, "m-x", "http://127.0.0.1:1/v1");
  EXPECT_EQ(options.api_key, "sk-from-env");
  EXPECT_EQ(options.model, "m-x");
  EXPECT_EQ(options.base_url, "http://127.0.0.1:1/v1");
  EXPECT_EQ(options.timeout, Seconds(300.0));
  EXPECT_EQ(options.retry.attempts, 5);
  env.emplace(kWho.key_env, nullptr);
  EXPECT_EQ(options_from_env(kWho, "m-x").api_key, "");
  EXPECT_EQ(options_from_env(kWho, "m-x").base_url, "");
}

TEST(HttpProvider, RedactsEveryOccurrenceOfTheSecret) {
  EXPECT_EQ(redact("a sk-1 b sk-1", "sk-1"), "a [redacted] b [redacted]");
  EXPECT_EQ(redact("nothing", ""), "nothing");
}

TEST(HttpProvider, ShortensOnACharacterBoundary) {
  EXPECT_EQ(shorten("abc", 5), "abc");
  EXPECT_EQ(shorten("abcdef", 3), "abc...");
  EXPECT_EQ(shorten("a\xC3\xA9z", 2), "a...");  // é is not split
}

TEST(HttpProvider, EndpointUsesTheDefaultAndDropsTrailingSlashes) {
  EXPECT_EQ(endpoint("", "https://x/v1", "/messages"), "https://x/v1/messages");
  EXPECT_EQ(endpoint("http://h:1/v1//", "https://x/v1", "/m"), "http://h:1/v1/m");
}

}  // namespace
}  // namespace headway::agents
