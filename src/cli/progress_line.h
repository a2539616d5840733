#pragma once
// How `headway optimize` shows the loop's progress (loop::Progress) on standard error.
//
// On a pipe or a file: one line per progress, written whole as it happens.
// On a terminal: one status line redrawn in place, summarizing every kernel (head time and its
// ratio to the floor), what runs on the current kernel and the budget left; the progress worth
// keeping (an acceptance test's outcome, a baseline timed, a cheating candidate, the loop's own
// events such as a pause) and the lines others log get lines of their own above it.
//
// The rendering functions are pure; ProgressDisplay writes them.
#include <cstddef>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "loop/optimizer.h"

namespace headway::cli {

// "42s", "11m18s", "3h05m": whole seconds below an hour, whole minutes above. Negative is 0s.
std::string short_duration(double seconds);

// text cut to at most `width` columns, counting each UTF-8 code point as one column, and ending
// in "..." when cut (only "..." cut short when width < 3). Unchanged when it fits.
std::string fit_width(std::string_view text, size_t width);

// True when p gets a line of its own on a terminal too: the loop's own events (kernel empty), a
// baseline timed, an acceptance test's outcome (FASTER, SLOWER, SAME, INCONCLUSIVE), a cheating
// candidate. The stages in between (screen, race, a test under way, ...) are only shown in the
// status line.
bool is_progress_event(const loop::Progress& p);
// True for the updates of an acceptance test under way (its pairs' wealth, its confirmation's
// calls verified), told several times a second: the status line shows them, a log keeps only
// the test's start, its FASTER and its outcome.
bool is_test_update(const loop::Progress& p);

// The one-line form of p: for a kernel the elapsed time, kernel, node, design (22 characters at
// most), stage, head time, its ratio to the floor and the budget left, in aligned columns
// ("[  42s] qkv      node  12 tiled_k4 ... screen ... head 1.234 ms = 2.10x floor, 11m18s left");
// for the loop's own events "[  42s] paused: by pid 77: toolchain migration".
std::string progress_log_line(const loop::Progress& p);

// The status line for a terminal `width` columns wide, at most `width` columns, e.g.
//   [42s, 11m18s left] ffn 3.201 ms 4.10x: node 17 tiled_k4 race | qkv 1.234 ms 2.10x | ...
// The current kernel (or the loop's event) comes first, then the other kernels of p.kernels in
// their order. When that is too wide, the other kernels show only their ratio to the floor; when
// still too wide, the line is cut (fit_width).
std::string progress_status_line(const loop::Progress& p, size_t width);

// The columns of the terminal on fd (ioctl TIOCGWINSZ); else COLUMNS when it is a positive
// number; else 80.
size_t terminal_columns(int fd);

// Writes progress to `out` in one of the two forms above. Thread-safe: proposers log from their
// worker threads while the loop reports progress.
class ProgressDisplay {
 public:
  // terminal: the status-line form, `width` giving the terminal's columns at each redraw (the
  // line is drawn one column narrower, so that it never wraps).
  ProgressDisplay(std::FILE* out, bool terminal, std::function<size_t()> width);

  // A line of its own (on a terminal, above the status line, which is drawn again under it).
  void line(const std::string& text);
  // One progress: its line on a pipe; on a terminal, its line when it is an event, and the
  // status line redrawn.
  void progress(const loop::Progress& p);
  // On a terminal: ends the status line, leaving it on the screen. Idempotent.
  void finish();

 private:
  void draw_status();  // requires mu_

  std::mutex mu_;
  std::FILE* out_;
  bool terminal_;
  std::function<size_t()> width_;
  std::string status_;  // the status line on the screen, "" when none
};

}  // namespace headway::cli
