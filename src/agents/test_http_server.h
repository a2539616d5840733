#pragma once
// For tests: a real HTTP server on 127.0.0.1 (cpp-httplib) that stands in for an LLM provider
// and records the requests it received.
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace headway::agents::testing {

struct ReceivedRequest {
  std::string path;
  httplib::Headers headers;
  std::string body;

  // The header's value, or "" where it was not sent.
  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  bool has_header(const std::string& name) const { return headers.count(name) > 0; }
};

// Answers with status 200 and `body` as JSON.
inline void answer_json(httplib::Response& response, const nlohmann::json& body) {
  response.status = 200;
  response.set_content(body.dump(), "application/json");
}

// Answers POSTs to `path` with `handler` (which sees the request number, 1 for the first) from
// a thread of its own; stopped and joined on destruction.
class TestHttpServer {
 public:
  using Handler = std::function<void(int n, const httplib::Request&, httplib::Response&)>;

  TestHttpServer(const std::string& path, Handler handler) : handler_(std::move(handler)) {
    server_.Post(path, [this](const httplib::Request& request, httplib::Response& response) {
      int n = 0;
      {
        std::lock_guard lock(mutex_);
        received_.push_back({request.path, request.headers, request.body});
        n = static_cast<int>(received_.size());
      }
      handler_(n, request, response);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }

  ~TestHttpServer() {
    closing_ = true;
    // stop() does nothing before the accept loop runs.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    server_.stop();
    thread_.join();
  }

  // For handlers: waits up to `limit`, less once the server is being destroyed (a stalled
  // provider that lets the test end promptly).
  void stall(std::chrono::milliseconds limit) const {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!closing_ && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  int port() const { return port_; }
  // "http://127.0.0.1:<port>/v1"
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

  std::vector<ReceivedRequest> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  Handler handler_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> closing_{false};
  mutable std::mutex mutex_;
  std::vector<ReceivedRequest> received_;
};

// What a provider's 200 says when it answers `text`, in the protocol's format ("openai" chat
// completions, or "anthropic" messages); truncated: it stopped at max_tokens.
struct ScriptedReply {
  std::string text;
  std::string model = "scripted-1";
  int input_tokens = 1000;
  int output_tokens = 100;
  bool truncated = false;
};
inline std::string reply_body(const std::string& protocol, const ScriptedReply& r) {
  if (protocol == "anthropic") {
    return nlohmann::json{
        {"model", r.model},
        {"type", "message"},
        {"role", "assistant"},
        {"content", {{{"type", "text"}, {"text", r.text}}}},
        {"stop_reason", r.truncated ? "max_tokens" : "end_turn"},
        {"usage", {{"input_tokens", r.input_tokens}, {"output_tokens", r.output_tokens}}}}
        .dump();
  }
  return nlohmann::json{
      {"model", r.model},
      {"choices",
       {{{"index", 0},
         {"message", {{"role", "assistant"}, {"content", r.text}}},
         {"finish_reason", r.truncated ? "length" : "stop"}}}},
      {"usage", {{"prompt_tokens", r.input_tokens}, {"completion_tokens", r.output_tokens}}}}
      .dump();
}

// A loopback port nothing listens on (one just bound and released; reuse in between is
// unlikely).
inline int unused_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

}  // namespace headway::agents::testing
