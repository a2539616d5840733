#pragma once
// Waiting for a descriptor to become readable, through interrupted polls.

namespace headway {

// Waits up to timeout_ms for input on fd: 1 ready, 0 timed out, -1 error. A poll interrupted by
// a signal goes on waiting for what is left of the time.
int wait_readable(int fd, int timeout_ms);

// `seconds` as a poll timeout in milliseconds, truncated, at most 1e9.
int poll_timeout_ms(double seconds);

}  // namespace headway
