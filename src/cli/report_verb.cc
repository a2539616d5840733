// `headway report`: the workspace as one self-contained HTML file (with the tested
// configurations in the T4 format beside it), or as Markdown, JSON or T4 on stdout.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "common/file_io.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/report_model.h"
#include "report/t4_export.h"
#include "report/tools.h"

namespace headway::cli {

namespace {

namespace fs = std::filesystem;

struct ReportArgs {
  std::string workspace;
  std::string out;
  std::string format = "html";
  std::string calibration;
  bool json = false;
};

// The file a format writes into --out.
std::string file_name(const std::string& format) {
  if (format == "html") return "report.html";
  if (format == "md") return "report.md";
  if (format == "json") return "report.json";
  return "t4-results.json";
}

// A file that cannot be written is the environment's problem (exit 3), as in every verb.
void write_text(const fs::path& path, const std::string& text) {
  try {
    write_file_creating_folders(path, text);
  } catch (const std::runtime_error& e) {
    throw EnvironmentError(e.what());
  }
}

nlohmann::json read_calibration(const std::string& path) {
  const std::optional<std::string> text = read_file(path);
  if (!text) throw UsageError(fmt::format("cannot read the calibration {}", path));
  auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("decisions") || !j.contains("faster_rate")) {
    throw UsageError(fmt::format(
        "{} is not the output of `headway calibrate --json` (no decisions or faster_rate)", path));
  }
  return j;
}

int run_report(const ReportArgs& args) {
  if (args.format != "html" && args.format != "md" && args.format != "json" &&
      args.format != "t4") {
    throw UsageError(fmt::format("unknown format '{}' (html, md, json or t4)", args.format));
  }
  const bool to_stdout = args.format != "html" && args.out.empty();
  if (args.json && to_stdout && args.format != "json") {
    throw UsageError(fmt::format("--json with --format {} needs --out DIR", args.format));
  }
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  const std::unique_ptr<targets::Target> target = workspace_target_or_throw(ws);
  report::CollectOptions options;
  options.catalog = kernel_catalog_or_throw(ws, target.get());
  if (!args.calibration.empty()) {
    options.calibration = read_calibration(args.calibration);
    options.calibration_from = args.calibration;
  }
  try {
    // The tools first: a missing one ends the verb before any work.
    report::require_tool("diff", "diffutils");
    if (args.format == "html") {
      report::require_tool("gnuplot", "gnuplot-nox");
      report::require_tool("dot", "graphviz");
    }
    const report::Report r = report::collect_report(ws, *target, options);
    std::string text;
    if (args.format == "html") {
      text = report::render_html(r, report::render_figures(r));
    } else if (args.format == "md") {
      text = report::render_markdown(r);
    } else if (args.format == "json") {
      text = report::to_json(r).dump(2) + "\n";
    } else {
      text = report::to_t4(r).dump(2) + "\n";
    }
    if (to_stdout) {
      fmt::print("{}", text);
      return kExitOk;
    }
    const fs::path dir = args.out.empty() ? ws.root() / "report" : fs::path(args.out);
    std::vector<std::string> files = {(dir / file_name(args.format)).string()};
    write_text(files[0], text);
    if (args.format == "html") {
      files.push_back((dir / file_name("t4")).string());
      write_text(files[1], report::to_t4(r).dump(2) + "\n");
    }
    if (args.json) {
      int tests = 0, nodes = 0;
      for (const auto& k : r.kernels) {
        tests += static_cast<int>(k.tests.size());
        nodes += static_cast<int>(k.nodes.size());
      }
      fmt::print("{}\n", nlohmann::json{{"format", args.format},
                                        {"files", files},
                                        {"kernels", r.kernels.size()},
                                        {"nodes", nodes},
                                        {"tests", tests}}
                             .dump(2));
    } else {
      for (const auto& f : files) fmt::print("{}\n", f);
    }
    return kExitOk;
  } catch (const report::ToolMissing& e) {
    throw EnvironmentError(e.what());
  } catch (const report::ToolFailed& e) {
    throw EnvironmentError(e.what());
  }
}

}  // namespace

void add_report(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand(
      "report", "The run as one self-contained HTML file, or as Markdown, JSON or T4 results");
  cmd->add_option("--out", args->out,
                  "directory to write into (default for html: <workspace>/report; md, json and "
                  "t4 print on stdout without it)");
  cmd->add_option("--format", args->format,
                  "html (default; with t4-results.json beside it), md, json or t4");
  cmd->add_option("--calibration", args->calibration,
                  "a `headway calibrate --json` output to show (the workspace keeps none)");
  cmd->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here)");
  cmd->add_flag("--json", args->json, "print one JSON object naming the files written");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_report(*args); }); });
}

}  // namespace headway::cli
