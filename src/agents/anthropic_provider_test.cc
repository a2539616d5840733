#include "agents/anthropic_provider.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "agents/provider_test_support.h"
#include "agents/test_http_server.h"

namespace headway::agents {
namespace {

using nlohmann::json;
using testing::fast_options;
using testing::RecordedWaits;
using testing::ScopedEnv;
using testing::TestHttpServer;

constexpr const char* kPath = "/v1/messages";

void answer(httplib::Response& response, const json& body) {
  response.status = 200;
  response.set_content(body.dump(), "application/json");
}

AnthropicProvider provider(const TestHttpServer& server, const std::string& key = "sk-ant") {
  return AnthropicProvider(
      fast_options(server.base_url(), "claude-test", key, std::make_shared<RecordedWaits>()));
}

TEST(AnthropicProvider, SendsModelSystemMessagesAndMaxTokensAndParsesTheReply) {
  TestHttpServer server(kPath, [](int, const httplib::Request&, httplib::Response& response) {
    answer(response,
           {{"id", "msg_1"},
            {"type", "message"},
            {"model", "claude-test-20250101"},
            {"content",
             {{{"type", "thinking"}, {"thinking", "hmm"}},
              {{"type", "text"}, {"text", "first "}},
              {{"type", "tool_use"}, {"id", "t"}, {"name", "x"}, {"input", json::object()}},
              {{"type", "text"}, {"text", "second"}}}},
            {"stop_reason", "end_turn"},
            {"usage", {{"input_tokens", 21}, {"output_tokens", 8}}}});
  });
  AnthropicProvider agent = provider(server);
  EXPECT_EQ(agent.provider(), "anthropic");
  EXPECT_EQ(agent.model(), "claude-test");
  AgentRequest request;
  request.system = "you design kernels";
  request.prompt = "make it fast";
  request.max_tokens = 777;
  const AgentReply reply = agent.complete(request);
  EXPECT_EQ(reply.text, "first second");
  EXPECT_EQ(reply.model, "claude-test-20250101");
  EXPECT_EQ(reply.input_tokens, 21);
  EXPECT_EQ(reply.output_tokens, 8);
  EXPECT_FALSE(reply.truncated);
  EXPECT_EQ(reply.attempts, 1);

  const auto received = server.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].path, kPath);
  EXPECT_EQ(received[0].header("x-api-key"), "sk-ant");
  EXPECT_EQ(received[0].header("anthropic-version"), "2023-06-01");
  EXPECT_FALSE(received[0].has_header("Authorization"));
  const json body = json::parse(received[0].body);
  EXPECT_EQ(body["model"], "claude-test");
  EXPECT_EQ(body["max_tokens"], 777);
  EXPECT_EQ(body["system"], "you design kernels");
  EXPECT_EQ(body["messages"], json::parse(R"([{"role":"user","content":"make it fast"}])"));
}

TEST(AnthropicProvider, WithoutASystemPromptOrKeySendsNeither) {
  TestHttpServer server(kPath, [](int, const httplib::Request&, httplib::Response& response) {
    answer(response, {{"content", json::array()}});
  });
  AgentRequest request;
  request.prompt = "hi";
  const AgentReply reply = provider(server, "").complete(request);
  EXPECT_EQ(reply.text, "");
  EXPECT_EQ(reply.model, "claude-test");
  const auto received = server.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_FALSE(received[0].has_header("x-api-key"));
  EXPECT_EQ(received[0].header("anthropic-version"), "2023-06-01");
  EXPECT_FALSE(json::parse(received[0].body).contains("system"));
}

TEST(AnthropicProvider, StopReasonMaxTokensIsTruncated) {
  TestHttpServer server(kPath, [](int, const httplib::Request&, httplib::Response& response) {
    answer(response,
           {{"content", {{{"type", "text"}, {"text", "half"}}}}, {"stop_reason", "max_tokens"}});
  });
  const AgentReply reply = provider(server).complete(AgentRequest{});
  EXPECT_EQ(reply.text, "half");
  EXPECT_TRUE(reply.truncated);
}

TEST(AnthropicProvider, OverloadedIsRetried) {
  TestHttpServer server(kPath, [](int n, const httplib::Request&, httplib::Response& response) {
    if (n == 1) {
      response.status = 529;
      response.set_content(R"({"type":"error","error":{"type":"overloaded_error"}})",
                           "application/json");
    } else {
      answer(response, {{"content", {{{"type", "text"}, {"text", "ok"}}}}});
    }
  });
  const AgentReply reply = provider(server).complete(AgentRequest{});
  EXPECT_EQ(reply.text, "ok");
  EXPECT_EQ(reply.attempts, 2);
}

TEST(AnthropicProvider, ContentThatIsNotBlocksIsMalformed) {
  for (const char* body : {R"({"content":"text"})", R"({"content":[1]})",
                           R"({"content":[{"type":"text"}]})", R"({"completion":"old API"})"}) {
    TestHttpServer server(kPath, [&](int, const httplib::Request&, httplib::Response& response) {
      response.set_content(body, "application/json");
    });
    try {
      provider(server).complete(AgentRequest{});
      ADD_FAILURE() << "no error for " << body;
    } catch (const AgentError& e) {
      EXPECT_EQ(e.kind(), AgentError::Kind::kMalformed) << body;
    }
  }
}

TEST(AnthropicProvider, OptionsFromTheEnvironmentReadTheKey) {
  std::optional<ScopedEnv> env;
  env.emplace("ANTHROPIC_API_KEY", "sk-ant-from-env");
  ProviderOptions options = anthropic_options_from_env("claude-x");
  EXPECT_EQ(options.api_key, "sk-ant-from-env");
  EXPECT_EQ(options.model, "claude-x");
  EXPECT_EQ(options.base_url, "");
  env.emplace("ANTHROPIC_API_KEY", nullptr);
  EXPECT_EQ(anthropic_options_from_env("claude-x").api_key, "");
}

}  // namespace
}  // namespace headway::agents
