// `headway ablate` as a user runs it: a small study on the sim target, resumed, summarized.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_test_support.h"
#include "common/file_io.h"

namespace headway::cli {
namespace {

TEST(AblateVerb, RunsASmallStudyOnSimResumesItAndRefusesAnotherSpec) {
  store::TestTempDir tmp;
  const std::string study = (tmp.path() / "study").string();
  const CliRun first = run_headway(
      {"ablate", "--study", study, "--target", "sim", "--kernels", "qkv", "--budget", "60s",
       "--runs", "2", "--arms", "full,rule-lowest-mean", "--jobs", "2", "--json"},
      "", 600);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto j = nlohmann::json::parse(first.out);
  EXPECT_EQ(j["ran"], 4);
  EXPECT_EQ(j["pending"], 0);
  ASSERT_EQ(j["arms"].size(), 2u);
  EXPECT_EQ(j["arms"][1]["arm"], "rule-lowest-mean");
  for (const auto& arm : j["arms"]) {
    EXPECT_EQ(arm["runs_done"], 2);
    const auto& ratio = arm["figures"]["ratio_to_floor"];
    EXPECT_EQ(ratio["runs"], 2);
    EXPECT_GT(ratio["median"].get<double>(), 1.0) << "no head beats its floor";
  }
  EXPECT_TRUE(j["arms"][1]["figures"]["tests"].contains("difference_from_full"));
  EXPECT_NE(first.err.find("ablate: full run 1: done"), std::string::npos) << first.err;

  for (const auto& arm : j["arms"]) {
    EXPECT_EQ(arm["figures"]["false_accepts"]["runs"], 2) << "the sim's truth judges every run";
    EXPECT_GT(arm["figures"]["device_seconds"]["median"].get<double>(), 0.0);
  }

  // Again: nothing to run; the summary in Markdown, and the page with its two plots.
  const std::string page = (tmp.path() / "study.html").string();
  const CliRun again = run_headway({"ablate", "--study", study, "--format", "md", "--html", page});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.find("started"), std::string::npos) << again.err;
  EXPECT_NE(again.out.find("| rule-lowest-mean | 2 |"), std::string::npos) << again.out;
  const std::string html = read_file(page).value_or("");
  EXPECT_NE(html.find("ratio to the floor against device time"), std::string::npos);
  EXPECT_NE(html.find("judged wrong against the truth"), std::string::npos);

  const CliRun more = run_headway({"ablate", "--study", study, "--runs", "3"});
  EXPECT_EQ(more.exit_code, 2);
  EXPECT_NE(more.err.find("has runs 2, not 3"), std::string::npos) << more.err;
  EXPECT_EQ(run_headway({"ablate", "--study", study, "--runs", "2", "--report-only"}).exit_code, 0)
      << "an option that agrees with the study is fine";

  const CliRun unwritable = run_headway({"ablate", "--study", study, "--report-only", "--html",
                                         (tmp.path() / "no-such-folder" / "study.html").string()});
  EXPECT_EQ(unwritable.exit_code, 3) << "a page it cannot write is the environment's problem";
  EXPECT_NE(unwritable.err.find("study.html"), std::string::npos) << unwritable.err;
}

TEST(AblateVerb, BadInputIsAUsageErrorThatCreatesNothing) {
  store::TestTempDir tmp;
  const auto study = tmp.path() / "study";
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--arms", "full,without-everything"},
        std::vector<std::string>{"--runs", "0"}, std::vector<std::string>{"--budget", "later"},
        std::vector<std::string>{"--format", "pdf"}, std::vector<std::string>{"--report-only"}}) {
    std::vector<std::string> args{"ablate", "--study", study.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliRun r = run_headway(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << r.err;
    EXPECT_EQ(r.err.rfind("headway: ", 0), 0u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(study)) << extra[0];
  }
}

// SIGTERM stops the study and the optimize it runs (on the cpu target, still measuring its chip
// facts when the signal comes); nothing of the study runs on after it, and it resumes later.
TEST(AblateVerb, ASignalStopsTheStudyAndItsRunsInFlight) {
  store::TestTempDir tmp;
  const std::string study = (tmp.path() / "study").string();
  PipedHeadway ablate({"ablate", "--study", study, "--target", "cpu", "--kernels", "attn_out",
                       "--budget", "60s", "--runs", "2"},
                      "", true);
  ASSERT_TRUE(ablate.started());
  ASSERT_TRUE(ablate.read_until(
      [](const std::string& out) { return out.find("full run 0: started") != std::string::npos; },
      60))
      << ablate.out();
  std::this_thread::sleep_for(std::chrono::seconds(1));  // the optimize is under way
  ablate.signal(SIGTERM);
  EXPECT_EQ(ablate.wait(30), 128 + SIGTERM) << ablate.out();
  EXPECT_NE(ablate.out().find("stopped by a signal, and the runs in flight with it: 1"),
            std::string::npos)
      << ablate.out();
  EXPECT_NE(ablate.out().find("the runs left: 2"), std::string::npos) << ablate.out();
  // No process of the study is left.
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string cmdline = file_text(entry.path() / "cmdline");
    EXPECT_EQ(cmdline.find(study), std::string::npos) << entry.path() << ": " << cmdline;
  }
  const CliRun report = run_headway({"ablate", "--study", study, "--report-only", "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(nlohmann::json::parse(report.out)["pending"], 2);
}

}  // namespace
}  // namespace headway::cli
