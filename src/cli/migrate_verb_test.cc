// `headway facts`, `headway rules` and `headway migrate` as a user runs them: a real binary, and
// for the pause a real `headway optimize` running meanwhile.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_test_support.h"
#include "common/subprocess.h"
#include "common/test_processes.h"
#include "knowledge/facts.h"
#include "knowledge/kernel_timings.h"
#include "knowledge/rules.h"
#include "loop/workspace_pause.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"
#include "targets/cpu/compiler.h"
#include "trees/design_tree.h"

namespace headway {
namespace {

namespace fs = std::filesystem;

TEST(MigrateVerb, RefusesAMissingCompilerAndListsFactsAndRules) {
  store::TestTempDir dir;
  {
    auto ws = store::Workspace::create(dir.path()).value();
    knowledge::store_fact(ws, {knowledge::kReadBandwidth, knowledge::current_toolchain_id(ws), 7.25,
                               "GB/s", std::nullopt, "test", ""});
    ASSERT_TRUE(
        knowledge::record_build_failure(ws, "qkv", 1, "int a = b;",
                                        "a.cc:1:9: error: 'b' was not declared in this scope", "tc")
            .ok());
  }
  const std::string w = dir.path().string();
  const auto missing =
      cli::run_headway_merged({"migrate", "--toolchain", "/nonexistent/c++", "--workspace", w});
  EXPECT_EQ(missing.exit_code, 3) << missing.output;  // no such compiler: the environment
  EXPECT_EQ(missing.output.rfind("headway: cannot use toolchain '/nonexistent/c++'", 0), 0u)
      << missing.output;
  {
    auto ws = store::Workspace::open(dir.path()).value();
    EXPECT_FALSE(ws.meta("cpu.toolchain"));
  }

  const auto facts = cli::run_headway_merged({"facts", "--json", "--workspace", w});
  ASSERT_EQ(facts.exit_code, 0) << facts.output;
  const auto fj = nlohmann::json::parse(facts.output);
  EXPECT_FALSE(fj["measured"].get<bool>());
  ASSERT_EQ(fj["facts"].size(), 1u);
  EXPECT_DOUBLE_EQ(fj["facts"][0]["value"].get<double>(), 7.25);

  const auto rules = cli::run_headway_merged({"rules", "--json", "--workspace", w});
  ASSERT_EQ(rules.exit_code, 0) << rules.output;
  const auto rj = nlohmann::json::parse(rules.output);
  ASSERT_EQ(rj.size(), 1u);
  EXPECT_EQ(rj[0]["signature"], "error: '<id>' was not declared in this scope");
  EXPECT_EQ(rj[0]["status"]["tc"]["status"], "verified");
  const auto text = cli::run_headway_merged({"rules", "--workspace", w});
  EXPECT_NE(text.output.find("verified           tc"), std::string::npos) << text.output;
}

int64_t count(store::Workspace& ws, const std::string& sql, const std::string& a = "",
              const std::string& b = "") {
  auto s = ws.db().prepare(sql);
  if (!a.empty()) s.bind(1, a);
  if (!b.empty()) s.bind(2, b);
  EXPECT_TRUE(s.step());
  return s.int64(0);
}

TEST(MigrateVerb, PausesARunningOptimizeWhichResumesWithTheNewToolchain) {
  store::TestTempDir dir;
  const std::string w = (dir.path() / "w").string();
  ASSERT_EQ(cli::run_headway_merged({"init", w}).exit_code, 0);
  // A request left by a migration that crashed: the optimizer clears it and goes on.
  const int64_t crashed = dead_pid();
  {
    auto ws = store::Workspace::open(w).value();
    ws.set_meta(loop::kPauseRequestKey,
                nlohmann::json{{"pid", crashed}, {"reason", "a migration that crashed"}}.dump());
  }
  // A budget it will not reach: the test stops it once it has built with clang++ (below).
  ProcessResult optimize;
  std::thread runner([&] {
    optimize = run_process(
        {HEADWAY_BINARY, "optimize", "--kernels", "attn_out", "--budget", "10m", "--workspace", w},
        300);
  });
  // Wait until the optimizer has proposed candidates (it is screening them).
  bool working = false;
  for (int i = 0; i < 1200 && !working; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto ws = store::Workspace::open(w).value();
    working = count(ws, "SELECT count(*) FROM nodes WHERE kind <> 'baseline'") > 0;
  }
  if (!working) {
    runner.join();
    FAIL() << "the optimizer did no work:\n" << optimize.output;
  }

  const auto second = cli::run_headway_merged(
      {"optimize", "--kernels", "attn_out", "--budget", "5s", "--workspace", w});
  EXPECT_EQ(second.exit_code, 2) << second.output;
  EXPECT_NE(second.output.find("headway: another headway optimize (pid "), std::string::npos)
      << second.output;

  const auto migrate = cli::run_headway_merged(
      {"migrate", "--toolchain", "clang++", "--wait", "2m", "--workspace", w});
  // The optimizer resumes and builds into the workspace's build cache (the migration builds
  // elsewhere): once a new object appears there, stop it (its process group: runners too).
  const fs::path cache = fs::path(w) / ".headway" / "builds";
  auto objects = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator(cache)) n += e.path().extension() == ".so";
    return n;
  };
  const int before = objects();
  for (int i = 0; i < 1200 && objects() == before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const auto holder = loop::WorkspaceLock::holder(fs::path(w));
  ASSERT_TRUE(holder);
  EXPECT_NE(migrate.output.find(fmt::format("(pid {})", holder->pid)), std::string::npos);
  // The new toolchain had no chip facts: they are measured while the optimizer is paused.
  EXPECT_NE(migrate.output.find("chip facts: "), std::string::npos) << migrate.output;
  EXPECT_NE(migrate.output.find(" measured for the new toolchain"), std::string::npos)
      << migrate.output;
  kill(static_cast<pid_t>(-holder->pid), SIGKILL);
  runner.join();
  std::printf("%s\n%s\n", migrate.output.c_str(), optimize.output.c_str());
  ASSERT_EQ(migrate.exit_code, 0) << migrate.output;
  EXPECT_EQ(migrate.output.rfind("pausing the running optimize (pid ", 0), 0u) << migrate.output;
  EXPECT_NE(migrate.output.find("re-measured with the new toolchain"), std::string::npos)
      << migrate.output;
  EXPECT_NE(migrate.output.find("  attn_out  baseline "), std::string::npos) << migrate.output;
  EXPECT_NE(migrate.output.find(" rules: "), std::string::npos) << migrate.output;
  EXPECT_EQ(optimize.signal, SIGKILL) << optimize.output;  // it was still running
  EXPECT_NE(optimize.output.find(
                fmt::format("stale pause: cleared the pause request of pid {}", crashed)),
            std::string::npos)
      << optimize.output;
  EXPECT_NE(optimize.output.find("paused: by pid "), std::string::npos) << optimize.output;
  EXPECT_NE(optimize.output.find("resumed: after "), std::string::npos) << optimize.output;
  EXPECT_NE(optimize.output.find("toolchain now clang++"), std::string::npos) << optimize.output;

  auto ws = store::Workspace::open(w).value();
  EXPECT_FALSE(ws.meta(loop::kPauseRequestKey));
  EXPECT_EQ(ws.meta("cpu.toolchain"), "clang++");
  const auto last = nlohmann::json::parse(ws.meta(loop::kLastPauseKey).value());
  const std::string held = last["held_at"], released = last["released_at"];
  ASSERT_LT(held, released);
  // No optimizer step while the migration held the workspace.
  EXPECT_EQ(count(ws,
                  "SELECT count(*) FROM nodes WHERE (created_at > ?1 AND created_at < ?2) "
                  "OR (updated_at > ?1 AND updated_at < ?2)",
                  held, released),
            0);
  EXPECT_EQ(count(ws,
                  "SELECT count(*) FROM tests WHERE (started_at > ?1 AND started_at < ?2) "
                  "OR (finished_at > ?1 AND finished_at < ?2)",
                  held, released),
            0);
  // It went on afterwards, building with clang++: candidates it screened after the pause are in
  // the workspace's build cache under clang++'s toolchain id (nothing built them with clang++
  // before: the migration builds elsewhere). A node settled after the pause was screened after it.
  auto tree = trees::DesignTree::open(ws, "attn_out").value();
  cpu::Toolchain clang;
  clang.cxx = "clang++";
  const auto clang_id = cpu::identify(clang);
  int built_with_clang = 0;
  auto s = ws.db().prepare(
      "SELECT id, updated_at > ?1 AND status <> 'proposed' FROM nodes WHERE kernel = 'attn_out' "
      "AND kind <> 'baseline' AND status NOT IN ('build-failed', 'lint-rejected')");
  s.bind(1, released);
  while (s.step()) {
    const auto built =
        cpu::build_candidate(clang, clang_id, tree.source(s.int64(0)).value(), cache);
    built_with_clang += built.cached;
    if (s.int64(1) != 0) {
      EXPECT_TRUE(built.cached) << "node " << s.int64(0);
    }
  }
  EXPECT_GT(built_with_clang, 0) << optimize.output;
  // The re-measured figures are the clang++ toolchain's; nothing is stored for g++.
  EXPECT_TRUE(knowledge::latest_kernel_timing(ws, "attn_out", clang_id.id, knowledge::kHeadRole));
  EXPECT_TRUE(
      knowledge::latest_kernel_timing(ws, "attn_out", clang_id.id, knowledge::kBaselineRole));
}

TEST(MigrateVerb, TimesOutChangingNothingWhenTheOptimizerDoesNotPause) {
  store::TestTempDir dir;
  const std::string w = dir.path().string();
  auto ws = store::Workspace::create(dir.path()).value();
  // This process holds the lock as an optimizer that never looks for pause requests.
  auto lock = loop::WorkspaceLock::try_acquire(dir.path(), "optimize");
  ASSERT_TRUE(lock);
  const auto r = cli::run_headway_merged(
      {"migrate", "--toolchain", "clang++", "--wait", "1s", "--workspace", w});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(fmt::format("pausing the running optimize (pid {}) ...", getpid())),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(fmt::format(
                "headway: headway optimize (pid {}) did not pause within 1 s; nothing changed",
                getpid())),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(ws.meta("cpu.toolchain"));
  EXPECT_FALSE(ws.meta(loop::kPauseRequestKey));
  EXPECT_FALSE(ws.meta(loop::kLastPauseKey));
  const auto bad = cli::run_headway_merged(
      {"migrate", "--toolchain", "clang++", "--wait", "soon", "--workspace", w});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("--wait 'soon' does not parse"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace headway
