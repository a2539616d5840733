// `headway report` as a user runs it, on a workspace with a real (sim target) run in it; and the
// HTML report opened in a real browser (headless Chromium).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli/cli_test_support.h"
#include "report/report_test_support.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;

bool has(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

std::string lines_of(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

class ReportVerb : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new store::TestTempDir();
    report::make_sim_run(dir_->path() / "ws", {"qkv"});
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string ws() { return (dir_->path() / "ws").string(); }
  static fs::path scratch() { return dir_->path(); }
  static store::TestTempDir* dir_;
};
store::TestTempDir* ReportVerb::dir_ = nullptr;

TEST_F(ReportVerb, WritesTheHtmlAndT4ResultsAndPrintsTheirPaths) {
  const fs::path out = scratch() / "html-out";
  const CliRun run = run_headway({"report", "--workspace", ws(), "--out", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err << run.problem;
  EXPECT_EQ(run.out,
            lines_of({(out / "report.html").string(), (out / "t4-results.json").string()}));
  const std::string html = file_text(out / "report.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<figure class=\"tree\" data-tree=\"qkv\"><svg"), std::string::npos);
  EXPECT_NE(html.find("data-plot=\"bars:qkv\"><svg"), std::string::npos);
  EXPECT_NE(html.find("data-plot=\"head:qkv\"><svg"), std::string::npos);
  EXPECT_NE(html.find("data-plot=\"wealth:qkv:1\"><svg"), std::string::npos);
  EXPECT_EQ(html.find("<!DOCTYPE svg"), std::string::npos) << "SVGs are inlined without prologue";
  const auto t4 = nlohmann::json::parse(file_text(out / "t4-results.json"));
  EXPECT_EQ(t4["schema_version"], "1.0.0");
  EXPECT_FALSE(t4["results"].empty());

  // The default directory is the workspace's report/; --json names the files.
  const CliRun j = run_headway({"report", "--workspace", ws(), "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto summary = nlohmann::json::parse(j.out);
  EXPECT_EQ(summary["format"], "html");
  EXPECT_EQ(summary["files"][0], (fs::path(ws()) / "report" / "report.html").string());
  EXPECT_EQ(summary["kernels"], 1);
  EXPECT_GT(summary["tests"].get<int>(), 0);
}

TEST_F(ReportVerb, MarkdownJsonAndT4OnStdout) {
  const CliRun md = run_headway({"report", "--workspace", ws(), "--format", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("## headway report\n", 0), 0u) << md.out;
  EXPECT_NE(md.out.find("| qkv | "), std::string::npos) << md.out;

  const CliRun js = run_headway({"report", "--workspace", ws(), "--format", "json"});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const auto j = nlohmann::json::parse(js.out);
  EXPECT_EQ(j["schema"], "headway-report/1");
  ASSERT_EQ(j["kernels"].size(), 1u);
  const auto& k = j["kernels"][0];
  EXPECT_EQ(k["name"], "qkv");
  int with_wealth = 0;
  for (const auto& t : k["tests"]) with_wealth += !t["wealth"].empty();
  EXPECT_EQ(with_wealth, static_cast<int>(k["tests"].size())) << "every sim test is replayed";

  const CliRun t4 = run_headway({"report", "--workspace", ws(), "--format", "t4"});
  ASSERT_EQ(t4.exit_code, 0) << t4.err;
  const auto results = nlohmann::json::parse(t4.out)["results"];
  int screened = 0;
  for (const auto& n : k["nodes"]) screened += n["status"] != "proposed";
  EXPECT_EQ(results.size(), static_cast<size_t>(screened));

  const fs::path out = scratch() / "md-out";
  const CliRun file =
      run_headway({"report", "--workspace", ws(), "--format", "md", "--out", out.string()});
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_EQ(file.out, (out / "report.md").string() + "\n");
  const std::string written = file_text(out / "report.md");
  EXPECT_EQ(written.rfind("## headway report\n", 0), 0u) << written;
  EXPECT_NE(written.find("| qkv | "), std::string::npos) << written;
}

TEST_F(ReportVerb, BadInputAndMissingToolsAreOneLine) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"report", "--workspace", ws(), "--format", "pdf"},
           {"report", "--workspace", ws(), "--format", "md", "--json"},
           {"report", "--workspace", ws(), "--calibration", (scratch() / "none.json").string()},
           {"report", "--workspace", (scratch() / "nowhere").string()}}) {
    const CliRun r = run_headway(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(r.err.rfind("headway: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
  // A PATH with diff and dot but no gnuplot: exit 3 naming the package.
  const fs::path bin = scratch() / "bin";
  fs::create_directories(bin);
  for (const char* tool : {"diff", "dot"}) {
    const std::string found = std::string("/usr/bin/") + tool;
    if (fs::exists(found) && !fs::exists(bin / tool)) fs::create_symlink(found, bin / tool);
  }
  const CliRun r = run_split("env", {"PATH=" + bin.string(), HEADWAY_BINARY, "report",
                                     "--workspace", ws(), "--out", (scratch() / "x").string()});
  EXPECT_EQ(r.exit_code, 3) << r.err << r.problem;
  EXPECT_EQ(r.err, "headway: gnuplot not found: install the Debian package gnuplot-nox\n");
}

TEST_F(ReportVerb, ShowsACalibrationGivenAsAFile) {
  const CliRun cal =
      run_headway({"calibrate", "--target", "sim", "--decisions", "20", "--json"}, "", 300.0);
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  const fs::path file = scratch() / "aa.json";
  std::ofstream(file) << cal.out;
  const CliRun md = run_headway(
      {"report", "--workspace", ws(), "--format", "md", "--calibration", file.string()});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("**Calibration:** A/A calibration (" + file.string() +
                        "): target sim, rule betting, alpha 0.05, 20 decisions: FASTER "),
            std::string::npos)
      << md.out;
  std::ofstream(scratch() / "not-calibration.json") << "{\"a\": 1}";
  const CliRun bad = run_headway({"report", "--workspace", ws(), "--format", "md", "--calibration",
                                  (scratch() / "not-calibration.json").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("is not the output of `headway calibrate --json`"), std::string::npos);
}

// The report in a real browser: the page script runs with no error, every plot has a drawn SVG
// and the Design Tree is there. The screenshot stays in the build directory as an artifact.
TEST_F(ReportVerb, RendersInHeadlessChromiumWithoutScriptErrors) {
  if (!has("chromium")) GTEST_SKIP() << "chromium is not installed (Debian package chromium)";
  const fs::path out = scratch() / "browser";
  const CliRun made = run_headway({"report", "--workspace", ws(), "--out", out.string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto j =
      nlohmann::json::parse(run_headway({"report", "--workspace", ws(), "--format", "json"}).out);
  int plots = 0;
  for (const auto& k : j["kernels"]) {
    plots += 2;  // bars and the head's time
    for (const auto& t : k["tests"]) plots += !t["wealth"].empty();
  }
  const std::string url = "file://" + (out / "report.html").string();
  const std::vector<std::string> common = {
      "--headless",           "--no-sandbox",
      "--disable-gpu",        "--no-first-run",
      "--disable-extensions", "--user-data-dir=" + (scratch() / "chromium-profile").string()};
  std::vector<std::string> dump = common;
  dump.insert(dump.end(), {"--dump-dom", url});
  const CliRun dom = run_split("chromium", dump, "", 120.0);
  ASSERT_EQ(dom.exit_code, 0) << dom.err << dom.problem;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(dom.out, m, std::regex(R"(<span id="script-status"([^>]*)>([^<]*)<)")))
      << dom.out.substr(0, 2000);
  const std::string attrs = m[1];
  EXPECT_NE(attrs.find("data-errors=\"0\""), std::string::npos)
      << m[2] << "\n"
      << dom.out.substr(dom.out.find("id=\"script-errors\""), 2000);
  EXPECT_NE(attrs.find(fmt::format("data-plots=\"{}\"", plots)), std::string::npos) << attrs;
  EXPECT_NE(attrs.find(fmt::format("data-drawn=\"{}\"", plots)), std::string::npos) << attrs;
  EXPECT_NE(attrs.find(fmt::format("data-trees=\"{}\"", j["kernels"].size())), std::string::npos)
      << attrs;
  EXPECT_NE(dom.out.find("<pre id=\"script-errors\"></pre>"), std::string::npos);

  const fs::path artifacts = fs::path(HEADWAY_BUILD_DIR) / "test-artifacts";
  fs::create_directories(artifacts);
  const fs::path png = artifacts / "report-screenshot.png";
  fs::remove(png);
  std::vector<std::string> shot = common;
  shot.insert(shot.end(), {"--hide-scrollbars", "--window-size=1280,1600",
                           "--screenshot=" + png.string(), url});
  const CliRun snap = run_split("chromium", shot, "", 120.0);
  ASSERT_EQ(snap.exit_code, 0) << snap.err << snap.problem;
  ASSERT_TRUE(fs::exists(png)) << snap.err;
  EXPECT_EQ(file_text(png).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(fs::file_size(png), 20000u) << "a blank page compresses to a few kB";
}

}  // namespace
}  // namespace headway::cli
