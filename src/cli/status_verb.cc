#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/cli_support.h"
#include "cli/pool_options.h"
#include "cli/progress_line.h"
#include "cli/status_figures.h"
#include "cli/unsandboxed_runs.h"
#include "cli/verbs.h"
#include "common/duration.h"
#include "common/file_io.h"
#include "knowledge/workspace_target.h"
#include "loop/device_time.h"
#include "loop/run_record.h"
#include "report/kernel_summary.h"

namespace headway::cli {

namespace {
std::string calibration_text(const nlohmann::json& c) {
  const std::string rho = c["spearman"].is_null()
                              ? "n/a (fewer than 3 candidates or no variation)"
                              : fmt::format("{:+.2f}", c["spearman"].get<double>());
  const std::string rate =
      c["false_gain_rate"].is_null()
          ? "no gain predicted"
          : fmt::format("{} of {} ({:.0f}%)", c["false_gains"].get<int>(),
                        c["predicted_gains"].get<int>(), 100 * c["false_gain_rate"].get<double>());
  return fmt::format(
      "{} candidates, Spearman rank correlation {}, predicted gains the device did not show: {}{}",
      c["candidates"].get<int>(), rho, rate,
      c["trusted"].get<bool>() ? "" : " (not trusted: not used to screen)");
}

// v with `decimals` decimals and `suffix`, or "-" when v is not finite.
std::string finite_or_dash(double v, int decimals, const char* suffix = "") {
  return std::isfinite(v) ? fmt::format("{:.{}f}{}", v, decimals, suffix) : std::string("-");
}

struct StatusArgs {
  std::string workspace;
  bool json = false;
  bool watch = false;
  std::string interval;  // with --watch; empty: kDefaultInterval
};

constexpr double kDefaultInterval = 2.0;
constexpr double kMinInterval = 0.1;

// The run in progress (loop/run_record.h) as status shows it; null when none.
nlohmann::json run_json(const std::optional<loop::RunRecord>& run) {
  if (!run) return nullptr;
  const double now = loop::unix_now();
  const loop::Progress& p = run->progress;
  return {{"pid", run->pid},
          {"started_at", run->started_at},
          {"budget_s", run->budget_s},
          {"budget_left_s", run->budget_left_at(now)},
          {"elapsed_s", p.elapsed_s},
          {"seconds_since_update", std::max(0.0, now - run->updated_unix)},
          {"kernel", p.kernel.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.kernel)},
          {"node", p.kernel.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.node)},
          {"design", p.kernel.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.design)},
          {"stage", p.stage},
          {"note", p.note}};
}

// "running: headway optimize (pid 123) since ..., 9m55s of 12m00s left; now ffn node 17 ... race"
std::string run_text(const nlohmann::json& run) {
  const std::string now =
      run["kernel"].is_null()
          ? run["stage"].get<std::string>() + (run["note"].get<std::string>().empty()
                                                   ? ""
                                                   : ": " + run["note"].get<std::string>())
          : fmt::format("{} node {} {} {}", run["kernel"].get<std::string>(),
                        run["node"].get<int64_t>(), run["design"].get<std::string>(),
                        run["stage"].get<std::string>());
  return fmt::format("running: headway optimize (pid {}) since {}, {} of {} left; now {}\n",
                     run["pid"].get<int64_t>(), run["started_at"].get<std::string>(),
                     short_duration(run["budget_left_s"].get<double>()),
                     short_duration(run["budget_s"].get<double>()), now);
}

// The status object (docs/CLI.md, `status --json`): the figures and the run in progress.
nlohmann::json status_json(store::Workspace& ws, const nlohmann::json& figures) {
  nlohmann::json out = figures;
  out["run"] = run_json(loop::running_optimize(ws));
  // The running optimize's device pool, when it has one (cli/pool_options.h).
  out["pool"] = nullptr;
  if (!out["run"].is_null()) {
    if (const auto text = read_file(pool_status_path(ws))) {
      auto pool = nlohmann::json::parse(*text, nullptr, false);
      if (pool.is_object()) out["pool"] = std::move(pool);
    }
  }
  return out;
}

