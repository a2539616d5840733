// `headway export` as a user runs it: the heads of a real run written as files or as a patch
// series a fresh clone takes with `git am`, and its bad inputs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_support.h"
#include "common/file_io.h"
#include "common/git.h"
#include "common/subprocess.h"
#include "report/report_test_support.h"
#include "store/test_temp_dir.h"
#include "trees/design_tree.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;

nlohmann::json status_kernel(const std::string& ws, const std::string& name) {
  const CliRun status = run_headway({"status", "--workspace", ws, "--json"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  const auto figures = nlohmann::json::parse(status.out);
  for (const auto& k : figures["kernels"])
    if (k["name"] == name) return k;
  ADD_FAILURE() << "no kernel " << name;
  return {};
}

TEST(ExportVerb, EachHeadAsAFileOpeningWithItsEvidenceThatChecksFromItsNewPlace) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  report::make_sim_run(ws, {"attn_out", "qkv"});
  const std::string to = (tmp.path() / "heads").string();
  const CliRun exported = run_headway({"export", "--workspace", ws, "--to", to, "--json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto j = nlohmann::json::parse(exported.out);
  EXPECT_EQ(j["format"], "files") << "a sim workspace has no repository of the user's";
  ASSERT_EQ(j["written"].size(), 2u) << j.dump(2);
  const fs::path file = fs::path(to) / "attn_out.sim";
  ASSERT_TRUE(fs::exists(file));
  const std::string text = file_text(file);
  const auto k = status_kernel(ws, "attn_out");
  EXPECT_EQ(text.rfind("// attn_out: headway head " + k["head_design"].get<std::string>(), 0), 0u)
      << text;
  EXPECT_NE(text.find(fmt::format("{:.2f}x the baseline", k["speedup"].get<double>())),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find(fmt::format("made head by acceptance test #{}", k["head_test"]["id"].get<int>())),
      std::string::npos)
      << text;
  const CliRun check =
      run_headway({"check", "--target", "sim", "--kernel", "attn_out", "--source", file.string()});
  EXPECT_EQ(check.exit_code, 0) << check.err << check.out;

  // Again into the same folder: refused before anything is written, the files as they were.
  write_file(fs::path(to) / "qkv.sim", "mine\n");
  fs::remove(file);
  const CliRun again = run_headway({"export", "--workspace", ws, "--to", to});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("qkv.sim exists"), std::string::npos) << again.err;
  EXPECT_FALSE(fs::exists(file)) << "nothing half written";
  EXPECT_EQ(file_text(fs::path(to) / "qkv.sim"), "mine\n");
}

// A user's spec kernel on the cpu target, its head a design of the spec's own library (made head
// here through the tree, as the loop does after a FASTER): exported as a file, it builds and
// passes `headway check` from its new place.
TEST(ExportVerb, ASpecKernelsHeadChecksFromWhereItWasExported) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws, "--target", "cpu"}).exit_code, 0);
  const fs::path spec_dir = fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs/gemv_f8";
  ASSERT_EQ(run_headway({"kernel", "add", (spec_dir / "gemv_f8.toml").string(), "--workspace", ws},
                        "", 300)
                .exit_code,
            0);
  {
    auto opened = store::Workspace::open(ws).value();
    auto tree = trees::DesignTree::create(opened, {"gemv_f8", "cpu", 0.01, 0.1, ""},
                                          file_text(spec_dir / "gemv_f8_cpu.cc"),
                                          nlohmann::json::object(), 0.1)
                    .value();
    trees::NewNode design;
    design.design = "lut_rows";
    design.source = file_text(spec_dir / "designs/lut_rows.cc");
    design.proposer = "test";
    const auto added = tree.add(design).value();
    ASSERT_TRUE(tree.set_head(added.node.id, 0.05, std::nullopt, "test").ok());
  }
  const fs::path to = tmp.path() / "mine";
  const CliRun exported =
      run_headway({"export", "gemv_f8", "--workspace", ws, "--to", to.string(), "--json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const fs::path file = to / "gemv_f8.cc";
  ASSERT_TRUE(fs::exists(file)) << exported.out;
  EXPECT_EQ(file_text(file).rfind("// gemv_f8: headway head lut_rows", 0), 0u);
  const CliRun check = run_headway(
      {"check", "--kernel", "gemv_f8", "--workspace", ws, "--source", file.string(), "--seed", "4"},
      tmp.path().string(), 300);
  EXPECT_EQ(check.exit_code, 0) << check.err << check.out;
  EXPECT_NE(check.out.find("correct"), std::string::npos) << check.out;
}

TEST(ExportVerb, BadInputsSayWhatIsWrongAndWriteNothing) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  report::make_sim_run(ws, {"attn_out"});
  const std::string to = (tmp.path() / "out").string();
  const struct {
    std::vector<std::string> args;
    int exit;
    std::string says;
  } cases[] = {
      {{"nope"}, 2, "the workspace has no kernel 'nope' (it has: attn_out)"},
      {{"--format", "zip"}, 2, "--format 'zip': patch or files"},
      {{"--format", "patch"}, 2, "recorded none"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"export", "--workspace", ws, "--to", to};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const CliRun r = run_headway(args);
    EXPECT_EQ(r.exit_code, c.exit) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  EXPECT_TRUE(!fs::exists(to) || fs::is_empty(to));
  // A folder that cannot be made (under a file, which stops root too): an environment error.
  write_file(tmp.path() / "a-file", "x\n");
  const CliRun unwritable = run_headway(
      {"export", "--workspace", ws, "--to", (tmp.path() / "a-file" / "heads").string()});
  EXPECT_EQ(unwritable.exit_code, 3) << unwritable.err;
  EXPECT_NE(unwritable.err.find("cannot make the folder"), std::string::npos) << unwritable.err;
}

TEST(ExportVerb, AHeadTheToolchainNoLongerPassesIsNamedAndNothingIsExported) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  report::make_sim_run(ws, {"attn_out", "qkv"});
  {
    // qkv's head now computes wrong results, as a head a newer toolchain breaks does.
    auto opened = store::Workspace::open(ws).value();
    auto tree = trees::DesignTree::open(opened, "qkv").value();
    trees::NewNode broken;
    broken.design = "broken";
    broken.source = "sim-x 0.5\nsim-wrong\n";
    broken.proposer = "test";
    const auto added = tree.add(broken).value();
    ASSERT_TRUE(tree.set_head(added.node.id, 0.05, std::nullopt, "test").ok());
  }
  const fs::path to = tmp.path() / "heads";
  const CliRun r = run_headway({"export", "--workspace", ws, "--to", to.string(), "--check"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("qkv's head fails its check under"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing exported"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(to)) << "not even attn_out's head, which passes";
  // Without --check the user takes the head as it is.
  EXPECT_EQ(run_headway({"export", "--workspace", ws, "--to", to.string()}).exit_code, 0);
}

TEST(ExportVerb, AKernelWhoseHeadIsItsBaselineHasNothingToExport) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  report::make_sim_run(ws, {"qkv"});
  {
    // Every head taken back, as a head found cheating is: the baseline is the head again.
    auto opened = store::Workspace::open(ws).value();
    auto tree = trees::DesignTree::open(opened, "qkv").value();
    while (tree.head().node_id != tree.root().id) ASSERT_TRUE(tree.revoke_head("test").ok());
  }
  const fs::path to = tmp.path() / "o";
  const CliRun r = run_headway({"export", "--workspace", ws, "--to", to.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("qkv: its head is its baseline: nothing to export"), std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(to)) << "no folder made for nothing";
}

// The stand-in pack's repository made a git repository, optimized on the command target, its
// heads exported as a patch series that a fresh clone takes with `git am`, after which the pack's
// own build and check pass.
TEST(ExportVerb, APatchSeriesAFreshCloneAppliesAndThePacksCommandsPass) {
  store::TestTempDir tmp;
  const fs::path pack = tmp.path() / "pack";
  fs::copy(fs::path(HEADWAY_SOURCE_DIR) / "packs/standin", pack, fs::copy_options::recursive);
  const fs::path repo = pack / "repo";
  for (const auto& args :
       {std::vector<std::string>{"init", "--quiet"}, std::vector<std::string>{"add", "-A"},
        std::vector<std::string>{"commit", "--quiet", "-m", "base"}})
    ASSERT_TRUE(run_git(repo, args).ok());
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway(
                {"init", ws, "--target", "command", "--manifest", (pack / "target.toml").string()})
                .exit_code,
            0);
  const CliRun optimized = run_headway(
      {"optimize", "--workspace", ws, "--kernels", "attn_out", "--budget", "15s"}, "", 300.0);
  ASSERT_EQ(optimized.exit_code, 0) << optimized.err;

  // A dirty repository is refused.
  write_file(repo / "README.md", "changed\n");
  const CliRun dirty =
      run_headway({"export", "--workspace", ws, "--to", (tmp.path() / "dirty").string()});
  EXPECT_EQ(dirty.exit_code, 2);
  EXPECT_NE(dirty.err.find("has uncommitted changes"), std::string::npos) << dirty.err;
  ASSERT_TRUE(run_git(repo, {"checkout", "--quiet", "README.md"}).ok());

  const fs::path patches = tmp.path() / "patches";
  const CliRun exported =
      run_headway({"export", "--workspace", ws, "--to", patches.string(), "--check", "--json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto j = nlohmann::json::parse(exported.out);
  EXPECT_EQ(j["format"], "patch");
  ASSERT_EQ(j["written"].size(), 1u) << j.dump(2);
  EXPECT_TRUE(j["not_applying"].empty());

  ASSERT_TRUE(run_git(tmp.path(), {"clone", "--quiet", repo.string(), "fresh"}).ok());
  const fs::path fresh = tmp.path() / "fresh";
  const auto applied = run_git(fresh, {"am", "--quiet", j["written"][0].get<std::string>()});
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  const auto k = status_kernel(ws, "attn_out");
  const std::string message = run_git(fresh, {"log", "-1", "--format=%B"}).value();
  EXPECT_NE(message.find(fmt::format("{:.2f}x the baseline", k["speedup"].get<double>())),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(fmt::format("{:.2f}x of the floor", k["ratio_to_floor"].get<double>())),
            std::string::npos)
      << message;
  EXPECT_NE(file_text(fresh / "kernels/attn_out.tk"), file_text(repo / "kernels/attn_out.tk"))
      << "the head's file replaced the baseline's";
  // The report for a pull request names the exported commit and carries its evidence.
  const CliRun md = run_headway({"report", "--workspace", ws, "--format", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  ASSERT_EQ(j["commits"].size(), 1u);
  EXPECT_NE(md.out.find("### Exported heads"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find(j["commits"][0].get<std::string>().substr(0, 12)), std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find(message.substr(0, message.find('\n'))), std::string::npos)
      << "the commit's subject";
  for (const char* command : {"build", "test"}) {
    std::vector<std::string> argv = {"python3", (pack / "bin/standin").string(), command};
    if (std::string(command) == "test") argv.push_back("--release");
    const ProcessResult r = run_process(argv, 120.0, fresh.string());
    EXPECT_TRUE(r.ok()) << command << ": " << r.output;
  }

  // The repository moves on and changes the kernel's file: the series says which does not apply.
  write_file(repo / "kernels/attn_out.tk", "kernel attn_out\ntile 8\n");
  ASSERT_TRUE(run_git(repo, {"commit", "--quiet", "-am", "moved on"}).ok());
  const CliRun moved =
      run_headway({"export", "--workspace", ws, "--to", (tmp.path() / "moved").string(), "--json"});
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_EQ(nlohmann::json::parse(moved.out)["not_applying"],
            nlohmann::json::array({"kernels/attn_out.tk"}))
      << moved.out;
}

}  // namespace
}  // namespace headway::cli
