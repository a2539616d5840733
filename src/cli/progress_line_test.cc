#include "cli/progress_line.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace headway::cli {
namespace {

loop::Progress on_kernel(const std::string& kernel, const std::string& stage) {
  loop::Progress p;
  p.kernel = kernel;
  p.node = 17;
  p.design = "tiled_k4";
  p.stage = stage;
  p.head_ms = 3.2;
  p.floor_ms = 0.8;
  p.elapsed_s = 125;
  p.budget_left_s = 595;
  p.kernels = {{"qkv", 1.234, 0.5}, {"attn_out", 0.412, 0.4}, {"ffn", 3.2, 0.8}};
  return p;
}

// The text a FILE* holds (rewound).
std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}

TEST(ShortDuration, SecondsBelowAnHourMinutesAbove) {
  EXPECT_EQ(short_duration(0), "0s");
  EXPECT_EQ(short_duration(-3), "0s");
  EXPECT_EQ(short_duration(42.9), "42s");
  EXPECT_EQ(short_duration(678), "11m18s");
  EXPECT_EQ(short_duration(3600 * 3 + 5 * 60 + 59), "3h05m");
}

TEST(FitWidth, CutsToTheWidthWithAMark) {
  EXPECT_EQ(fit_width("abcdef", 6), "abcdef");
  EXPECT_EQ(fit_width("abcdefg", 6), "abc...");
  EXPECT_EQ(fit_width("abcdefg", 2), "..");
  EXPECT_EQ(fit_width("abcdefg", 0), "");
  // A code point of several bytes counts once and is never split.
  EXPECT_EQ(fit_width("x\xc3\x97y", 3), "x\xc3\x97y");
  EXPECT_EQ(fit_width("\xc3\x97\xc3\x97\xc3\x97\xc3\x97\xc3\x97", 4), "\xc3\x97...");
}

TEST(ProgressEvents, OutcomesAndTheLoopsOwnEventsGetLinesOfTheirOwn) {
  for (const char* s :
       {"FASTER", "SLOWER", "SAME", "INCONCLUSIVE", "baseline timed", "cheated: reads the clock"}) {
    EXPECT_TRUE(is_progress_event(on_kernel("qkv", s))) << s;
  }
  for (const char* s :
       {"propose", "screen", "race of 3", "acceptance test", "static cost: not raced"}) {
    EXPECT_FALSE(is_progress_event(on_kernel("qkv", s))) << s;
  }
  loop::Progress paused;
  paused.stage = "paused";
  EXPECT_TRUE(is_progress_event(paused));
}

TEST(ProgressEvents, ATestsUpdatesAreTheLinesBetweenItsStartItsFasterAndItsOutcome) {
  for (const char* s : {"acceptance test, pair 3 of at most 24: SLOWER wealth 2 of 20, FASTER 0.5",
                        "FASTER at pair 6, confirming: 312 of 688 calls verified"}) {
    EXPECT_TRUE(is_test_update(on_kernel("ffn", s))) << s;
  }
  for (const char* s : {"acceptance test", "FASTER at pair 6, confirming", "FASTER", "screen"}) {
    EXPECT_FALSE(is_test_update(on_kernel("ffn", s))) << s;
  }
}

TEST(ProgressLogLine, NamesTheKernelNodeStageHeadAndBudgetLeft) {
  const std::string line = progress_log_line(on_kernel("ffn", "screen"));
  EXPECT_EQ(line,
            "[ 125s] ffn      node  17 tiled_k4               screen             head 3.200 ms = "
            "4.00x floor, 9m55s left");
  loop::Progress paused;
  paused.stage = "paused";
  paused.note = "by pid 77: migration";
  paused.elapsed_s = 3;
  EXPECT_EQ(progress_log_line(paused), "[   3s] paused: by pid 77: migration");
}

// A head below its floor (under 0.97x of it) is flagged where its ratio is shown, in the log
// line and in the status line, as a floor to fix; at 0.97x it is not.
TEST(ProgressLogLine, AHeadBelowItsFloorIsFlagged) {
  loop::Progress p = on_kernel("ffn", "FASTER");
  p.head_ms = 0.688;
  EXPECT_EQ(progress_log_line(p),
            "[ 125s] ffn      node  17 tiled_k4               FASTER             head 0.688 ms = "
            "0.86x: below its floor (at least 0.97x): a floor to fix, not a result, 9m55s left");
  p.kernels = {{"qkv", 0.45, 0.5}, {"ffn", 0.688, 0.8}};
  EXPECT_EQ(progress_status_line(p, 200),
            "[2m05s, 9m55s left] ffn 0.688 ms 0.86x (below floor): node 17 tiled_k4 FASTER | qkv "
            "0.450 ms 0.90x (below floor)");
  p.head_ms = 0.776;
  EXPECT_EQ(progress_log_line(p).find("below"), std::string::npos) << "0.97x is at the floor";
}

