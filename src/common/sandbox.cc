#include "common/sandbox.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <system_error>

#include "common/subprocess.h"

namespace headway::sandbox {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPath = "/usr/local/bin:/usr/bin:/bin";
constexpr const char* kHome = "/nonexistent";

std::atomic<Mode> g_mode{Mode::kRequired};
std::atomic<int64_t> g_unsandboxed{0};

std::mutex g_hook_mutex;
std::function<void()> g_hook;
bool g_hook_called = false;

struct Check {
  std::string program;
  std::string reason;
};

const Check& checked() {
  static const Check check = [] {
    Check c;
    c.program = bwrap_program();
    c.reason = probe(c.program);
    return c;
  }();
  return check;
}

bool executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// The system folders, as bwrap arguments: a symbolic link stays a link (merged /usr), a folder is
// bound read-only, a missing one is left out.
void add_system(std::vector<std::string>& argv) {
  for (const char* dir : {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}) {
    std::error_code ec;
    const auto st = fs::symlink_status(dir, ec);
    if (ec || !fs::exists(st)) continue;
    if (fs::is_symlink(st)) {
      const fs::path target = fs::read_symlink(dir, ec);
      if (!ec) argv.insert(argv.end(), {"--symlink", target.string(), dir});
    } else if (fs::is_directory(st)) {
      argv.insert(argv.end(), {"--ro-bind", dir, dir});
    }
  }
  for (const char* file : {"/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf",
                           "/etc/ld.so.conf.d", "/etc/localtime"}) {
    std::error_code ec;
    if (fs::exists(file, ec)) argv.insert(argv.end(), {"--ro-bind", file, file});
  }
}

std::vector<std::string> bwrap_argv(const std::string& bwrap, const Policy& policy,
                                    const std::vector<std::string>& command) {
  std::vector<std::string> argv = {
      bwrap,        "--unshare-all", "--die-with-parent", "--new-session",
      "--cap-drop", "ALL",           "--clearenv",        "--setenv",
      "PATH",       kPath,           "--setenv",          "HOME",
      kHome};
  for (const auto& [name, value] : policy.environment) {
    argv.insert(argv.end(), {"--setenv", name, value});
  }
  add_system(argv);
  argv.insert(argv.end(), {"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"});
  for (const auto& p : policy.read_only)
    argv.insert(argv.end(), {"--ro-bind", p.string(), p.string()});
  for (const auto& p : policy.writable) argv.insert(argv.end(), {"--bind", p.string(), p.string()});
  for (const auto& p : policy.devices)
    argv.insert(argv.end(), {"--dev-bind", p.string(), p.string()});
  argv.insert(argv.end(),
              {"--chdir", policy.working_directory.empty() ? std::string("/")
                                                           : policy.working_directory.string()});
  argv.emplace_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::vector<std::string> unisolated_argv(const Policy& policy,
                                         const std::vector<std::string>& command) {
  std::vector<std::string> argv = {
      executable("/usr/bin/env") ? "/usr/bin/env" : "env",
      "-i",
      "-C",
      policy.working_directory.empty() ? std::string("/") : policy.working_directory.string(),
      std::string("PATH=") + kPath,
      std::string("HOME=") + kHome};
  for (const auto& [name, value] : policy.environment) argv.push_back(name + "=" + value);
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::string first_line(const std::string& text) {
  const size_t start = text.find_first_not_of(" \n");
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

}  // namespace

void set_mode(Mode m) { g_mode.store(m); }
Mode mode() { return g_mode.load(); }

std::string bwrap_program() {
  if (const char* b = std::getenv("HEADWAY_BWRAP"); b && *b) return b;
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / "bwrap";
    if (end > start && candidate.is_absolute() && executable(candidate)) return candidate.string();
    start = end + 1;
  }
  return "";
}

std::string probe(const std::string& bwrap) {
  if (bwrap.empty()) return "bwrap is not installed (not found in PATH)";
  if (!executable(bwrap)) return "bwrap is not installed (" + bwrap + " is not an executable file)";
  const ProcessResult r = run_process(bwrap_argv(bwrap, Policy{}, {"true"}), 20.0);
  if (r.ok()) return "";
  if (!r.started) return "cannot run " + bwrap + ": " + r.error;
  if (r.timed_out) return "a trial `bwrap ... true` ran past 20 s";
  const std::string message = first_line(r.output);
  if (r.signal) return "a trial `bwrap ... true` was killed by " + signal_name(r.signal);
  return "a trial `bwrap ... true` failed (exit " + std::to_string(r.exit_code) + ")" +
         (message.empty() ? "" : ": " + message);
}

std::string unavailable_reason() { return checked().reason; }

std::vector<std::string> wrap(const Policy& policy, const std::vector<std::string>& command) {
  if (mode() == Mode::kRequired) {
    const Check& c = checked();
    if (!c.reason.empty()) throw Unavailable(c.reason);
    return bwrap_argv(c.program, policy, command);
  }
  g_unsandboxed.fetch_add(1);
  std::function<void()> hook;
  {
    std::lock_guard lock(g_hook_mutex);
    if (!g_hook_called && g_hook) {
      g_hook_called = true;
      hook = g_hook;
    }
  }
  if (hook) hook();
  return unisolated_argv(policy, command);
}

bool apply_limits(const Limits& limits) {
  struct One {
    int resource;
    uint64_t value;
    uint64_t hard_extra;
  };
  // The CPU limit's hard limit is a second above the soft one: SIGXCPU first, then SIGKILL.
  const One all[] = {{RLIMIT_AS, limits.address_space_bytes, 0},
                     {RLIMIT_CPU, limits.cpu_seconds, 1},
                     {RLIMIT_FSIZE, limits.file_size_bytes, 0},
                     {RLIMIT_NOFILE, limits.open_files, 0}};
  for (const One& one : all) {
    if (one.value == 0) continue;
    rlimit current{};
    if (getrlimit(one.resource, &current) != 0) return false;
    rlimit next{};
    next.rlim_max = one.value + one.hard_extra;
    if (current.rlim_max != RLIM_INFINITY && next.rlim_max > current.rlim_max) {
      next.rlim_max = current.rlim_max;
    }
    next.rlim_cur = one.value < next.rlim_max ? one.value : next.rlim_max;
    if (setrlimit(one.resource, &next) != 0) return false;
  }
  return true;
}

int64_t unsandboxed_runs() { return g_unsandboxed.load(); }

void on_first_unsandboxed_run(std::function<void()> hook) {
  std::lock_guard lock(g_hook_mutex);
  g_hook = std::move(hook);
  g_hook_called = false;
}

}  // namespace headway::sandbox
