#include "cli/app.h"

#include <fmt/format.h>

#include <exception>
#include <filesystem>
#include <string>
#include <system_error>

#include "cli/cli_support.h"
#include "cli/unsandboxed_runs.h"
#include "cli/verbs.h"
#include "common/sandbox.h"

namespace headway::cli {

namespace {

void add_no_sandbox(CLI::App& app) {
  // Takes effect as soon as it is parsed: before the verb runs.
  app.add_flag_callback(
         "--no-sandbox",
         [] {
           sandbox::set_mode(sandbox::Mode::kDisabled);
           std::fprintf(stderr,
                        "headway: warning: --no-sandbox: candidate code runs without isolation\n");
           // Recorded in the workspace found from here, unless the verb opens another one.
           std::error_code ec;
           const auto here = std::filesystem::current_path(ec);
           if (ec) return;
           if (auto root = store::Workspace::locate(here)) {
             record_unsandboxed_runs_in(*root, invocation());
           }
         },
         "run candidate code without the sandbox (bubblewrap): no isolation, a warning on every "
         "run and in `headway status`")
      ->trigger_on_parse();
}

// CLI11's messages name the problem ("--kernel is required"); the verb that was being parsed,
// when there is one, says where to look for help.
std::string parse_error_line(const CLI::App& app, const CLI::ParseError& e) {
  std::string where = "headway";
  for (const CLI::App* sub = &app;;) {
    const auto picked = sub->get_subcommands();
    if (picked.empty()) break;
    sub = picked.front();
    where += " " + sub->get_name();
  }
  std::string what = e.what();
  if (what.rfind("A subcommand is required", 0) == 0) {
    const auto left = app.remaining();
    if (where != "headway") {
      what = where + " needs a subcommand";
    } else if (left.empty()) {
      what = "a verb is required";
    } else {
      what = fmt::format("unknown {} '{}'", left.front().rfind('-', 0) == 0 ? "option" : "verb",
                         left.front());
    }
  }
  return fmt::format("{} (see '{} --help')", what, where);
}

}  // namespace

std::unique_ptr<CLI::App> make_app(int* exit_code) {
  auto app = std::make_unique<CLI::App>(
      "headway: teaches itself an accelerator, then optimizes kernels on it", "headway");
  app->require_subcommand(1);
  app->set_version_flag(
      "--version", [] { return version_line(); },
      "print the version line (version, commit, compiler, workspace schema)");
  add_no_sandbox(*app);
  add_init(*app, exit_code);
  add_check(*app, exit_code);
  add_bench(*app, exit_code);
  add_compare(*app, exit_code);
  add_export(*app, exit_code);
  add_optimize(*app, exit_code);
  add_status(*app, exit_code);
  add_tree(*app, exit_code);
  add_calibrate(*app, exit_code);
  add_docs(*app, exit_code);
  add_check_citations(*app, exit_code);
  add_facts(*app, exit_code);
  add_rules(*app, exit_code);
  add_kernel(*app, exit_code);
  add_migrate(*app, exit_code);
  add_onboard(*app, exit_code);
  add_agents(*app, exit_code);
  add_report(*app, exit_code);
  add_worker(*app, exit_code);
  add_device_job(*app, exit_code);
  add_ablate(*app, exit_code);
  add_version(*app, exit_code);
  add_completion(*app, exit_code);
  add_man(*app, exit_code);
  return app;
}

int run_app(CLI::App& app, int argc, char** argv, const int& exit_code) {
  std::string command = "headway";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  set_invocation(command);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    fmt::print("{}", app.help("", CLI::AppFormatMode::All));
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    fmt::print("{}\n", e.what());
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // Not app.exit(e): that prints CLI11's two-line message, run together with whatever the
    // verb printed before the error.
    print_error(parse_error_line(app, e));
    return kExitUsage;
  } catch (const sandbox::Unavailable& e) {
    print_error(sandbox_refusal(e.what()));
    return kSandboxExit;
  } catch (const VerbError& e) {
    print_error(e.what());
    return exit_code_for(e.code());
  } catch (const store::StoreError& e) {
    print_error(std::string("workspace database: ") + e.what());
    return exit_code_for(ErrorCode::kDatabase);
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitUsage;
  }
  return exit_code;
}

}  // namespace headway::cli
