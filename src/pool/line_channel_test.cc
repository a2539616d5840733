#include "pool/line_channel.h"

#include <gtest/gtest.h>

#include <thread>

namespace headway::pool {
namespace {

struct Connected {
  std::unique_ptr<Listener> listener;
  std::unique_ptr<LineChannel> client, server;
};

Connected connected_pair() {
  Connected c;
  auto l = Listener::open("127.0.0.1");
  EXPECT_TRUE(l);
  c.listener = std::move(*l);
  auto client = LineChannel::connect("127.0.0.1", c.listener->port(), 5);
  EXPECT_TRUE(client) << client.error().message;
  c.client = std::move(*client);
  c.server = c.listener->accept(5);
  EXPECT_TRUE(c.server);
  return c;
}

TEST(LineChannel, CarriesJsonObjectsBothWaysInOrder) {
  Connected c = connected_pair();
  ASSERT_TRUE(c.client->send({{"type", "hello"}, {"n", 1}}));
  ASSERT_TRUE(c.client->send({{"type", "job"}, {"text", std::string(200000, 'x')}}));
  nlohmann::json m;
  ASSERT_EQ(c.server->receive(&m, 5), LineChannel::Received::kMessage);
  EXPECT_EQ(m["n"], 1);
  ASSERT_EQ(c.server->receive(&m, 5), LineChannel::Received::kMessage);
  EXPECT_EQ(m["text"].get<std::string>().size(), 200000u);
  ASSERT_TRUE(c.server->send({{"type", "welcome"}}));
  ASSERT_EQ(c.client->receive(&m, 5), LineChannel::Received::kMessage);
  EXPECT_EQ(m["type"], "welcome");
}

TEST(LineChannel, SaysTimeoutWhenNothingCameAndClosedWhenThePeerLeft) {
  Connected c = connected_pair();
  nlohmann::json m;
  EXPECT_EQ(c.server->receive(&m, 0.05), LineChannel::Received::kTimeout);
  c.client.reset();
  EXPECT_EQ(c.server->receive(&m, 5), LineChannel::Received::kClosed);
  EXPECT_FALSE(c.server->send({{"type", "ping"}}) && c.server->send({{"type", "ping"}}) &&
               c.server->send({{"type", "ping"}}))
      << "sending to a closed peer fails by the second write at the latest";
}

TEST(LineChannel, ALineThatIsNotAJsonObjectEndsTheConversation) {
  Connected c = connected_pair();
  ASSERT_TRUE(c.client->send(nlohmann::json::array({1, 2})));
  nlohmann::json m;
  EXPECT_EQ(c.server->receive(&m, 5), LineChannel::Received::kClosed);
}

TEST(LineChannel, OutputThatIsNotUtf8IsSentWithReplacements) {
  Connected c = connected_pair();
  ASSERT_TRUE(c.client->send({{"output", std::string("ok\xff")}}));
  nlohmann::json m;
  ASSERT_EQ(c.server->receive(&m, 5), LineChannel::Received::kMessage);
  EXPECT_EQ(m["output"], "ok\xEF\xBF\xBD");
}

TEST(LineChannel, ShutdownEndsABlockedReceiveFromAnotherThread) {
  Connected c = connected_pair();
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    c.server->shutdown();
  });
  nlohmann::json m;
  EXPECT_EQ(c.server->receive(&m, 10), LineChannel::Received::kClosed);
  stopper.join();
}

TEST(LineChannel, ConnectingWhereNobodyListensIsAnEnvironmentError) {
  int port = 0;
  {
    auto l = Listener::open("127.0.0.1");
    ASSERT_TRUE(l);
    port = (*l)->port();
  }
  const auto c = LineChannel::connect("127.0.0.1", port, 2);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, ErrorCode::kEnvironment);
  EXPECT_NE(c.error().message.find("cannot connect"), std::string::npos);
  EXPECT_FALSE(LineChannel::connect("no-such-host.invalid", 1, 2));
  EXPECT_EQ(Listener::open("not-an-address").error().code, ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace headway::pool
