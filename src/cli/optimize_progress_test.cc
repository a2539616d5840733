// `headway optimize`'s progress on a terminal: the built headway with its standard error on a
// pseudo-terminal of a known width, on the sim target.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "cli/cli_test_support.h"
#include "store/test_temp_dir.h"

namespace headway::cli {
namespace {

struct TerminalRun {
  int exit_code = -1;
  std::string terminal;  // what reached the terminal (standard error), byte for byte
  std::string out;       // standard output (a file)
};

// Runs headway with standard error on a raw pseudo-terminal `columns` wide.
TerminalRun run_on_terminal(const std::vector<std::string>& args, unsigned short columns,
                            const std::filesystem::path& scratch) {
  TerminalRun run;
  const int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return run;
  const std::string slave_path = ptsname(master);
  const int slave = ::open(slave_path.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0) return run;
  termios raw{};
  tcgetattr(slave, &raw);
  cfmakeraw(&raw);  // no "\n" to "\r\n": the bytes as headway wrote them
  tcsetattr(slave, TCSANOW, &raw);
  winsize size{};
  size.ws_row = 24;
  size.ws_col = columns;
  ioctl(master, TIOCSWINSZ, &size);

  const std::string out_path = (scratch / "stdout").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, slave, STDERR_FILENO);
  std::vector<std::string> argv = {HEADWAY_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, HEADWAY_BINARY, &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(slave);
  if (rc != 0) {
    ::close(master);
    return run;
  }
  // Until the child's end closes (EIO), or five minutes.
  for (int waited_ms = 0; waited_ms < 300000;) {
    pollfd p{master, POLLIN, 0};
    const int ready = poll(&p, 1, 1000);
    if (ready == 0) {
      waited_ms += 1000;
      continue;
    }
    char buf[4096];
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n <= 0) break;
    run.terminal.append(buf, static_cast<size_t>(n));
  }
  ::close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = file_text(out_path);
  return run;
}

TEST(OptimizeProgressOnATerminal, OneStatusLineRedrawnWithTheEventsAboveIt) {
  store::TestTempDir dir;
  const auto ws = dir.path() / "ws";
  ASSERT_EQ(run_headway({"init", ws.string(), "--target", "sim"}).exit_code, 0);
  const TerminalRun run = run_on_terminal(
      {"optimize", "--workspace", ws.string(), "--kernels", "qkv,attn_out", "--budget", "5m"}, 100,
      dir.path());
  ASSERT_EQ(run.exit_code, 0) << run.terminal;
  EXPECT_NE(run.out.find("optimize: "), std::string::npos) << "results stay on stdout";

  // Split what reached the terminal at every "\r\033[K" (the line cleared for a redraw).
  const std::string clear = "\r\033[K";
  std::vector<std::string> pieces;
  for (size_t at = 0; at < run.terminal.size();) {
    const size_t next = run.terminal.find(clear, at);
    pieces.push_back(
        run.terminal.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + clear.size();
  }
  int status_lines = 0, event_lines = 0;
  bool both_kernels = false;
  for (const std::string& piece : pieces) {
    if (piece.empty()) continue;
    if (piece.back() == '\n') {  // a line of its own, kept
      if (piece.find("FASTER") != std::string::npos || piece.find("SLOWER") != std::string::npos ||
          piece.find("baseline timed") != std::string::npos)
        ++event_lines;
      EXPECT_EQ(piece.find(" screen "), std::string::npos) << "a stage in between: " << piece;
      continue;
    }
    if (piece.rfind("[", 0) != 0 || piece.find(" left] ") == std::string::npos) continue;
    ++status_lines;
    EXPECT_LE(piece.size(), 99u) << "one column narrower than the terminal: " << piece;
    EXPECT_EQ(piece.find('\n'), std::string::npos) << piece;
    both_kernels |=
        piece.find("qkv ") != std::string::npos && piece.find("attn_out ") != std::string::npos;
  }
  EXPECT_GT(status_lines, 5) << run.terminal;
  EXPECT_GE(event_lines, 3) << "two baselines timed and at least one test" << run.terminal;
  EXPECT_TRUE(both_kernels) << "every kernel on the line" << run.terminal;
  // The last status line is left on the screen, ended, before the results' own lines.
  EXPECT_NE(run.terminal.find("timing every baseline and head side by side"), std::string::npos);
}

}  // namespace
}  // namespace headway::cli
