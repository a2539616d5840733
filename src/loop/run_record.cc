#include "loop/run_record.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "loop/workspace_pause.h"

namespace headway::loop {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool RunRecord::alive() const { return process_alive(pid, start); }

double RunRecord::budget_left_at(double now_unix) const {
  if (progress.stage == "paused") return std::max(0.0, progress.budget_left_s);
  return std::max(0.0, progress.budget_left_s - std::max(0.0, now_unix - updated_unix));
}

std::optional<RunRecord> read_run_record(store::Workspace& ws) {
  const auto value = ws.meta(kRunRecordKey);
  if (!value) return std::nullopt;
  const auto j = nlohmann::json::parse(*value, nullptr, false);
  if (!j.is_object() || !j.contains("pid") || !j["pid"].is_number_integer()) return std::nullopt;
  RunRecord r;
  r.pid = j["pid"].get<int64_t>();
  r.start = j.value("start", std::string());
  r.started_at = j.value("started_at", std::string());
  r.budget_s = j.value("budget_s", 0.0);
  r.updated_unix = j.value("updated_unix", 0.0);
  if (const auto it = j.find("progress"); it != j.end() && it->is_object()) {
    r.progress.kernel = it->value("kernel", std::string());
    r.progress.node = it->value("node", int64_t{0});
    r.progress.design = it->value("design", std::string());
    r.progress.stage = it->value("stage", std::string());
    r.progress.note = it->value("note", std::string());
    r.progress.elapsed_s = it->value("elapsed_s", 0.0);
    r.progress.budget_left_s = it->value("budget_left_s", r.budget_s);
  } else {
    r.progress.budget_left_s = r.budget_s;
  }
  return r;
}

std::optional<RunRecord> running_optimize(store::Workspace& ws) {
  auto r = read_run_record(ws);
  if (r && r->alive()) return r;
  return std::nullopt;
}

RunRecorder::RunRecorder(store::Workspace& ws, double budget_s)
    : ws_(ws),
      pid_(::getpid()),
      start_(process_start_time(pid_)),
      started_at_(ws.db().query_text("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')")),
      budget_s_(budget_s) {
  Progress first;
  first.stage = "starting";
  first.budget_left_s = budget_s;
  write(first);  // the first write throws on failure
}

RunRecorder::~RunRecorder() {
  if (written_.empty()) return;
  try {
    auto s = ws_.db().prepare("DELETE FROM meta WHERE key = ?1 AND value = ?2");
    s.bind(1, kRunRecordKey).bind(2, written_);
    s.run();
  } catch (...) {
    // Left behind, it is stale as soon as this process exits.
  }
}

void RunRecorder::update(const Progress& p) noexcept {
  try {
    write(p);
  } catch (...) {
    // Best effort (see the header).
  }
}

void RunRecorder::write(const Progress& p) {
  const nlohmann::json j = {{"pid", pid_},
                            {"start", start_},
                            {"started_at", started_at_},
                            {"budget_s", budget_s_},
                            {"updated_unix", unix_now()},
                            {"progress",
                             {{"kernel", p.kernel},
                              {"node", p.node},
                              {"design", p.design},
                              {"stage", p.stage},
                              {"note", p.note},
                              {"elapsed_s", p.elapsed_s},
                              {"budget_left_s", p.budget_left_s}}}};
  const std::string value = j.dump();
  try {
    ws_.set_meta(kRunRecordKey, value);
  } catch (const std::exception&) {
    if (written_.empty()) throw;
    return;
  }
  written_ = value;
}

}  // namespace headway::loop
