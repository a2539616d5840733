#include "loop/workspace_pause.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/file_io.h"
#include "common/result.h"
#include "store/transaction.h"

namespace headway::loop {

namespace {

using Clock = std::chrono::steady_clock;

std::string now_utc(store::Workspace& ws) {
  return ws.db().query_text("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')");
}

LockHolder holder_or_unknown(const std::filesystem::path& root) {
  return WorkspaceLock::holder(root).value_or(LockHolder{0, "process"});
}

std::string busy_message(const std::filesystem::path& root) {
  const LockHolder h = holder_or_unknown(root);
  if (h.role == "optimize") {
    return fmt::format(
        "another headway optimize (pid {}) is working on this workspace; wait for it "
        "to finish or stop it",
        h.pid);
  }
  return fmt::format("{} holds this workspace's workspace lock ({})", h.describe(),
                     workspace_lock_path(root).string());
}

}  // namespace

std::filesystem::path workspace_lock_path(const std::filesystem::path& workspace_root) {
  return workspace_root / ".headway" / "optimize.lock";
}

std::string LockHolder::describe() const {
  if (pid <= 0) return "another process";
  return fmt::format("headway {} (pid {})", role, pid);
}

std::optional<WorkspaceLock> WorkspaceLock::try_acquire(const std::filesystem::path& workspace_root,
                                                        std::string_view role) {
  const std::string path = workspace_lock_path(workspace_root).string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    fail_with(environment_error(fmt::format("cannot open {}: {}", path, std::strerror(errno))));
  }
  int rc;
  do {
    rc = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) return std::nullopt;
    fail_with(environment_error(fmt::format("cannot lock {}: {}", path, std::strerror(err))));
  }
  const std::string who = fmt::format("{} {}\n", ::getpid(), role);
  // The holder line is only for messages: a failure to write it does not matter.
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd, who.data(), who.size(), 0);
  }
  return WorkspaceLock(fd);
}

std::optional<LockHolder> WorkspaceLock::holder(const std::filesystem::path& workspace_root) {
  std::ifstream in(workspace_lock_path(workspace_root));
  LockHolder h;
  if (!(in >> h.pid >> h.role)) return std::nullopt;
  return h;
}

