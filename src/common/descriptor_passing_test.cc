// Descriptor passing over a real socket pair, with a real pipe as the descriptor.
#include "common/descriptor_passing.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

namespace headway {
namespace {

TEST(DescriptorPassing, TheReceivedDescriptorReachesTheSameFile) {
  int sockets[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sockets), 0);
  int pipe_ends[2];
  ASSERT_EQ(pipe(pipe_ends), 0);
  const int message = 42;
  ASSERT_EQ(send_with_descriptor(sockets[0], &message, sizeof message, pipe_ends[1]),
            static_cast<ssize_t>(sizeof message));
  close(pipe_ends[1]);
  int got = 0;
  int fd = -1;
  ASSERT_EQ(receive_with_descriptor(sockets[1], &got, sizeof got, &fd),
            static_cast<ssize_t>(sizeof got));
  EXPECT_EQ(got, 42);
  ASSERT_GE(fd, 0);
  EXPECT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0) << "a received descriptor is close-on-exec";
  ASSERT_EQ(write(fd, "x", 1), 1);  // the only writer left is the received copy
  close(fd);
  char c = 0;
  ASSERT_EQ(read(pipe_ends[0], &c, 1), 1);
  EXPECT_EQ(c, 'x');
  EXPECT_EQ(read(pipe_ends[0], &c, 1), 0) << "the writer was not closed";
  close(pipe_ends[0]);
  close(sockets[0]);
  close(sockets[1]);
}

TEST(DescriptorPassing, AMessageWithoutADescriptorGivesNone) {
  int sockets[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sockets), 0);
  const int message = 7;
  ASSERT_EQ(send_with_descriptor(sockets[0], &message, sizeof message, -1),
            static_cast<ssize_t>(sizeof message));
  close(sockets[0]);
  int got = 0;
  int fd = 123;
  EXPECT_EQ(receive_with_descriptor(sockets[1], &got, sizeof got, &fd),
            static_cast<ssize_t>(sizeof got));
  EXPECT_EQ(got, 7);
  EXPECT_EQ(fd, -1);
  // At end of input: 0 bytes, no descriptor.
  EXPECT_EQ(receive_with_descriptor(sockets[1], &got, sizeof got, &fd), 0);
  EXPECT_EQ(fd, -1);
  close(sockets[1]);
}

TEST(DescriptorPassing, SendingOnAClosedSocketFailsWithoutASignal) {
  int sockets[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sockets), 0);
  close(sockets[1]);
  const int message = 1;
  EXPECT_EQ(send_with_descriptor(sockets[0], &message, sizeof message, -1), -1);
  EXPECT_EQ(errno, EPIPE);
  close(sockets[0]);
}

}  // namespace
}  // namespace headway
