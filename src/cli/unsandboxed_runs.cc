#include "cli/unsandboxed_runs.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "common/sandbox.h"

namespace headway::cli {

void record_unsandboxed_run(store::Workspace& ws, std::string_view command) {
  auto s = ws.db().prepare("INSERT INTO unsandboxed_runs(command) VALUES (?1)");
  s.bind(1, command);
  s.run();
}

UnsandboxedRuns unsandboxed_runs(store::Workspace& ws) {
  UnsandboxedRuns runs;
  runs.count = ws.db().query_int64("SELECT count(*) FROM unsandboxed_runs");
  auto s = ws.db().prepare("SELECT at, command FROM unsandboxed_runs ORDER BY id DESC LIMIT 1");
  if (s.step()) {
    runs.last_at = s.text(0);
    runs.last_command = s.text(1);
  }
  return runs;
}

std::string describe(const UnsandboxedRuns& runs) {
  if (runs.count == 0) return "";
  return fmt::format("{} {} of candidate code {} not sandboxed; last at {}{}", runs.count,
                     runs.count == 1 ? "run" : "runs", runs.count == 1 ? "was" : "were",
                     runs.last_at, runs.last_command.empty() ? "" : " (" + runs.last_command + ")");
}

void record_unsandboxed_runs_in(const std::filesystem::path& root, std::string command) {
  sandbox::on_first_unsandboxed_run([root, command = std::move(command)] {
    try {
      auto ws = store::Workspace::open(root);
      if (!ws) throw std::runtime_error(ws.error().message);
      record_unsandboxed_run(ws.value(), command);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "headway: warning: cannot record the unsandboxed run in %s: %s\n",
                   root.c_str(), e.what());
    }
  });
}

namespace {
std::string& invocation_storage() {
  static std::string command;
  return command;
}
}  // namespace

void set_invocation(std::string command) { invocation_storage() = std::move(command); }
const std::string& invocation() { return invocation_storage(); }

}  // namespace headway::cli
