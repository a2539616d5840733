#include "common/crash_report.h"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace headway {

namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kMaxFrames = 64;
// Room for the handler's frames and backtrace's on the signal stack.
constexpr size_t kSignalStackBytes = 64 * 1024;

const char* program_name = "headway";
pid_t reporting_pid = 0;  // the process that installed the report

void write_text(const char* text) {
  size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<size_t>(n);
  }
}

// Async-signal-safe: no allocation, no locale.
void write_hex(uintptr_t value) {
  char digits[2 + 2 * sizeof(value) + 1];
  char* at = digits + sizeof(digits) - 1;
  *at = '\0';
  do {
    *--at = "0123456789abcdef"[value & 0xf];
    value >>= 4;
  } while (value != 0);
  *--at = 'x';
  *--at = '0';
  write_text(at);
}

const char* signal_abbrev(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    default:
      return "SIGABRT";
  }
}

void report_and_die(int sig, siginfo_t* info, void*) {
  const bool from_the_kernel = info != nullptr && info->si_code > 0;  // a fault, not a kill
  if (getpid() != reporting_pid) {
    // A child forked to run code that may crash (a spec's reference): its parent reports how it
    // ended.
    if (!from_the_kernel) raise(sig);
    return;
  }
  write_text(program_name);
  write_text(": fatal signal ");
  write_text(signal_abbrev(sig));
  if (from_the_kernel) {
    write_text(" (address ");
    write_hex(reinterpret_cast<uintptr_t>(info->si_addr));
    write_text(")");
  }
  write_text("; stack, innermost first:\n");
  void* frames[kMaxFrames];
  const int n = backtrace(frames, kMaxFrames);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  // SA_RESETHAND has put the default action back: the signal again ends the process as it would
  // have without this handler (a fault re-raises itself when the handler returns).
  if (!from_the_kernel) raise(sig);
}

}  // namespace

void install_crash_report(const char* program) {
  program_name = program;
  reporting_pid = getpid();
  // backtrace loads libgcc's unwinder on its first call, which allocates: done here, not in a
  // handler.
  void* warm[1];
  backtrace(warm, 1);
  static char signal_stack[kSignalStackBytes];
  stack_t stack{};
  stack.ss_sp = signal_stack;
  stack.ss_size = sizeof(signal_stack);
  sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_sigaction = report_and_die;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int sig : kFatalSignals) sigaction(sig, &action, nullptr);
}

}  // namespace headway
