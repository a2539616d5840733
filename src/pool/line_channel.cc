#include "pool/line_channel.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

#include "common/file_io.h"

namespace headway::pool {

namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

Clock::time_point deadline_after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string address_of(const sockaddr* a) {
  char host[NI_MAXHOST] = "";
  char port[NI_MAXSERV] = "";
  if (getnameinfo(a, a->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in), host,
                  sizeof host, port, sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return "?";
  }
  return fmt::format("{}:{}", host, port);
}

void set_no_delay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

std::string this_host_name() {
  char buf[256] = "";
  gethostname(buf, sizeof buf - 1);
  return buf;
}

LineChannel::LineChannel(int fd) : fd_(fd) {
  set_no_delay(fd_);
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getpeername(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    peer_ = address_of(reinterpret_cast<sockaddr*>(&a));
  }
}

LineChannel::~LineChannel() { close(fd_); }

Result<std::unique_ptr<LineChannel>> LineChannel::connect(const std::string& host, int port,
                                                          double timeout_seconds) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return environment_error(fmt::format("cannot resolve {}: {}", host, gai_strerror(rc)));
  }
  const auto deadline = deadline_after(timeout_seconds);
  std::string why = "no address";
  for (addrinfo* a = found; a; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) continue;
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, remaining_ms(deadline)) == 1) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        rc = err == 0 ? 0 : -1;
        errno = err;
      } else {
        errno = ETIMEDOUT;
      }
    }
    if (rc == 0) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      freeaddrinfo(found);
      return std::make_unique<LineChannel>(fd);
    }
    why = std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  return environment_error(fmt::format("cannot connect to {}:{}: {}", host, port, why));
}

bool LineChannel::send(const nlohmann::json& message) {
  const std::string line =
      message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = ::send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

LineChannel::Received LineChannel::receive(nlohmann::json* message, double timeout_seconds) {
  const auto deadline = deadline_after(timeout_seconds);
  for (;;) {
    if (const size_t end = buffer_.find('\n'); end != std::string::npos) {
      const std::string line = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      auto parsed = nlohmann::json::parse(line, nullptr, false);
      if (parsed.is_discarded() || !parsed.is_object()) return Received::kClosed;
      *message = std::move(parsed);
      return Received::kMessage;
    }
    if (buffer_.size() > kMaxMessageBytes) return Received::kClosed;
    pollfd p{fd_, POLLIN, 0};
    const int ready = poll(&p, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return Received::kTimeout;
    if (ready < 0) return Received::kClosed;
    char chunk[65536];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Received::kClosed;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

void LineChannel::shutdown() { ::shutdown(fd_, SHUT_RDWR); }

Result<std::unique_ptr<Listener>> Listener::open(const std::string& bind_host, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return environment_error(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  if (!bind_host.empty() && inet_pton(AF_INET, bind_host.c_str(), &a.sin_addr) != 1) {
    close(fd);
    return invalid_input(fmt::format("not an IPv4 address to listen on: {}", bind_host));
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 64) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    return environment_error(fmt::format("cannot listen on port {}: {}", port, why));
  }
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return std::unique_ptr<Listener>(new Listener(fd, ntohs(a.sin_port)));
}

Listener::~Listener() { close(fd_); }

std::unique_ptr<LineChannel> Listener::accept(double timeout_seconds) {
  pollfd p{fd_, POLLIN, 0};
  const auto deadline = deadline_after(timeout_seconds);
  for (;;) {
    const int ready = poll(&p, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0 || (p.revents & (POLLERR | POLLHUP | POLLNVAL))) return nullptr;
    const int fd = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return nullptr;
    return std::make_unique<LineChannel>(fd);
  }
}

void Listener::shutdown() { ::shutdown(fd_, SHUT_RDWR); }

std::optional<nlohmann::json> receive_hello(LineChannel& channel, const std::string& token,
                                            int protocol, const std::string& whose) {
  nlohmann::json hello;
  if (channel.receive(&hello, 5.0) != LineChannel::Received::kMessage) return std::nullopt;
  std::string why;
  if (hello.value("type", "") != "hello" || hello.value("token", "") != token) {
    why = fmt::format("not this {}'s token", whose);
  } else if (hello.value("protocol", 0) != protocol) {
    why = fmt::format("protocol {} here, {} there", protocol, hello.value("protocol", 0));
  }
  if (why.empty()) return hello;
  channel.send({{"type", "refused"}, {"why", why}});
  return std::nullopt;
}

Result<std::string> write_new_token(const std::filesystem::path& file) {
  std::ifstream in("/dev/urandom", std::ios::binary);
  unsigned char bytes[16];
  if (!in.read(reinterpret_cast<char*>(bytes), sizeof bytes)) {
    return environment_error("cannot read /dev/urandom for a token");
  }
  std::string hex;
  for (unsigned char b : bytes) hex += fmt::format("{:02x}", b);
  try {
    write_file_creating_folders(file, hex + "\n");
    std::filesystem::permissions(
        file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  } catch (const std::exception& e) {
    return environment_error(e.what());
  }
  return hex;
}

}  // namespace headway::pool
