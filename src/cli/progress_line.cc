#include "cli/progress_line.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <utility>

#include "targets/floors.h"

namespace headway::cli {

namespace {

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

size_t columns_of(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += is_continuation_byte(c) ? 0 : 1;
  return n;
}

// The bytes of the first `columns` code points of text.
size_t prefix_bytes(std::string_view text, size_t columns) {
  size_t i = 0;
  for (size_t seen = 0; i < text.size(); ++i) {
    if (!is_continuation_byte(text[i]) && seen++ == columns) break;
  }
  return i;
}

// "1.24x", or "0.86x (below floor)" for a head the floor should not let be there
// (targets::below_floor): a floor to fix, not a result.
std::string ratio(double head_ms, double floor_ms) {
  const double r = head_ms / floor_ms;
  return fmt::format("{:.2f}x{}", r, targets::below_floor(r) ? " (below floor)" : "");
}

}  // namespace

std::string short_duration(double seconds) {
  if (!(seconds > 0)) return "0s";
  const auto s = static_cast<long long>(std::floor(seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::string fit_width(std::string_view text, size_t width) {
  if (columns_of(text) <= width) return std::string(text);
  if (width < 3) return std::string(width, '.');
  std::string out(text.substr(0, prefix_bytes(text, width - 3)));
  return out + "...";
}

bool is_progress_event(const loop::Progress& p) {
  if (p.kernel.empty()) return true;
  const std::string& s = p.stage;
  return s == "baseline timed" || s == "FASTER" || s == "SLOWER" || s == "SAME" ||
         s == "INCONCLUSIVE" || s.rfind("cheated", 0) == 0;
}

bool is_test_update(const loop::Progress& p) {
  const std::string& s = p.stage;
  return s.rfind("acceptance test, pair ", 0) == 0 || s.find(", confirming: ") != std::string::npos;
}

std::string progress_log_line(const loop::Progress& p) {
  if (p.kernel.empty()) return fmt::format("[{:4.0f}s] {}: {}", p.elapsed_s, p.stage, p.note);
  const double r = p.head_ms / p.floor_ms;
  const std::string below = targets::below_floor_note(r);
  return fmt::format("[{:4.0f}s] {:<8} node {:>3} {:<22} {:<18} head {:.3f} ms = {}, {} left",
                     p.elapsed_s, p.kernel, p.node, p.design.substr(0, 22), p.stage, p.head_ms,
                     below.empty() ? fmt::format("{:.2f}x floor", r) : below,
                     short_duration(p.budget_left_s));
}

std::string progress_status_line(const loop::Progress& p, size_t width) {
  const std::string clock =
      fmt::format("[{}, {} left]", short_duration(p.elapsed_s), short_duration(p.budget_left_s));
  // What runs now: on the current kernel, or the loop's own event.
  std::string now;
  if (p.kernel.empty()) {
    now = p.stage;
  } else {
    double head = p.head_ms, floor = p.floor_ms;
    for (const auto& k : p.kernels) {
      if (k.name == p.kernel) head = k.head_ms, floor = k.floor_ms;
    }
    now = fmt::format("{} {:.3f} ms {}: node {} {} {}", p.kernel, head, ratio(head, floor), p.node,
                      p.design.substr(0, 22), p.stage);
  }
  std::string full = clock + " " + now;
  std::string compact = full;
  for (const auto& k : p.kernels) {
    if (k.name == p.kernel) continue;
    full += fmt::format(" | {} {:.3f} ms {}", k.name, k.head_ms, ratio(k.head_ms, k.floor_ms));
    compact += fmt::format(" | {} {}", k.name, ratio(k.head_ms, k.floor_ms));
  }
  if (columns_of(full) <= width) return full;
  return fit_width(compact, width);
}

size_t terminal_columns(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* env = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0) return static_cast<size_t>(n);
  }
  return 80;
}

ProgressDisplay::ProgressDisplay(std::FILE* out, bool terminal, std::function<size_t()> width)
    : out_(out), terminal_(terminal), width_(std::move(width)) {}

void ProgressDisplay::draw_status() {
  if (!status_.empty()) fmt::print(out_, "\r\033[K{}", status_);
  std::fflush(out_);
}

void ProgressDisplay::line(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!terminal_) {
    fmt::print(out_, "{}\n", text);
    std::fflush(out_);
    return;
  }
  fmt::print(out_, "\r\033[K{}\n", text);
  draw_status();
}

void ProgressDisplay::progress(const loop::Progress& p) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!terminal_) {
    if (is_test_update(p)) return;
    fmt::print(out_, "{}\n", progress_log_line(p));
    std::fflush(out_);
    return;
  }
  if (is_progress_event(p)) fmt::print(out_, "\r\033[K{}\n", progress_log_line(p));
  const size_t columns = width_ ? width_() : 80;
  status_ = progress_status_line(p, columns > 1 ? columns - 1 : 1);
  draw_status();
}

void ProgressDisplay::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_ && !status_.empty()) {
    fmt::print(out_, "\n");
    std::fflush(out_);
  }
  status_.clear();
}

}  // namespace headway::cli
