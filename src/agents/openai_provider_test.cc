#include "agents/openai_provider.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "agents/provider_test_support.h"
#include "agents/test_http_server.h"

namespace headway::agents {
namespace {

using nlohmann::json;
using testing::answer_json;
using testing::fast_options;
using testing::RecordedWaits;
using testing::TestHttpServer;

constexpr const char* kCompletionsPath = "/v1/chat/completions";

OpenAiProvider openai(const TestHttpServer& server, const std::string& key = "sk-openai") {
  return testing::provider_at<OpenAiProvider>(server, "gpt-test", key);
}

TEST(OpenAiProvider, SendsModelMessagesAndMaxTokensAndParsesTheReply) {
  TestHttpServer server(
      kCompletionsPath, [](int, const httplib::Request&, httplib::Response& response) {
        answer_json(response, {{"id", "c1"},
                               {"model", "gpt-test-2025"},
                               {"choices",
                                {{{"index", 0},
                                  {"message", {{"role", "assistant"}, {"content", "the answer"}}},
                                  {"finish_reason", "stop"}}}},
                               {"usage", {{"prompt_tokens", 12}, {"completion_tokens", 34}}}});
      });
  OpenAiProvider agent = openai(server);
  EXPECT_EQ(agent.provider(), "openai");
  EXPECT_EQ(agent.model(), "gpt-test");
  AgentRequest request;
  request.system = "you design kernels";
  request.prompt = "make it fast";
  request.max_tokens = 321;
  request.files = {{"kernel.cc", "not sent"}};
  const AgentReply reply = agent.complete(request);
  EXPECT_EQ(reply.text, "the answer");
  EXPECT_EQ(reply.model, "gpt-test-2025");
  EXPECT_EQ(reply.input_tokens, 12);
  EXPECT_EQ(reply.output_tokens, 34);
  EXPECT_FALSE(reply.truncated);
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_TRUE(reply.files.empty());

  const auto received = server.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].path, kCompletionsPath);
  EXPECT_EQ(received[0].header("Authorization"), "Bearer sk-openai");
  EXPECT_EQ(received[0].header("Content-Type"), "application/json");
  const json body = json::parse(received[0].body);
  EXPECT_EQ(body["model"], "gpt-test");
  EXPECT_EQ(body["max_tokens"], 321);
  EXPECT_EQ(body["messages"], json::parse(R"([{"role":"system","content":"you design kernels"},
                                              {"role":"user","content":"make it fast"}])"));
  EXPECT_EQ(received[0].body.find("not sent"), std::string::npos);
}

TEST(OpenAiProvider, OpenAisOwnApiGetsMaxCompletionTokensOtherServersMaxTokens) {
  EXPECT_EQ(token_limit_field(""), "max_completion_tokens");
  EXPECT_EQ(token_limit_field("https://api.openai.com/v1"), "max_completion_tokens");
  EXPECT_EQ(token_limit_field("http://127.0.0.1:8000/v1"), "max_tokens");
  EXPECT_EQ(token_limit_field("https://api.openai.com.example.org/v1"), "max_tokens");
}

// OpenAI's reasoning models answer a request with "max_tokens" like this.
constexpr const char* kUseCompletionTokens =
    R"({"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}})";

TEST(OpenAiProvider, AModelThatRefusesMaxTokensGetsMaxCompletionTokensFromThenOn) {
  TestHttpServer server(
      kCompletionsPath, [](int, const httplib::Request& request, httplib::Response& response) {
        if (json::parse(request.body).contains("max_tokens")) {
          response.status = 400;
          response.set_content(kUseCompletionTokens, "application/json");
          return;
        }
        answer_json(response, {{"choices", {{{"message", {{"content", "ok"}}}}}}});
      });
  OpenAiProvider agent = openai(server);
  AgentRequest request;
  request.max_tokens = 99;
  EXPECT_EQ(agent.complete(request).text, "ok");
  EXPECT_EQ(agent.complete(request).text, "ok");
  const auto received = server.received();
  ASSERT_EQ(received.size(), 3u) << "one refused request, then the field is remembered";
  EXPECT_EQ(json::parse(received[0].body)["max_tokens"], 99);
  EXPECT_EQ(json::parse(received[1].body)["max_completion_tokens"], 99);
  EXPECT_FALSE(json::parse(received[1].body).contains("max_tokens"));
  EXPECT_EQ(json::parse(received[2].body)["max_completion_tokens"], 99);
}

