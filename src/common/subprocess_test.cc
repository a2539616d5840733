// run_command with real processes.
#include "common/subprocess.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "store/test_temp_dir.h"

namespace headway {
namespace {

CommandResult sh(const std::string& script, double timeout = 20.0) {
  CommandSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.timeout_seconds = timeout;
  return run_command(spec);
}

TEST(RunCommand, SeparatesStdoutFromStderrAndKeepsStderrsTail) {
  CommandSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo out; echo 0123456789 >&2; echo end >&2; exit 4"};
  spec.stderr_tail = 8;
  CommandResult r = run_command(spec);
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err_tail, "789\nend\n");
}

TEST(RunCommand, StdinCwdAndEnvironment) {
  store::TestTempDir dir;
  const std::string input = (dir.path() / "input").string();
  std::ofstream(input) << "from the file";
  ASSERT_EQ(setenv("HEADWAY_RUN_COMMAND_KEPT", "kept", 1), 0);
  ASSERT_EQ(setenv("HEADWAY_RUN_COMMAND_SET", "old", 1), 0);
  CommandSpec spec;
  spec.argv = {"sh", "-c",
               "cat; echo; pwd; echo \"$HEADWAY_RUN_COMMAND_KEPT $HEADWAY_RUN_COMMAND_SET\""};
  spec.cwd = dir.path().string();
  spec.stdin_path = input;
  spec.environment = {{"HEADWAY_RUN_COMMAND_SET", "first"}, {"HEADWAY_RUN_COMMAND_SET", "new"}};
  CommandResult r = run_command(spec);
  ASSERT_TRUE(r.ok()) << r.error << r.err_tail;
  EXPECT_EQ(r.out, "from the file\n" + dir.path().string() + "\nkept new\n");
  unsetenv("HEADWAY_RUN_COMMAND_KEPT");
  unsetenv("HEADWAY_RUN_COMMAND_SET");
}

TEST(RunCommand, StdinIsEmptyWithoutAFile) {
  CommandResult r = sh("cat");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "");
}

TEST(RunCommand, OutputBeyondTheLimitIsDroppedAndFlagged) {
  CommandSpec spec;
  spec.argv = {"sh", "-c", "head -c 300000 /dev/zero"};
  spec.stdout_limit = 100;
  CommandResult r = run_command(spec);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out.size(), 100u);
  EXPECT_TRUE(r.out_cut);
}

TEST(RunCommand, TimesOut) {
  const auto start = std::chrono::steady_clock::now();
  CommandResult r = sh("echo early; sleep 30", 0.3);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.out, "early\n");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

// A cancel flag that turns true stops the command with SIGTERM (it may clean up and say so); one
// that ignores SIGTERM is killed after the grace.
TEST(RunCommand, ACancelledCommandGetsSigtermThenSigkill) {
  for (const bool ignores : {false, true}) {
    std::atomic<bool> cancel{false};
    CommandSpec spec;
    spec.argv = {"/bin/sh", "-c",
                 ignores ? "trap '' TERM; echo up; sleep 30; sleep 30"
                         : "trap 'echo stopping; exit 7' TERM; echo up; sleep 30 & wait"};
    spec.timeout_seconds = 60;
    spec.cancel = &cancel;
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      cancel = true;
    });
    const auto start = std::chrono::steady_clock::now();
    const CommandResult r = run_command(spec);
    canceller.join();
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(r.cancelled) << ignores;
    EXPECT_FALSE(r.timed_out);
    EXPECT_FALSE(r.ok());
    if (ignores) {
      EXPECT_EQ(r.signal, SIGKILL);
      EXPECT_GT(took, 5.0) << "the grace before SIGKILL";
      EXPECT_LT(took, 15.0);
    } else {
      EXPECT_EQ(r.exit_code, 7);
      EXPECT_EQ(r.out, "up\nstopping\n");
      EXPECT_LT(took, 5.0);
    }
  }
  CommandSpec never;
  never.argv = {"/bin/sh", "-c", "echo fine"};
  const std::atomic<bool> stays_false{false};
  never.cancel = &stays_false;
  const CommandResult r = run_command(never);
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.cancelled);
}

TEST(RunCommand, ABackgroundProcessHoldingTheOutputDoesNotHoldTheCall) {
  // The shell exits at once; the background sleep keeps stdout open, and is killed.
  const auto start = std::chrono::steady_clock::now();
  CommandResult r = sh("sleep 30 & echo done", 10.0);
  EXPECT_TRUE(r.ok()) << r.err_tail;
  EXPECT_EQ(r.out, "done\n");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

TEST(RunCommand, ACommandThatClosesItsOutputIsStillWaitedFor) {
  CommandResult r = sh("exec >&- 2>&-; sleep 0.2; exit 5");
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 5);
}

TEST(RunCommand, SignalsAndStartFailures) {
  CommandResult killed = sh("kill -SEGV $$");
  EXPECT_EQ(killed.signal, SIGSEGV);

  CommandSpec missing;
  missing.argv = {"no-such-program-headway-test"};
  CommandResult r = run_command(missing);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("cannot run no-such-program-headway-test"), std::string::npos) << r.error;

  CommandSpec bad_cwd;
  bad_cwd.argv = {"true"};
  bad_cwd.cwd = "/nonexistent-headway-dir";
  EXPECT_NE(run_command(bad_cwd).error.find("cannot enter"), std::string::npos);

  CommandSpec bad_stdin;
  bad_stdin.argv = {"true"};
  bad_stdin.stdin_path = "/nonexistent-headway-file";
  EXPECT_NE(run_command(bad_stdin).error.find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace headway
