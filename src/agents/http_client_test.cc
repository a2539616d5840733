#include "agents/http_client.h"

#include <gtest/gtest.h>

#include <chrono>

#include "agents/test_http_server.h"

namespace headway::agents {
namespace {

using testing::TestHttpServer;

TEST(HttpClient, PostsJsonAndReturnsStatusHeadersAndBody) {
  TestHttpServer server("/v1/echo",
                        [](int, const httplib::Request& request, httplib::Response& response) {
                          response.status = 201;
                          response.set_header("Retry-After", "7");
                          response.set_content("got " + request.body, "application/json");
                        });
  const HttpResponse response = post_json(server.base_url() + "/echo", {"X-Test: yes"},
                                          R"({"a":1})", std::chrono::seconds(5));
  EXPECT_EQ(response.status, 201);
  EXPECT_EQ(response.body, R"(got {"a":1})");
  EXPECT_EQ(response.header("retry-after"), "7");
  EXPECT_EQ(response.header("RETRY-AFTER"), "7");
  EXPECT_EQ(response.header("X-Missing"), std::nullopt);
  const auto received = server.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].header("X-Test"), "yes");
  EXPECT_EQ(received[0].header("Content-Type"), "application/json");
}

TEST(HttpClient, ReturnsErrorStatusesWithoutThrowing) {
  TestHttpServer server("/v1/x", [](int, const httplib::Request&, httplib::Response& response) {
    response.status = 503;
    response.set_content("busy", "text/plain");
  });
  const HttpResponse response =
      post_json(server.base_url() + "/x", {}, "{}", std::chrono::seconds(5));
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(response.body, "busy");
}

TEST(HttpClient, ConnectionRefusedIsATransportErrorThatDidNotTimeOut) {
  const std::string url = "http://127.0.0.1:" + std::to_string(testing::unused_port()) + "/v1";
  try {
    post_json(url, {"Authorization: Bearer sk-secret"}, "{}", std::chrono::seconds(5));
    FAIL() << "no error";
  } catch (const HttpTransportError& e) {
    EXPECT_FALSE(e.timed_out());
    EXPECT_NE(std::string(e.what()).find(url), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("sk-secret"), std::string::npos) << e.what();
  }
}

TEST(HttpClient, AStallPastTheLimitIsATimeout) {
  TestHttpServer* self = nullptr;
  TestHttpServer server("/v1/slow", [&](int, const httplib::Request&, httplib::Response& response) {
    self->stall(std::chrono::seconds(3));
    response.set_content("{}", "application/json");
  });
  self = &server;
  const auto start = std::chrono::steady_clock::now();
  try {
    post_json(server.base_url() + "/slow", {}, "{}", std::chrono::milliseconds(300));
    FAIL() << "no error";
  } catch (const HttpTransportError& e) {
    EXPECT_TRUE(e.timed_out()) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace headway::agents
