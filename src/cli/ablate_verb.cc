// `headway ablate`: an ablation study of the loop's parts (docs/ABLATIONS.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "ablate/study.h"
#include "ablate/study_html.h"
#include "ablate/study_runner.h"
#include "ablate/study_summary.h"
#include "cli/cli_support.h"
#include "cli/pool_options.h"
#include "cli/verbs.h"
#include "common/file_io.h"
#include "common/sandbox.h"
#include "common/split_fields.h"
#include "common/subprocess.h"
#include "pool/pool_broker.h"

namespace headway::cli {

namespace {

namespace fs = std::filesystem;

struct AblateArgs {
  std::string study;
  ablate::StudySpec spec;
  std::string arms;
  std::string optimize_args;  // whitespace-separated
  PoolArgs pool;              // the study's one pool, shared by its runs
  int jobs = 1;
  bool report_only = false;
  std::string format = "text";
  bool json = false;
  std::string html;  // where to write the study's HTML page; empty: none
  // The spec's options given on the command line: only these are checked against a stored study.
  std::vector<std::string> given;
};

// SIGINT and SIGTERM stop the study: no run starts, and those in flight are stopped
// (ablate/study_runner.h). Lock-free atomics: safe to store from a handler.
std::atomic<bool> g_ablate_stopping{false};
std::atomic<int> g_ablate_stop_signal{0};
extern "C" void on_ablate_stop(int sig) {
  g_ablate_stop_signal = sig;
  g_ablate_stopping = true;
}

void catch_ablate_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_ablate_stop;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// `words` without optimize's pool options, which go to `pool` instead: a study's runs share the
// study's one pool (docs/ABLATIONS.md). Pool options both here and given to ablate itself are a
// UsageError, as are values optimize would refuse.
std::vector<std::string> take_pool_options(const std::vector<std::string>& words, PoolArgs* pool) {
  PoolArgs found;
  CLI::App parser;
  add_pool_options(parser, found);
  parser.allow_extras();
  try {
    parser.parse(std::vector<std::string>(words.rbegin(), words.rend()));
  } catch (const CLI::ParseError& e) {
    throw UsageError(fmt::format("--optimize-args: {}", e.what()));
  }
  if (!pool_given(found)) return words;
  if (pool_given(*pool)) {
    throw UsageError(
        "the study's pool is given twice: in --optimize-args and as headway ablate's own "
        "--pool options");
  }
  *pool = found;
  fmt::print(stderr,
             "ablate: the pool options in --optimize-args make the study's one pool, which every "
             "run shares (docs/ABLATIONS.md)\n");
  return parser.remaining();
}

// The study at args.study: created from the given options when it has no study.json yet, else
// opened, and each given option must agree with what it holds.
ablate::Study open_study(const AblateArgs& args) {
  ablate::StudySpec spec = args.spec;
  std::vector<std::string> given = args.given;
  if (!args.arms.empty()) {
    spec.arms.clear();
    for (auto& arm : split_fields(args.arms, ',')) {
      if (!arm.empty()) spec.arms.push_back(std::move(arm));
    }
  }
  if (!spec.manifest.empty())
    spec.manifest = fs::absolute(spec.manifest).lexically_normal().string();
  std::istringstream words(args.optimize_args);
  for (std::string word; words >> word;) spec.optimize_args.push_back(word);
  PoolArgs pool = args.pool;
  spec.optimize_args = take_pool_options(spec.optimize_args, &pool);
  spec.pool = pool_config(pool, nlohmann::json::object());
  if (pool_given(pool) && std::find(given.begin(), given.end(), "pool") == given.end())
    given.push_back("pool");
  if (args.report_only && !fs::exists(fs::path(args.study) / "study.json"))
    throw UsageError(args.study + " holds no study (no study.json)");
  auto study = ablate::Study::create_or_open(args.study, spec, given);
  if (!study) fail_with(study.error());
  return std::move(study.value());
}

// The study's pool and the broker that serves it to the runs (pool/pool_broker.h), in DIR/pool/;
// nullptr when the study has none, or when its target keeps device work here (with a warning).
std::unique_ptr<pool::PoolBroker> start_study_pool(const ablate::Study& study) {
  const ablate::StudySpec& spec = study.spec();
  if (spec.pool.value("kind", "local") != "slurm") return nullptr;
  const auto target = target_or_throw(spec.target, "", spec.manifest);
  if (!target_takes_pool(*target)) return nullptr;
  const fs::path folder = study.dir() / "pool";
  auto broker = pool::PoolBroker::start(start_slurm_pool(spec.pool, folder), folder);
  if (!broker) throw EnvironmentError("the study's pool cannot start: " + broker.error().message);
  fmt::print(stderr, "ablate: {}, shared by the study's runs at {}\n", pool_line(spec.pool),
             (*broker)->address());
  return std::move(*broker);
}

// The study pool's status as text (pool_text), and which runs each worker served.
std::string study_pool_text(const nlohmann::json& status) {
  std::string text = pool_text(status);
  for (const auto& w : status["workers"]) {
    text +=
        fmt::format("  {} ran jobs of {} runs\n", w["name"].get<std::string>(), w["runs"].size());
  }
  return text;
}

int run_ablate(const AblateArgs& args) {
  if (args.format != "text" && args.format != "md")
    throw UsageError(fmt::format("--format '{}' is not text or md", args.format));
  if (args.jobs < 1) throw UsageError("--jobs must be 1 or more");
  if (!args.spec.manifest.empty() && !fs::exists(args.spec.manifest))
    throw UsageError("--manifest " + args.spec.manifest + " does not exist");
  const ablate::Study study = open_study(args);
  ablate::RunnerReport ran;
  nlohmann::json pool_status;  // the study pool's at the end, when it had one
  if (!args.report_only) {
    ablate::RunnerOptions options;
    options.headway = own_executable();
    if (options.headway.empty()) throw EnvironmentError("cannot find this headway's own binary");
    if (sandbox::mode() == sandbox::Mode::kDisabled) options.global_args = {"--no-sandbox"};
    options.jobs = args.jobs;
    options.log = [](const std::string& line) { fmt::print(stderr, "ablate: {}\n", line); };
    options.cancel = &g_ablate_stopping;
    catch_ablate_stop_signals();
    auto broker = start_study_pool(study);
    if (broker) {
      options.optimize_args = {"--pool",
                               "study",
                               "--pool-broker",
                               broker->address(),
                               "--pool-token-file",
                               broker->token_file().string()};
    }
    ran = ablate::run_pending(study, options);
    if (broker) {
      pool_status = broker->status_json();
      broker.reset();  // the workers leave; the scheduler's allocations end
      write_file_atomically(study.dir() / "pool" / "status.json", pool_status.dump(2) + "\n");
    }
  }
  const auto arms = ablate::summarize(study);
  if (!args.html.empty()) {
    // A missing or failing plot tool, or a page that cannot be written: the environment's
    // problem (exit 3), as in every verb.
    try {
      write_file_atomically(args.html, ablate::study_html(study, arms));
    } catch (const std::runtime_error& e) {
      throw EnvironmentError(e.what());
    }
  }
  if (args.json) {
    const nlohmann::json out = {{"study", study.dir().string()},
                                {"spec", ablate::to_json(study.spec())},
                                {"ran", ran.ran},
                                {"stopped", ran.stopped},
                                {"failures", ran.failures},
                                {"pending", study.pending().size()},
                                {"arms", ablate::to_json(arms)},
                                {"pool", pool_status}};
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print("{}", ablate::render(study, arms, args.format == "md"));
    if (!pool_status.is_null()) fmt::print("\n{}", study_pool_text(pool_status));
  }
  for (const auto& f : ran.failures) fmt::print(stderr, "headway: {}\n", f);
  if (g_ablate_stopping) {
    fmt::print(stderr,
               "headway: stopped by a signal, and the runs in flight with it: {}; `headway ablate "
               "--study {}` goes on with the runs left: {}\n",
               ran.stopped, args.study, study.pending().size());
    return 128 + g_ablate_stop_signal.load();
  }
  if (!ran.failures.empty()) {
    fmt::print(stderr,
               "headway: {} of the study's runs failed; `headway ablate --study {}` runs them "
               "again\n",
               ran.failures.size(), args.study);
    return kExitNegative;
  }
  return kExitOk;
}

}  // namespace

void add_ablate(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<AblateArgs>();
  auto* cmd = app.add_subcommand(
      "ablate",
      "Run an ablation study: optimize runs per arm (the full loop, parts switched off or "
      "swapped) in fresh workspaces, and what each part buys (resumes where a killed study "
      "stopped)");
  cmd->add_option("--study", args->study, "the study's folder (created on the first call)")
      ->required();
  const auto spec_option = [&](const std::string& name, auto* value, const std::string& help) {
    cmd->add_option("--" + name, *value, help)->each([args, name](const std::string&) {
      args->given.push_back(name);
    });
  };
  spec_option("target", &args->spec.target, "the target the runs optimize on (default sim)");
  spec_option("manifest", &args->spec.manifest, "the command target's manifest");
  spec_option("kernels", &args->spec.kernels, "comma-separated kernels (default: the target's)");
  spec_option("budget", &args->spec.budget, "each run's optimize budget (default 60s)");
  spec_option("runs", &args->spec.runs, "runs per arm (default 5)");
  spec_option("seed", &args->spec.seed,
              "the study's seed: run i of every arm gets the same seed from it (default 1)");
  cmd->add_option("--arms", args->arms,
                  fmt::format("comma-separated arms (default full): {}",
                              fmt::join(ablate::known_arms(), ", ")))
      ->each([args](const std::string&) { args->given.push_back("arms"); });
  cmd->add_option("--optimize-args", args->optimize_args,
                  "options every run's optimize gets too, e.g. '--confirm-calls 0'; pool options "
                  "here make the study's pool (as --pool ...)")
      ->each([args](const std::string&) { args->given.push_back("optimize_args"); });
  cmd->add_option("--jobs", args->jobs, "runs at once (default 1)");
  add_pool_options(*cmd, args->pool, PoolOptionsOf::kStudy);
  cmd->add_flag("--report-only", args->report_only, "run nothing; summarize the stored runs");
  cmd->add_option("--format", args->format, "text (default) or md");
  cmd->add_flag("--json", args->json, "print one JSON object (progress goes to stderr)");
  cmd->add_option("--html", args->html,
                  "also write the summary and its plots (ratio to the floor against device time "
                  "per arm; false accepts per arm) to this HTML file");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_ablate(*args); }); });
}

}  // namespace headway::cli