// The text form of status_json's object, the run in progress included.
std::string status_text(const nlohmann::json& out) {
  std::string text;
  if (!out["run"].is_null()) text += run_text(out["run"]);
  if (!out["pool"].is_null()) text += pool_text(out["pool"]);
  if (!out["toolchain_caveat"].is_null())
    text += fmt::format("note: {}\n", out["toolchain_caveat"].get<std::string>());
  if (out["kernels"].empty()) {
    text += "no kernels yet: run `headway optimize`\n";
    return text;
  }
  text += fmt::format("{:<9} {:>11} {:>9} {:>8} {:>9} {:>8} {:>10} {:>9} {:>6} {:>9}  {}\n",
                      "kernel", "baseline ms", "head ms", "speedup", "floor ms", "x floor",
                      "decode ms", "x decode", "nodes", "device s", "head design");
  for (const auto& k : out["kernels"]) {
    int nodes = 0;
    for (const auto& [s, c] : k["nodes"].items()) nodes += c.get<int>();
    text += fmt::format(
        "{:<9} {:>11.3f} {:>9.3f} {:>7.2f}x {:>9.3f} {:>7.2f}x {:>10} {:>9} {:>6} {:>9.1f}  "
        "{} {}\n",
        k["name"].get<std::string>() + (k["remeasured"].get<bool>() ? "*" : ""),
        k["baseline_ms"].get<double>(), k["head_ms"].get<double>(), k["speedup"].get<double>(),
        k["floor_ms"].get<double>(), k["ratio_to_floor"].get<double>(),
        // A target without a decode ceiling (the command target) shows "-".
        finite_or_dash(k["decode_floor_ms"].get<double>(), 3),
        finite_or_dash(k["ratio_to_decode_ceiling"].get<double>(), 2, "x"), nodes,
        k["device_seconds"].get<double>(), k["head_design"].get<std::string>(),
        k["head_params"].dump());
    std::string statuses, outcomes;
    for (const auto& [s, c] : k["nodes"].items())
      statuses += fmt::format(" {}={}", s, c.get<int>());
    for (const auto& [o, c] : k["tests"].items())
      outcomes += fmt::format(" {}={}", o, c.get<int>());
    text += fmt::format("          nodes:{} (library: {} untried)\n          tests:{}\n", statuses,
                        k["untried"].get<int>(), outcomes);
    std::string split;
    for (const auto& [a, v] : k["device_seconds_by_activity"].items())
      split += fmt::format(" {}={:.1f}", a, v.get<double>());
    if (!split.empty()) text += fmt::format("          device s:{}\n", split);
    if (k["screen_calibration"]["candidates"].get<int>() > 0) {
      text += fmt::format("          static cost: {}\n", calibration_text(k["screen_calibration"]));
    }
  }
  text += fmt::format("geomean speedup over the baselines: {:.3f}x\n",
                      out["geomean_speedup"].get<double>());
  text += loop::describe(loop::decision_rate_from_json(out["decision_rate"])) + "\n";
  // The layer at each of the attention's shape sets first, then the step of the three
  // projections.
  std::vector<nlohmann::json> steps(out["decode_layers"].begin(), out["decode_layers"].end());
  steps.push_back(out["decode_step"]);
  for (const auto& step : steps) {
    if (step.is_null()) continue;
    const bool layer = !step["attention"].is_null();
    text += fmt::format(
        "decode {} (the heads' medians summed{}): {:.3f} ms{}, {:.2f}x the sum of the floors "
        "({:.3f} ms); {:.2f}x the baselines' {}\n",
        layer ? "layer" : "step",
        layer ? ": qkv + " + step["attention"].get<std::string>() + " + attn_out + ffn" : "",
        step["head_ms"].get<double>(),
        step["interval_ms"].is_null()
            ? std::string()
            : fmt::format(" (interval {:.3f} to {:.3f}, at least {:.0f}%)",
                          step["interval_ms"][0].get<double>(),
                          step["interval_ms"][1].get<double>(),
                          100 * step["interval_coverage"].get<double>()),
        step["ratio_to_floor"].get<double>(), step["floor_ms"].get<double>(),
        step["speedup"].get<double>(), layer ? "layer" : "step");
  }
  for (const auto& k : out["kernels"]) {
    if (k["speedup_verdict"] == "unresolved") text += unresolved_speedup_text(k) + "\n";
  }
  if (out["screen_calibration"]["candidates"].get<int>() > 0) {
    text += fmt::format("screen calibration (static cost against the device, every kernel): {}\n",
                        calibration_text(out["screen_calibration"]));
  }
  bool any_remeasured = false;
  for (const auto& k : out["kernels"]) any_remeasured |= k["remeasured"].get<bool>();
  if (any_remeasured) {
    text +=
        fmt::format("* baseline and head re-measured side by side with the current toolchain: {}\n",
                    out["toolchain"].get<std::string>());
  }
  if (const std::string line = report::heads_by_model_line(
          out.value("device_models", nlohmann::json::object()).get<report::HeadsByModel>());
      !line.empty()) {
    text += line + "\n";
  }
  std::string floors_beside;
  for (const auto& k : out["kernels"]) {
    if (k["floor_beside_head"].get<bool>())
      floors_beside += (floors_beside.empty() ? "" : ", ") + k["name"].get<std::string>();
  }
  if (!floors_beside.empty()) {
    text += fmt::format("floors measured around the side-by-side readings: {}\n", floors_beside);
  }
  return text;
}