WorkspaceLock::WorkspaceLock(WorkspaceLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

WorkspaceLock& WorkspaceLock::operator=(WorkspaceLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

WorkspaceLock::~WorkspaceLock() { release(); }

void WorkspaceLock::release() {
  if (fd_ < 0) return;
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
  fd_ = -1;
}

namespace {
// Field `n` (3: state ... 22: starttime) of /proc/<pid>/stat; "" when unreadable.
std::string proc_stat_field(int64_t pid, int n) {
  const std::string s = read_file(fmt::format("/proc/{}/stat", pid)).value_or("");
  const size_t paren = s.rfind(')');
  if (paren == std::string::npos) return "";
  std::istringstream fields(s.substr(paren + 1));
  std::string field;
  // After "pid (comm)" come state (field 3) ... starttime (field 22).
  for (int i = 3; i <= n; ++i) {
    if (!(fields >> field)) return "";
  }
  return field;
}

std::string process_state(int64_t pid) { return proc_stat_field(pid, 3); }
}  // namespace

std::string process_start_time(int64_t pid) { return proc_stat_field(pid, 22); }

std::optional<PauseRequest> read_pause_request(store::Workspace& ws) {
  const auto value = ws.meta(kPauseRequestKey);
  if (!value) return std::nullopt;
  PauseRequest r;
  r.value = *value;
  const auto j = nlohmann::json::parse(*value, nullptr, false);
  if (j.is_object()) {
    r.pid = j.value("pid", int64_t{0});
    r.start = j.value("start", std::string());
    r.reason = j.value("reason", std::string());
    r.at = j.value("at", std::string());
  }
  return r;
}

bool process_alive(int64_t pid, const std::string& start) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  // A zombie (exited, not yet reaped by its parent) runs no more.
  if (process_state(pid) == "Z") return false;
  if (start.empty()) return true;
  const std::string now = process_start_time(pid);
  return now.empty() || now == start;
}

bool request_alive(const PauseRequest& request) {
  return process_alive(request.pid, request.start);
}

bool clear_pause_request(store::Workspace& ws, const PauseRequest& request) {
  auto s = ws.db().prepare("DELETE FROM meta WHERE key = ?1 AND value = ?2");
  s.bind(1, kPauseRequestKey).bind(2, request.value);
  s.run();
  return ws.db().changes() > 0;
}

// ---- the optimizer's side -----------------------------------------------------------------------

PausableLock::PausableLock(store::Workspace& ws, std::function<void(const Event&)> on_event,
                           std::chrono::milliseconds poll)
    : ws_(ws), on_event_(std::move(on_event)), poll_(poll) {}

std::optional<double> PausableLock::enter() {
  if (auto lock = WorkspaceLock::try_acquire(ws_.root(), "optimize")) {
    lock_ = std::move(lock);
    return std::nullopt;
  }
  if (pause_requested()) return wait_paused(*read_pause_request(ws_));
  // A stale request may have been cleared: the holder may have gone meanwhile.
  if (auto lock = WorkspaceLock::try_acquire(ws_.root(), "optimize")) {
    lock_ = std::move(lock);
    return std::nullopt;
  }
  fail_with(conflict(busy_message(ws_.root())));
}

bool PausableLock::pause_requested() {
  const auto r = read_pause_request(ws_);
  if (!r) return false;
  if (request_alive(*r)) return true;
  if (clear_pause_request(ws_, *r) && on_event_) on_event_({Event::Kind::kStaleCleared, *r, 0.0});
  return false;
}

std::optional<double> PausableLock::pause_if_requested() {
  if (!pause_requested()) return std::nullopt;
  const auto request = read_pause_request(ws_);
  if (!request) return std::nullopt;  // withdrawn in between
  lock_.reset();
  return wait_paused(*request);
}

double PausableLock::wait_paused(const PauseRequest& request) {
  if (on_event_) on_event_({Event::Kind::kPaused, request, 0.0});
  const auto start = Clock::now();
  for (;;) {
    std::this_thread::sleep_for(poll_);
    if (pause_requested()) continue;
    if (auto lock = WorkspaceLock::try_acquire(ws_.root(), "optimize")) {
      lock_ = std::move(lock);
      break;
    }
    // Another pauser may have written its request and taken the lock in between.
    if (pause_requested()) continue;
    fail_with(
        conflict(fmt::format("while this optimize was paused, {}", busy_message(ws_.root()))));
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (on_event_) on_event_({Event::Kind::kResumed, request, seconds});
  return seconds;
}

// ---- the pauser's side --------------------------------------------------------------------------

Result<WorkspacePause> WorkspacePause::acquire(
    store::Workspace& ws, std::string_view role, std::string_view reason,
    std::chrono::duration<double> wait, const std::function<void(const LockHolder&)>& on_waiting) {
  PauseRequest mine;
  mine.pid = ::getpid();
  mine.start = process_start_time(mine.pid);
  mine.reason = std::string(reason);
  {
    store::Transaction txn(ws.db());
    if (const auto other = read_pause_request(ws)) {
      if (request_alive(*other)) {
        return conflict(
            fmt::format("the optimizer of this workspace is already paused by pid {} ({})",
                        other->pid, other->reason));
      }
      clear_pause_request(ws, *other);
    }
    mine.at = now_utc(ws);
    mine.value = nlohmann::json{
        {"pid", mine.pid},
        {"start", mine.start},
        {"reason", mine.reason},
        {"at",
         mine.at}}.dump();
    ws.set_meta(kPauseRequestKey, mine.value);
    txn.commit();
  }
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(wait);
  bool waited = false;
  for (;;) {
    std::optional<WorkspaceLock> lock;
    try {
      lock = WorkspaceLock::try_acquire(ws.root(), role);
    } catch (const Failure& e) {
      clear_pause_request(ws, mine);
      return conflict(e.what());
    }
    if (lock) return WorkspacePause(ws, std::move(*lock), mine, now_utc(ws), waited);
    const LockHolder holder = holder_or_unknown(ws.root());
    if (!waited) {
      waited = true;
      if (on_waiting) on_waiting(holder);
    }
    if (Clock::now() >= deadline) {
      clear_pause_request(ws, mine);
      return conflict(fmt::format("{} did not pause within {:g} s; nothing changed",
                                  holder.describe(), wait.count()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

WorkspacePause::WorkspacePause(store::Workspace& ws, WorkspaceLock lock, PauseRequest request,
                               std::string held_at, bool waited)
    : ws_(&ws),
      lock_(std::move(lock)),
      request_(std::move(request)),
      held_at_(std::move(held_at)),
      waited_(waited) {}

WorkspacePause::WorkspacePause(WorkspacePause&& other) noexcept
    : ws_(other.ws_),
      lock_(std::move(other.lock_)),
      request_(std::move(other.request_)),
      held_at_(std::move(other.held_at_)),
      waited_(other.waited_) {
  other.ws_ = nullptr;
  other.lock_.reset();
}

WorkspacePause::~WorkspacePause() { release(); }

void WorkspacePause::release() noexcept {
  if (!ws_) return;
  store::Workspace& ws = *ws_;
  ws_ = nullptr;
  lock_.reset();
  try {
    const std::string released_at = now_utc(ws);
    store::Transaction txn(ws.db());
    ws.set_meta(kLastPauseKey, nlohmann::json{{"pid", request_.pid},
                                              {"reason", request_.reason},
                                              {"requested_at", request_.at},
                                              {"held_at", held_at_},
                                              {"released_at", released_at}}
                                   .dump());
    clear_pause_request(ws, request_);
    txn.commit();
  } catch (...) {
    // Left behind, the request is stale once this process exits; the optimizer clears it then.
  }
}

}  // namespace headway::loop
