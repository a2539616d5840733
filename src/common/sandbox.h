#pragma once
// The sandbox every build and run of candidate code goes through: bubblewrap (bwrap) with no
// network, a read-only system, a private /tmp, only the caller's scratch folders writable, the
// workspace and $HOME not visible, a new session, its own PID namespace that dies with its
// parent, no capabilities, a clean environment, plus resource limits.
//
// Inside the sandbox the file system is a fresh, empty root holding only:
//   /usr, /lib32, /libx32 (read-only binds, where they exist on the host), /bin /sbin /lib /lib64
//   (symbolic links into /usr where the host has them so, else read-only binds), from /etc only
//   alternatives/, ld.so.cache, ld.so.conf, ld.so.conf.d/ and localtime (what the dynamic loader
//   and the compilers need; not passwd, shadow, ssl, ssh, hosts, ...), a new /proc of the
//   sandbox's own processes, a minimal /dev (null, zero, full, random, urandom, tty, shm), an
//   empty private tmpfs at /tmp, and the policy's binds at the same paths as on the host.
// The environment holds only PATH=/usr/local/bin:/usr/bin:/bin and HOME=/nonexistent, then the
// policy's variables (which may override those two).
// File descriptors the caller leaves open without O_CLOEXEC stay open inside.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace headway::sandbox {

struct Limits {                      // 0 leaves a limit as it is
  uint64_t address_space_bytes = 0;  // RLIMIT_AS
  uint64_t cpu_seconds = 0;          // RLIMIT_CPU (SIGXCPU at the limit, SIGKILL a second later)
  uint64_t file_size_bytes = 0;      // RLIMIT_FSIZE (a larger write fails with EFBIG)
  uint64_t open_files = 0;           // RLIMIT_NOFILE
};

struct Policy {
  // Extra paths bound read-only at the same place. Each must exist.
  std::vector<std::filesystem::path> read_only;
  // Paths bound read-write at the same place (scratch folders). Each must exist. Bound after
  // read_only, so a writable folder inside a read-only one stays writable.
  std::vector<std::filesystem::path> writable;
  // Device nodes (e.g. /dev/nvidia0) bound at the same place, usable as devices. Each must exist.
  std::vector<std::filesystem::path> devices;
  // The working directory inside the sandbox; empty: "/".
  std::filesystem::path working_directory;
  // Variables set after PATH and HOME (the only two set otherwise); a later one wins.
  std::vector<std::pair<std::string, std::string>> environment;
  Limits limits;
};

enum class Mode {
  kRequired,  // candidate code runs only inside the sandbox
  kDisabled,  // --no-sandbox: no isolation, only a clean environment
};
// Process-wide; kRequired until set. Thread-safe.
void set_mode(Mode mode);
Mode mode();

// Empty when the sandbox works on this machine, else one line saying why (bwrap not installed,
// or a trial `bwrap ... true` failed, with bwrap's message). Checked once, on the first call
// (with the bwrap of bwrap_program()), then cached. Thread-safe.
std::string unavailable_reason();

// Thrown by wrap() in kRequired mode when the sandbox cannot be set up; what() is
// unavailable_reason().
class Unavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The argv that runs `command` (argv[0] searched in the sandbox's PATH) under `policy`.
// kRequired: bwrap --unshare-all --die-with-parent --new-session --cap-drop ALL --clearenv, the
// file system above, --chdir, then command; throws Unavailable when unavailable_reason() is not
// empty. kDisabled: /usr/bin/env -i -C DIR, the environment, then command: no isolation.
// The limits are not part of the argv: the process that execs it applies them (apply_limits).
// Counts every kDisabled call (unsandboxed_runs()). Allocates: call it before fork, not in the
// child of a multi-threaded process.
std::vector<std::string> wrap(const Policy& policy, const std::vector<std::string>& command);

// setrlimit for every non-zero limit, in the calling process (for a forked child before exec).
// Soft and hard limits are both set (never above the current hard limit), so the sandboxed
// program cannot raise them. Async-signal-safe (for a forked child): returns false, with errno
// from the getrlimit or setrlimit that failed, when a limit cannot be set.
bool apply_limits(const Limits& limits);

// The bwrap program unavailable_reason() checks and wrap() runs: $HEADWAY_BWRAP when set and
// not empty, else "bwrap" found in $PATH (empty when not found).
std::string bwrap_program();

// Uncached: why a sandbox run with this bwrap (an absolute path, or empty for "not found")
// fails, or empty when a trial `true` runs in it. For tests and diagnostics.
std::string probe(const std::string& bwrap);

// How many times wrap() has run in kDisabled mode in this process.
int64_t unsandboxed_runs();

// `hook` is called once, on the first wrap() in kDisabled mode after this call (from the thread
// that calls wrap, before wrap returns), so that the caller can record that candidate code ran
// unsandboxed. Replaces an earlier hook; nullptr removes it. The hook must not call wrap().
void on_first_unsandboxed_run(std::function<void()> hook);

}  // namespace headway::sandbox