void warn_unsandboxed(store::Workspace& ws) {
  const UnsandboxedRuns u = unsandboxed_runs(ws);
  if (u.count > 0) fmt::print(stderr, "headway: warning: {}\n", describe(u));
}

int run_status_once(const StatusArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  const std::unique_ptr<targets::Target> target = workspace_target_or_throw(ws);
  const nlohmann::json out =
      status_json(ws, status_figures(ws, *target, kernel_catalog_or_throw(ws, target.get())));
  if (args.json) {
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  warn_unsandboxed(ws);
  fmt::print("{}", status_text(out));
  return kExitOk;
}

// SIGINT and SIGTERM end a watch between two snapshots (or its wait), so that it exits cleanly.
// The handler also writes a byte to a pipe that the wait polls: the signal may be handled on
// another thread than the waiting one, or just before the wait begins, and the byte stays.
volatile std::sig_atomic_t g_stop_signal = 0;
int g_stop_pipe[2] = {-1, -1};
extern "C" void on_stop_signal(int sig) {
  g_stop_signal = sig;
  if (g_stop_pipe[1] >= 0) {
    const char byte = 1;
    (void)!write(g_stop_pipe[1], &byte, 1);
  }
}

void catch_stop_signals() {
  if (g_stop_pipe[0] < 0 && pipe2(g_stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    g_stop_pipe[0] = g_stop_pipe[1] = -1;  // the wait then checks the flag every 100 ms
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// Sleeps `seconds`, returning early when a stop signal arrives.
void wait_or_stop(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!g_stop_signal) {
    const auto left = until - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return;
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    pollfd stop{g_stop_pipe[0], POLLIN, 0};
    if (g_stop_pipe[0] >= 0) {
      poll(&stop, 1, static_cast<int>(std::min<int64_t>(ms, 60000)));
    } else {
      poll(nullptr, 0, static_cast<int>(std::min<int64_t>(ms, 100)));
    }
  }
}

std::string local_clock() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// Follows a run: re-reads the workspace every interval and shows the status (see add_status).
int run_status_watch(const StatusArgs& args, double interval) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  std::unique_ptr<targets::Target> target = workspace_target_or_throw(ws);
  std::string toolchain_spec = knowledge::workspace_toolchain(ws, target->name());
  const bool terminal = isatty(STDOUT_FILENO) == 1 && !args.json;
  catch_stop_signals();
  std::optional<loop::RunRecord> followed;  // the run's process, once seen
  // Computed again only when the workspace changed.
  StatusFigures figures(ws, kernel_catalog_or_throw(ws, target.get()));
  std::string last_key;
  if (!args.json) warn_unsandboxed(ws);
  for (;;) {
    // A migration may have moved the workspace's toolchain: the figures are the current one's.
    if (const std::string spec = knowledge::workspace_toolchain(ws, target->name());
        spec != toolchain_spec) {
      target = workspace_target_or_throw(ws);
      toolchain_spec = spec;
    }
    // Whether the run's process lived before the snapshot is read: a process that exits while
    // the snapshot is read may have written figures after it, so the run is said to have ended
    // only with a snapshot read after its exit.
    const bool alive_before = followed && followed->alive();
    nlohmann::json out = status_json(ws, figures.current(*target));
    if (!out["run"].is_null()) followed = loop::read_run_record(ws);
    // The loop's record goes when the loop ends; its process then times every baseline and head
    // side by side before it exits, and the watch waits for those figures too.
    const bool finishing = out["run"].is_null() && followed && alive_before;
    const bool going = !out["run"].is_null() || finishing;
    std::string text = status_text(out);
    if (finishing) {
      text += fmt::format(
          "finishing: headway optimize (pid {}) ended its loop and times the heads side by "
          "side\n",
          followed->pid);
    } else if (!going) {
      text += followed ? "the optimize run ended\n" : "no optimize is running\n";
    }
    // What makes a new snapshot: everything but the run's clock.
    nlohmann::json key = out;
    if (!key["run"].is_null()) {
      for (const char* clock : {"budget_left_s", "elapsed_s", "seconds_since_update"})
        key["run"].erase(clock);
    }
    key["finishing"] = finishing;
    key["going"] = going;
    const std::string key_text = key.dump();
    if (args.json) {
      if (key_text != last_key) {
        out["finishing"] = finishing;
        fmt::print("{}\n", out.dump());
      }
    } else if (terminal) {
      fmt::print("\033[H\033[2J{}  (headway status --watch, every {}s; Ctrl-C stops)\n\n{}",
                 local_clock(), interval, text);
    } else if (key_text != last_key) {
      fmt::print("{}== {}\n{}", last_key.empty() ? "" : "\n", local_clock(), text);
    }
    last_key = key_text;
    if (!going || g_stop_signal) break;
    wait_or_stop(interval);
    if (g_stop_signal) break;
  }
  std::fflush(stdout);
  return kExitOk;
}

int run_status(const StatusArgs& args) {
  if (!args.watch) {
    if (!args.interval.empty()) throw UsageError("--interval goes with --watch");
    return run_status_once(args);
  }
  double interval = kDefaultInterval;
  if (!args.interval.empty()) {
    const auto seconds = parse_duration_seconds(args.interval);
    if (!seconds || *seconds < kMinInterval) {
      throw UsageError(
          fmt::format("--interval '{}' is not a duration of at least {}s (examples: 2, 0.5s, 1m)",
                      args.interval, kMinInterval));
    }
    interval = *seconds;
  }
  return run_status_watch(args, interval);
}
}  // namespace

void add_status(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<StatusArgs>();
  auto* cmd = app.add_subcommand("status", "Heads, speedups and the state of every Design Tree");
  cmd->add_option("--workspace", args->workspace, "workspace directory (default: found from here)");
  cmd->add_flag("--json", args->json,
                "print one JSON object (with --watch: one a line, for every new snapshot)");
  cmd->add_flag("--watch", args->watch,
                "follow a running optimize: show the status again every interval until the run "
                "ends (Ctrl-C stops)");
  cmd->add_option("--interval", args->interval,
                  "with --watch: seconds between two looks, e.g. 2, 0.5s, 1m (default 2)");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_status(*args); }); });
}

}  // namespace headway::cli
