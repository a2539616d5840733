#include "report/pool_use.h"

#include <fmt/format.h>

#include <algorithm>

#include "store/pool_runs.h"

namespace headway::report {

namespace {

double number_or(const nlohmann::json& j, const char* key, double fallback) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

std::string text_or_empty(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

}  // namespace

double WorkerUse::held_seconds(double run_end_s) const {
  if (connected_s < 0) return 0;
  return std::max(0.0, (ended_s < 0 ? run_end_s : ended_s) - connected_s);
}

double WorkerUse::busy_seconds() const {
  double sum = 0;
  for (const auto& [start, end] : busy) sum += end - start;
  return sum;
}

double PoolUseReport::held_seconds() const {
  double sum = 0;
  for (const auto& w : workers) sum += w.held_seconds(elapsed_s);
  return sum;
}

double PoolUseReport::busy_seconds() const {
  double sum = 0;
  for (const auto& w : workers) sum += w.busy_seconds();
  return sum;
}

double PoolUseReport::busy_share() const {
  const double held = held_seconds();
  return held > 0 ? std::min(1.0, busy_seconds() / held) : 0;
}

PoolUseReport parse_pool_use(int64_t id, const std::string& kind, const std::string& at,
                             const nlohmann::json& use) {
  PoolUseReport r;
  r.id = id;
  r.kind = kind;
  r.at = at;
  r.devices = static_cast<int>(number_or(use, "devices", 0));
  r.elapsed_s = std::max(0.0, number_or(use, "elapsed_s", 0));
  if (!use.is_object() || !use.contains("workers") || !use["workers"].is_array()) return r;
  for (const auto& w : use["workers"]) {
    WorkerUse u;
    u.name = text_or_empty(w, "name");
    u.node = text_or_empty(w, "node");
    u.jobs = static_cast<int64_t>(number_or(w, "jobs", 0));
    u.connected_s = number_or(w, "connected_s", -1);
    u.ended_s = number_or(w, "ended_s", -1);
    if (w.is_object() && w.contains("busy") && w["busy"].is_array()) {
      for (const auto& span : w["busy"]) {
        if (!span.is_array() || span.size() != 2 || !span[0].is_number() || !span[1].is_number()) {
          continue;
        }
        const double start = span[0].get<double>(), end = span[1].get<double>();
        if (start >= 0 && start <= end) u.busy.emplace_back(start, end);
      }
    }
    r.workers.push_back(std::move(u));
  }
  return r;
}

std::vector<PoolUseReport> pool_use_reports(store::Workspace& ws) {
  std::vector<PoolUseReport> out;
  for (const auto& run : store::pool_runs(ws.db()))
    out.push_back(parse_pool_use(run.id, run.kind, run.at, run.use));
  return out;
}

std::string pool_use_line(const PoolUseReport& p) {
  int64_t jobs = 0;
  for (const auto& w : p.workers) jobs += w.jobs;
  return fmt::format(
      "{} pool of {} device{} (run ended {}): {} jobs; busy {:.0f}% of the {:.1f} device-minutes "
      "held",
      p.kind, p.devices, p.devices == 1 ? "" : "s", p.at, jobs, 100 * p.busy_share(),
      p.held_seconds() / 60);
}

std::string pool_use_name(int64_t id) { return fmt::format("pool:{}", id); }

std::optional<std::string> pool_use_plot(const PoolUseReport& p) {
  std::string held, busy, tics;
  double end = p.elapsed_s;
  int row = 0;
  for (const auto& w : p.workers) {
    if (w.connected_s < 0) continue;
    const double until = w.ended_s < 0 ? p.elapsed_s : w.ended_s;
    end = std::max(end, until);
    held += fmt::format("{:.6g} {:.6g} {}\n", w.connected_s, until, row);
    for (const auto& [start, stop] : w.busy)
      busy += fmt::format("{:.6g} {:.6g} {}\n", start, stop, row);
    tics += fmt::format("{}\"{}{}\" {}", row ? ", " : "", w.name,
                        w.node.empty() ? "" : " on " + w.node, row);
    ++row;
  }
  if (row == 0) return std::nullopt;
  const bool minutes = end > 300;
  const double unit = minutes ? 60 : 1;
  std::string script = fmt::format(
      "set title \"{} pool: each device's use over the run (busy {:.0f}%)\"\n"
      "set xlabel '{} since the pool started'\nset xrange [0:{:.6g}]\n"
      "set yrange [-0.7:{}.7]\nset ytics ({})\nset grid xtics\nset key outside right top\n"
      "set style fill solid 0.9 noborder\n",
      p.kind, 100 * p.busy_share(), minutes ? "minutes" : "seconds", std::max(end / unit, 1.0),
      row - 1, tics);
  script += fmt::format("$held << EOD\n{}EOD\n", held);
  std::string series = fmt::format(
      "plot $held using (($1+$2)/2/{0}):3:($1/{0}):($2/{0}):($3-0.3):($3+0.3) with boxxyerror "
      "lc rgb '#d5e8d4' title 'held'",
      unit);
  if (!busy.empty()) {
    script += fmt::format("$busy << EOD\n{}EOD\n", busy);
    series += fmt::format(
        ", \\\n  $busy using (($1+$2)/2/{0}):3:($1/{0}):($2/{0}):($3-0.3):($3+0.3) with "
        "boxxyerror lc rgb '#27ae60' title 'running jobs'",
        unit);
  }
  return script + series + "\n";
}

}  // namespace headway::report
