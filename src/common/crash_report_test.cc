// A process that dies of a signal reports it with its stack first, and still dies of it.
#include "common/crash_report.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <limits>
#include <string>

namespace headway {
namespace {

// Not inlined, so that the stack has a frame of this file's to show.
[[gnu::noinline]] void write_through(uintptr_t address) {
  volatile uintptr_t at = address;
  *reinterpret_cast<volatile int*>(at) = 1;
}

// Each frame keeps a buffer the optimizer cannot drop, so that the recursion overflows the stack
// (its end, which no stack reaches, only to keep the compiler from calling it infinite).
[[gnu::noinline]] int recurse(int depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  if (depth == std::numeric_limits<int>::max()) return frame[0];
  return recurse(depth + 1) + frame[0];
}

TEST(CrashReportDeathTest, AFaultNamesItsSignalAndAddressAndTheStackThenKillsAsTheSignalDoes) {
  EXPECT_EXIT(
      {
        install_crash_report("crash_test");
        write_through(0x10);
      },
      testing::KilledBySignal(SIGSEGV),
      "crash_test: fatal signal SIGSEGV \\(address 0x10\\); stack, innermost first:\n.*"
      "headway_tests");
}

TEST(CrashReportDeathTest, ARaisedSignalIsReportedWithoutAnAddressAndStillEndsTheProcess) {
  EXPECT_EXIT(
      {
        install_crash_report("crash_test");
        install_crash_report("crash_test");  // twice changes nothing
        raise(SIGBUS);
      },
      testing::KilledBySignal(SIGBUS), "crash_test: fatal signal SIGBUS; stack");
  EXPECT_EXIT(
      {
        install_crash_report("crash_test");
        abort();
      },
      testing::KilledBySignal(SIGABRT), "crash_test: fatal signal SIGABRT; stack");
}

TEST(CrashReportDeathTest, AStackOverflowIsReportedFromTheSignalStack) {
  EXPECT_EXIT(
      {
        install_crash_report("crash_test");
        recurse(0);
      },
      testing::KilledBySignal(SIGSEGV), "crash_test: fatal signal SIGSEGV \\(address 0x");
}

// A child forked to run code that may crash (a spec's reference) dies of its fault as it would
// without the report, and writes nothing: its parent says how it ended.
TEST(CrashReport, AForkedChildDiesOfItsFaultWithoutAReport) {
  install_crash_report("crash_test");
  int err[2];
  ASSERT_EQ(pipe(err), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(err[1], STDERR_FILENO);
    write_through(0x10);
    _exit(0);
  }
  close(err[1]);
  std::string written;
  char buffer[256];
  for (ssize_t n; (n = read(err[0], buffer, sizeof(buffer))) > 0;)
    written.append(buffer, static_cast<size_t>(n));
  close(err[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGSEGV);
  EXPECT_EQ(written, "");
}

}  // namespace
}  // namespace headway
