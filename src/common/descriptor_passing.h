#pragma once
// One message with one file descriptor attached (SCM_RIGHTS) over a Unix-domain socket: how
// headway hands a runner child its channel, and how a helper process hands back a file it made.
// Both calls use only system calls, so a child between fork and exec may use them.
#include <sys/types.h>

#include <cstddef>

namespace headway {

// Sends `bytes` of `data` with `fd` attached (none when fd < 0). The bytes sent, or -1 with
// errno set. Retries when interrupted; never raises SIGPIPE.
ssize_t send_with_descriptor(int socket, const void* data, size_t bytes, int fd);

// Receives one message of at most `bytes` into `data`. *fd is the descriptor it carried
// (close-on-exec here), or -1 when it carried none. The bytes received (0 at end of input), or
// -1 with errno set. Retries when interrupted.
ssize_t receive_with_descriptor(int socket, void* data, size_t bytes, int* fd);

}  // namespace headway
