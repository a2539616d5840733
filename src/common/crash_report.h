#pragma once
// A report of the signal a process dies of (a crash, an abort): which signal, at what address,
// and the stack, so that a crash seen once on a machine nobody can reach (CI, a user's) says
// where it was.

namespace headway {

// Installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT that write to standard error
//   <program>: fatal signal SIGSEGV (address 0x10); stack, innermost first:
// (the address where the kernel raised it for a fault, none where a process sent it)
// then one frame a line as glibc's backtrace_symbols_fd writes it (module(function+offset)
// [address]; `addr2line -e module offset` names the line), and then die of the same signal by
// its default action: the exit status a parent sees, and a core dump where one is asked for, are
// as without the report. The calling thread's handler runs on a stack of its own, so that a stack
// overflow there is reported too. A child forked from the process (to run code that may crash,
// such as a spec's reference) dies of the signal without a report: its parent says how it ended.
// Calling it again sets the name, and in a forked child makes the child the process reported.
void install_crash_report(const char* program);

}  // namespace headway