TEST(OpenAiProvider, ABadRequestForAnotherReasonIsNotRetriedWithTheOtherField) {
  TestHttpServer server(
      kCompletionsPath, [](int, const httplib::Request&, httplib::Response& response) {
        response.status = 400;
        response.set_content(R"({"error":{"message":"messages: too long"}})", "application/json");
      });
  try {
    openai(server).complete(AgentRequest{});
    ADD_FAILURE() << "no error";
  } catch (const AgentError& e) {
    EXPECT_EQ(e.kind(), AgentError::Kind::kBadRequest);
    EXPECT_NE(std::string(e.what()).find("too long"), std::string::npos) << e.what();
  }
  EXPECT_EQ(server.received().size(), 1u);
}

TEST(OpenAiProvider, WhenBothFieldsAreRefusedTheSecondErrorIsTheCallsAndNothingIsRemembered) {
  TestHttpServer server(kCompletionsPath, [](int, const httplib::Request& request,
                                             httplib::Response& response) {
    response.status = 400;
    const bool old = json::parse(request.body).contains("max_tokens");
    response.set_content(old ? kUseCompletionTokens
                             : R"({"error":{"message":"max_completion_tokens is too large: 10"}})",
                         "application/json");
  });
  OpenAiProvider agent = openai(server);
  for (int call = 0; call < 2; ++call) {
    try {
      agent.complete(AgentRequest{});
      ADD_FAILURE() << "no error";
    } catch (const AgentError& e) {
      EXPECT_NE(std::string(e.what()).find("too large"), std::string::npos) << e.what();
    }
  }
  const auto received = server.received();
  ASSERT_EQ(received.size(), 4u);
  EXPECT_TRUE(json::parse(received[2].body).contains("max_tokens")) << "still the first field";
}

TEST(OpenAiProvider, WithoutASystemPromptOrKeySendsOnlyTheUserMessage) {
  TestHttpServer server(
      kCompletionsPath, [](int, const httplib::Request&, httplib::Response& response) {
        answer_json(response, {{"choices", {{{"message", {{"content", "ok"}}}}}}});
      });
  AgentRequest request;
  request.prompt = "hi";
  const AgentReply reply = openai(server, "").complete(request);
  EXPECT_EQ(reply.text, "ok");
  EXPECT_EQ(reply.model, "gpt-test");  // the server did not say
  EXPECT_EQ(reply.input_tokens, 0);
  const auto received = server.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_FALSE(received[0].has_header("Authorization"));
  EXPECT_EQ(json::parse(received[0].body)["messages"],
            json::parse(R"([{"role":"user","content":"hi"}])"));
}

TEST(OpenAiProvider, FinishReasonLengthIsTruncated) {
  TestHttpServer server(kCompletionsPath, [](int, const httplib::Request&,
                                             httplib::Response& response) {
    answer_json(
        response,
        {{"choices", {{{"message", {{"content", "half an ans"}}}, {"finish_reason", "length"}}}}});
  });
  const AgentReply reply = openai(server).complete(AgentRequest{});
  EXPECT_EQ(reply.text, "half an ans");
  EXPECT_TRUE(reply.truncated);
}

TEST(OpenAiProvider, NullContentReadsAsEmptyText) {
  TestHttpServer server(
      kCompletionsPath, [](int, const httplib::Request&, httplib::Response& response) {
        answer_json(
            response,
            {{"choices", {{{"message", {{"content", nullptr}}}, {"finish_reason", "length"}}}}});
      });
  const AgentReply reply = openai(server).complete(AgentRequest{});
  EXPECT_EQ(reply.text, "");
  EXPECT_TRUE(reply.truncated);
}

TEST(OpenAiProvider, EmptyChoicesOrAMissingContentAreMalformed) {
  testing::expect_each_malformed(kCompletionsPath,
                                 {R"({"choices":[]})", R"({"choices":[{"message":{"role":"x"}}]})",
                                  R"({"choices":[{"message":{"content":3}}]})", R"([1,2])"},
                                 [](const TestHttpServer& server) { return openai(server); });
}

TEST(OpenAiProvider, ABaseUrlWithATrailingSlashReachesTheSameEndpoint) {
  TestHttpServer server(
      kCompletionsPath, [](int, const httplib::Request&, httplib::Response& response) {
        answer_json(response, {{"choices", {{{"message", {{"content", "ok"}}}}}}});
      });
  ProviderOptions options =
      fast_options(server.base_url() + "/", "m", "", std::make_shared<RecordedWaits>());
  EXPECT_EQ(OpenAiProvider(options).complete(AgentRequest{}).text, "ok");
}

TEST(OpenAiProvider, ItsKeyComesFromOpenAiApiKey) {
  EXPECT_STREQ(OpenAiProvider::kIdentity.key_env, "OPENAI_API_KEY");
}

}  // namespace
}  // namespace headway::agents
