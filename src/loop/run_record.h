#pragma once
// The record of the optimize running on a workspace, for other processes to follow it
// (`headway status`, `headway status --watch`): meta `optimize.run` =
//   {"pid", "start", "started_at", "budget_s", "updated_unix",
//    "progress": {"kernel", "node", "design", "stage", "note", "elapsed_s", "budget_left_s"}}
// where start is the process's start time (workspace_pause.h, process_start_time), started_at the
// UTC time the record was first written, and updated_unix the system clock (seconds since the
// epoch) when the latest progress was written.
//
// The optimizer writes the record once it holds the workspace lock (so a second optimizer, which
// fails on the lock, never overwrites it), rewrites it with every progress, and deletes it when
// its run ends, by an exception too. A process killed outright leaves its record behind: a record
// whose process is not running (or is a different process with the same pid) is stale, and
// readers treat it as no run.
#include <cstdint>
#include <optional>
#include <string>

#include "loop/optimizer.h"
#include "store/workspace.h"

namespace headway::loop {

inline constexpr const char* kRunRecordKey = "optimize.run";

struct RunRecord {
  int64_t pid = 0;
  std::string start;       // the process's start time, "" when unknown
  std::string started_at;  // UTC, like the store's timestamps
  double budget_s = 0.0;
  double updated_unix = 0.0;
  Progress progress;  // the latest; head_ms, floor_ms and kernels are not recorded

  // True when the record's process is running and is the one that wrote it.
  bool alive() const;
  // The budget left at now_unix (seconds since the epoch): the latest progress's figure less the
  // time since it was written, never below 0. While paused (stage "paused") the figure stands:
  // paused time does not count against the budget.
  double budget_left_at(double now_unix) const;
};

// The system clock in seconds since the epoch, as updated_unix is written.
double unix_now();

// The stored record, stale or not; nullopt when there is none or its value does not parse.
std::optional<RunRecord> read_run_record(store::Workspace& ws);
// The stored record when its process is running; nullopt otherwise.
std::optional<RunRecord> running_optimize(store::Workspace& ws);

// The optimizer's side: writes the record for its lifetime.
class RunRecorder {
 public:
  // Writes the record of this process (replacing any, stale or not: the caller holds the
  // workspace lock). Throws store::StoreError on database errors.
  RunRecorder(store::Workspace& ws, double budget_s);
  RunRecorder(const RunRecorder&) = delete;
  RunRecorder& operator=(const RunRecorder&) = delete;
  // Deletes the record when it is still the one this recorder wrote last. Never throws.
  ~RunRecorder();

  // Rewrites the record with p. Best effort, never throws: following a run must not stop it, so
  // a write that fails (the database busy past its timeout) leaves the previous record.
  void update(const Progress& p) noexcept;

 private:
  void write(const Progress& p);

  store::Workspace& ws_;
  int64_t pid_;
  std::string start_;
  std::string started_at_;
  double budget_s_;
  std::string written_;  // the value last written, "" before the first write
};

}  // namespace headway::loop
