#include "agents/anthropic_provider.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "agents/provider_test_support.h"
#include "agents/test_http_server.h"

namespace headway::agents {
namespace {

using nlohmann::json;
using testing::answer_json;
using testing::TestHttpServer;

constexpr const char* kPath = "/v1/messages";

AnthropicProvider provider(const TestHttpServer& server, const std::string& key = "sk-ant") {
  return testing::provider_at<AnthropicProvider>(server, "claude-test", key);
}

TEST(AnthropicProvider, SendsModelSystemMessagesAndMaxTokensAndParsesTheReply) {
  TestHttpServer server(kPath, [](int, const httplib::Request&, httplib::Response& response) {
    answer_json(response,
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
    answer_json(response, {{"content", json::array()}});
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
    answer_json(response, {{"content", {{{"type", "text"}, {"text", "half"}}}},
                           {"stop_reason", "max_tokens"}});
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
      answer_json(response, {{"content", {{{"type", "text"}, {"text", "ok"}}}}});
    }
  });
  const AgentReply reply = provider(server).complete(AgentRequest{});
  EXPECT_EQ(reply.text, "ok");
  EXPECT_EQ(reply.attempts, 2);
}

TEST(AnthropicProvider, ContentThatIsNotBlocksIsMalformed) {
  testing::expect_each_malformed(
      kPath,
      {R"({"content":"text"})", R"({"content":[1]})", R"({"content":[{"type":"text"}]})",
       R"({"completion":"old API"})"},
      [](const TestHttpServer& server) { return provider(server); });
}

TEST(AnthropicProvider, ItsKeyComesFromAnthropicApiKey) {
  EXPECT_STREQ(AnthropicProvider::kIdentity.key_env, "ANTHROPIC_API_KEY");
}

}  // namespace
}  // namespace headway::agents
