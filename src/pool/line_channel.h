#pragma once
// A TCP connection that carries one JSON object per line, between a device pool and its workers
// (worker.h). Messages are at most kMaxMessageBytes; output that is not UTF-8 is sent with the
// replacement character. Not thread-safe except shutdown(), which another thread may call to
// end a blocked receive().
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/result.h"

namespace headway::pool {

inline constexpr size_t kMaxMessageBytes = 64u << 20;

class LineChannel {
 public:
  explicit LineChannel(int fd);  // takes ownership of a connected socket
  ~LineChannel();
  LineChannel(const LineChannel&) = delete;
  LineChannel& operator=(const LineChannel&) = delete;

  // Connects to host:port within timeout_seconds.
  static Result<std::unique_ptr<LineChannel>> connect(const std::string& host, int port,
                                                      double timeout_seconds);

  // False when the peer is gone (or the channel was shut down).
  bool send(const nlohmann::json& message);

  enum class Received { kMessage, kTimeout, kClosed };
  // Waits up to timeout_seconds for the next message. kClosed: the peer closed the connection,
  // sent a line that is not JSON or too long, or the channel was shut down.
  Received receive(nlohmann::json* message, double timeout_seconds);

  void shutdown();
  std::string peer() const { return peer_; }  // "127.0.0.1:40312"

 private:
  int fd_;
  std::string buffer_;  // bytes received after the last whole line
  std::string peer_;
};

// This machine's host name (gethostname).
std::string this_host_name();

// The introduction a pool's listener reads first on a new connection (worker.h, pool_broker.h):
// {"type":"hello","token","protocol",...} within 5 s, with this `token` and `protocol`. nullopt
// when it is not, after answering {"type":"refused","why"} ("not this <whose>'s token").
std::optional<nlohmann::json> receive_hello(LineChannel& channel, const std::string& token,
                                            int protocol, const std::string& whose);

// Writes a fresh secret (128 random bits, in hex) to `file`, creating its folders, readable and
// writable by the user only, and returns it: what a connecting peer must show (worker.h,
// pool_broker.h). An Error when /dev/urandom or the file cannot be used.
Result<std::string> write_new_token(const std::filesystem::path& file);

// A listening TCP socket on every interface (or the one `bind_host` names), on a port the system
// chooses unless one is given.
class Listener {
 public:
  static Result<std::unique_ptr<Listener>> open(const std::string& bind_host = "", int port = 0);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  int port() const { return port_; }
  // The next connection within timeout_seconds, or nullptr (timeout, or shut down).
  std::unique_ptr<LineChannel> accept(double timeout_seconds);
  void shutdown();

 private:
  Listener(int fd, int port) : fd_(fd), port_(port) {}
  int fd_;
  int port_;
};

}  // namespace headway::pool
