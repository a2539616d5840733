#include "common/wait_readable.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>

namespace headway {

int wait_readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    const int ready = poll(&p, 1, static_cast<int>(std::max<int64_t>(left, 0)));
    if (ready > 0) return 1;
    if (ready == 0) return 0;
    if (errno != EINTR) return -1;
  }
}

int poll_timeout_ms(double seconds) { return static_cast<int>(std::min(seconds * 1e3, 1e9)); }

}  // namespace headway
