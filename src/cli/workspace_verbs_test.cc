// `headway init` and `headway tree` as a user runs them: a real binary, a real workspace.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_test_support.h"
#include "common/subprocess.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"
#include "trees/design_tree.h"

namespace headway {
namespace {

namespace fs = std::filesystem;

TEST(WorkspaceVerbs, InitCreatesOnceAndPrintsThePath) {
  store::TestTempDir dir;
  const auto first = cli::run_headway_merged({"init", (dir.path() / "w").string()});
  EXPECT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(first.output, fs::weakly_canonical(dir.path() / "w").string() + "\n");
  EXPECT_TRUE(fs::exists(dir.path() / "w/.headway/headway.db"));
  const auto again = cli::run_headway_merged({"init", (dir.path() / "w").string()});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.output.find("headway: a headway workspace already exists"), std::string::npos)
      << again.output;
}

TEST(WorkspaceVerbs, TreePrintsTextAndDotAndRefusesBadInput) {
  store::TestTempDir dir;
  {
    auto ws = store::Workspace::create(dir.path()).value();
    auto tree = trees::DesignTree::create(ws, {"qkv", "cpu", {}, {}, ""}, "// base\n").value();
    trees::NewNode n;
    n.design = "tiled";
    n.source = "// tiled\n";
    ASSERT_TRUE(tree.add(n).ok());
  }
  fs::create_directories(dir.path() / "sub");
  const auto text = cli::run_headway_merged({"tree", "qkv"}, (dir.path() / "sub").string());
  EXPECT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("<== HEAD"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("└─ #2 design tiled [proposed]"), std::string::npos) << text.output;
  const auto dot = cli::run_headway_merged(
      {"tree", "qkv", "--format", "dot", "--workspace", dir.path().string()});
  EXPECT_EQ(dot.exit_code, 0) << dot.output;
  EXPECT_EQ(dot.output.rfind("digraph \"qkv\" {", 0), 0u) << dot.output;

  for (const auto& args : std::vector<std::vector<std::string>>{
           {"tree", "ffn", "--workspace", dir.path().string()},
           {"tree", "qkv", "--format", "svg", "--workspace", dir.path().string()},
           {"tree", "qkv", "--workspace", (dir.path() / "sub").string()}}) {
    const auto r = cli::run_headway_merged(args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(r.output.rfind("headway: ", 0), 0u) << r.output;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
  }
}

}  // namespace
}  // namespace headway