TEST(ProgressStatusLine, TheCurrentKernelFirstThenEveryOtherWithTheBudgetLeft) {
  const std::string line = progress_status_line(on_kernel("ffn", "race of 3"), 200);
  EXPECT_EQ(line,
            "[2m05s, 9m55s left] ffn 3.200 ms 4.00x: node 17 tiled_k4 race of 3 | qkv 1.234 ms "
            "2.47x | attn_out 0.412 ms 1.03x");
}

TEST(ProgressStatusLine, NarrowerTerminalsGetOnlyRatiosThenACut) {
  const loop::Progress p = on_kernel("ffn", "screen");
  const std::string full = progress_status_line(p, 500);
  const std::string compact = progress_status_line(p, full.size() - 1);
  EXPECT_EQ(compact,
            "[2m05s, 9m55s left] ffn 3.200 ms 4.00x: node 17 tiled_k4 screen | qkv 2.47x | "
            "attn_out 1.03x");
  for (size_t width : {size_t{60}, size_t{40}, size_t{10}, size_t{3}}) {
    const std::string cut = progress_status_line(p, width);
    EXPECT_EQ(cut.size(), width) << cut;
    EXPECT_EQ(cut.substr(width - 3), "...");
  }
  EXPECT_EQ(progress_status_line(p, 40), "[2m05s, 9m55s left] ffn 3.200 ms 4.00...");
}

TEST(ProgressStatusLine, TheLoopsOwnEventShowsInPlaceOfAKernel) {
  loop::Progress paused = on_kernel("", "paused");
  EXPECT_EQ(progress_status_line(paused, 200),
            "[2m05s, 9m55s left] paused | qkv 1.234 ms 2.47x | attn_out 0.412 ms 1.03x | ffn "
            "3.200 ms 4.00x");
}

TEST(TerminalColumns, ColumnsFromTheEnvironmentWhenNotATerminal) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const char* was = std::getenv("COLUMNS");
  const std::string saved = was ? was : "";
  setenv("COLUMNS", "132", 1);
  EXPECT_EQ(terminal_columns(fds[1]), 132u);
  setenv("COLUMNS", "wide", 1);
  EXPECT_EQ(terminal_columns(fds[1]), 80u);
  setenv("COLUMNS", "-5", 1);
  EXPECT_EQ(terminal_columns(fds[1]), 80u);
  unsetenv("COLUMNS");
  EXPECT_EQ(terminal_columns(fds[1]), 80u);
  if (was) setenv("COLUMNS", saved.c_str(), 1);
  close(fds[0]);
  close(fds[1]);
}

TEST(ProgressDisplay, OnAPipeEveryProgressIsALineButATestsUpdates) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ProgressDisplay d(f, false, [] { return size_t{80}; });
  d.progress(on_kernel("qkv", "screen"));
  d.progress(on_kernel("qkv", "acceptance test, pair 2 of at most 24: FASTER wealth 2.6 of 20"));
  d.progress(on_kernel("qkv", "FASTER at pair 6, confirming: 24 of 688 calls verified"));
  d.line("a proposer's note");
  d.progress(on_kernel("qkv", "FASTER"));
  d.finish();
  EXPECT_EQ(contents(f), progress_log_line(on_kernel("qkv", "screen")) + "\n" +
                             "a proposer's note\n" + progress_log_line(on_kernel("qkv", "FASTER")) +
                             "\n");
  std::fclose(f);
}

TEST(ProgressDisplay, OnATerminalEventsStayAboveTheRedrawnStatusLine) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ProgressDisplay d(f, true, [] { return size_t{61}; });
  const loop::Progress screen = on_kernel("qkv", "screen");
  const loop::Progress faster = on_kernel("qkv", "FASTER");
  d.progress(screen);
  d.line("a proposer's note");
  d.progress(faster);
  d.finish();
  d.finish();
  const std::string status1 = progress_status_line(screen, 60);
  const std::string status2 = progress_status_line(faster, 60);
  EXPECT_EQ(contents(f), "\r\033[K" + status1 +                                 // drawn
                             "\r\033[Ka proposer's note\n\r\033[K" + status1 +  // a line above it
                             "\r\033[K" + progress_log_line(faster) + "\n" +    // the outcome kept
                             "\r\033[K" + status2 + "\n");  // left on the screen
  std::fclose(f);
}

}  // namespace
}  // namespace headway::cli
