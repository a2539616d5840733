#pragma once
// Pausing a running `headway optimize` so that another process (`headway migrate`) can change the
// workspace under it, crash-safely.
//
// The lock: whoever works on the workspace's Design Trees holds an exclusive flock on
// <workspace>/.headway/optimize.lock (the optimizer for as long as it runs, except while paused;
// a pauser while it changes the workspace). The file holds the holder's pid and role, for
// messages. The kernel drops a flock when its process dies, so a crash never leaves it held. The
// file is never deleted (deleting a lock file races with the next locker).
//
// The request: meta `optimize.pause` = {"pid", "start", "reason", "at"}, written by the pauser
// before it waits for the lock. A request whose pid is not running (or runs a different process
// than the one that wrote it: "start" is its start time from /proc/<pid>/stat) is stale: anyone
// who finds it clears it and goes on.
//
// The protocol:
//   optimizer at start: takes the lock; when it is held and a live request is waiting (a migration
//     is under way), waits as below as if paused; when it is held otherwise, fails naming the
//     holder (two optimizers never interleave on one workspace).
//   optimizer between rounds (and between screened candidates): a live request → it releases the
//     lock, reports "paused", polls the request every poll interval until it is gone (or stale,
//     then cleared), re-takes the lock and reports "resumed". If by then another process holds the
//     lock without a request (another optimizer started meanwhile), it fails naming it.
//   pauser: writes the request (an error when another live process's request is present), waits
//     up to its timeout for the lock (on timeout it clears its request and fails, having changed
//     nothing), does its work, then releases the lock, records meta `optimize.last_pause` =
//     {"pid", "reason", "requested_at", "held_at", "released_at"} and clears the request, in that
//     order (also when its work throws), so a paused optimizer never sees the lock free with the
//     request gone while the pauser still holds it.
//
// The flock's file descriptor is close-on-exec; a runner the optimizer forks without exec shares
// it, but an explicit release (LOCK_UN) releases it for all, and runners exit with the optimizer.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "store/workspace.h"

namespace headway::loop {

inline constexpr const char* kPauseRequestKey = "optimize.pause";
inline constexpr const char* kLastPauseKey = "optimize.last_pause";

// <workspace>/.headway/optimize.lock
std::filesystem::path workspace_lock_path(const std::filesystem::path& workspace_root);

// What the lock file says about its holder (the last one when nobody holds it now).
struct LockHolder {
  int64_t pid = 0;
  std::string role;              // "optimize", "migrate", ...
  std::string describe() const;  // "headway optimize (pid 123)"
};

// The workspace lock: an exclusive flock on the workspace's lock file; released by release() or the
// destructor.
class WorkspaceLock {
 public:
  // The lock, with this process written as holder in `role`; nullopt when another open file
  // description holds it. Throws a Failure (environment) when the file cannot be opened.
  static std::optional<WorkspaceLock> try_acquire(const std::filesystem::path& workspace_root,
                                                  std::string_view role);
  // What the lock file says; nullopt when it is missing or empty.
  static std::optional<LockHolder> holder(const std::filesystem::path& workspace_root);

  WorkspaceLock(WorkspaceLock&& other) noexcept;
  WorkspaceLock& operator=(WorkspaceLock&& other) noexcept;
  WorkspaceLock(const WorkspaceLock&) = delete;
  WorkspaceLock& operator=(const WorkspaceLock&) = delete;
  ~WorkspaceLock();
  void release();

 private:
  explicit WorkspaceLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

struct PauseRequest {
  int64_t pid = 0;
  std::string start;  // the process's start time (clock ticks since boot), "" when unknown
  std::string reason;
  std::string at;     // when it was written (UTC, like the store's timestamps)
  std::string value;  // the meta value as stored
};

// The stored request; nullopt when there is none (a value that does not parse counts as a stale
// request with pid 0).
std::optional<PauseRequest> read_pause_request(store::Workspace& ws);
// True when the request's process is running and is the one that wrote it.
bool request_alive(const PauseRequest& request);
// Deletes the request when it is still exactly `request`; true when it deleted it.
bool clear_pause_request(store::Workspace& ws, const PauseRequest& request);
// This process's start time as stored in requests.
std::string process_start_time(int64_t pid);
// True when pid is running and, when `start` is not empty, started at `start` (so is the process
// that recorded it, not a later one given the same pid).
bool process_alive(int64_t pid, const std::string& start);

// The workspace lock as the optimizer holds it: let go while a pauser asks for it (the
// optimizer's side of the protocol).
class PausableLock {
 public:
  struct Event {
    enum class Kind { kPaused, kResumed, kStaleCleared } kind;
    PauseRequest request;
    double paused_seconds = 0.0;  // kResumed: how long it was paused
  };
  PausableLock(store::Workspace& ws, std::function<void(const Event&)> on_event,
               std::chrono::milliseconds poll = std::chrono::milliseconds(250));

  // Takes the lock (see the protocol). Returns the seconds it waited paused when a pause was
  // under way at start, nullopt when it took the lock at once. Throws a Failure (conflict)
  // naming the holder when another process holds the lock without a live request.
  std::optional<double> enter();
  // True when a live request is waiting; a stale one is cleared (and reported) here.
  bool pause_requested();
  // When a live request is waiting: pauses as the protocol says and returns the seconds paused;
  // nullopt (doing nothing) otherwise. Requires enter(). Throws a Failure (conflict) when
  // another process took the lock meanwhile.
  std::optional<double> pause_if_requested();

 private:
  double wait_paused(const PauseRequest& request);

  store::Workspace& ws_;
  std::function<void(const Event&)> on_event_;
  std::chrono::milliseconds poll_;
  std::optional<WorkspaceLock> lock_;
};

// The pauser's side: holds the workspace lock and the request for its lifetime.
class WorkspacePause {
 public:
  // Writes the request, then waits up to `wait` for the lock, calling on_waiting once with the
  // holder when the lock is not free at once. An error, changing nothing (its request cleared),
  // when another live process's request is present or the wait times out.
  static Result<WorkspacePause> acquire(store::Workspace& ws, std::string_view role,
                                        std::string_view reason, std::chrono::duration<double> wait,
                                        const std::function<void(const LockHolder&)>& on_waiting);

  WorkspacePause(WorkspacePause&& other) noexcept;
  WorkspacePause& operator=(WorkspacePause&&) = delete;
  WorkspacePause(const WorkspacePause&) = delete;
  ~WorkspacePause();
  // Releases the lock, records meta optimize.last_pause and clears the request (the destructor
  // does it when not done before). Never throws.
  void release() noexcept;

  const std::string& held_at() const { return held_at_; }
  bool waited() const { return waited_; }  // the lock was not free at once

 private:
  WorkspacePause(store::Workspace& ws, WorkspaceLock lock, PauseRequest request,
                 std::string held_at, bool waited);

  store::Workspace* ws_;
  std::optional<WorkspaceLock> lock_;
  PauseRequest request_;
  std::string held_at_;
  bool waited_ = false;
};

}  // namespace headway::loop
