// The layer check on the real tree, and on small trees that break each rule once.
#include "common/include_layers.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "store/test_temp_dir.h"

namespace headway {
namespace {

using Lines = std::vector<std::string>;

// A tree under a temporary directory: src/LAYERS and the files written into it.
class Tree {
 public:
  explicit Tree(const std::string& layers) { write("src/LAYERS", layers); }
  void write(const std::string& path, const std::string& text) {
    const auto file = dir_.path() / path;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }
  Lines violations() const { return find_layer_violations(dir_.path()); }

 private:
  store::TestTempDir dir_;
};

std::string joined(const Lines& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(IncludeLayers, TheSourceTreeHoldsItsLayers) {
  const Lines found = find_layer_violations(HEADWAY_SOURCE_DIR);
  EXPECT_TRUE(found.empty()) << joined(found);
}

TEST(IncludeLayers, DownwardAndOwnPartIncludesPass) {
  Tree t("# a comment\ncommon\nstore kernels\nloop\n");
  t.write("src/common/a.h", "#pragma once\n");
  t.write("src/store/s.h", "#include \"common/a.h\"\n");
  t.write("src/loop/l.h", "#include <vector>\n#include \"store/s.h\"\n#include \"kernels/k.h\"\n");
  t.write("src/loop/l.cc", "#include \"loop/l.h\"\n#include \"headway/public.h\"\n");
  t.write("src/kernels/k.h", "#pragma once\n");
  t.write("include/headway/public.h", "#include \"headway_kernel.h\"\n");
  EXPECT_EQ(t.violations(), Lines{});
}

TEST(IncludeLayers, AnUpwardIncludeFails) {
  Tree t("common\nstore\nloop\n");
  t.write("src/loop/l.h", "#pragma once\n");
  t.write("src/common/a.h", "#pragma once\n\n#include \"loop/l.h\"\n");
  EXPECT_EQ(t.violations(), Lines{"src/common/a.h:3: part common includes part loop (upward)"});
}

TEST(IncludeLayers, ACycleBetweenPartsFails) {
  Tree t("common\nstore\nloop\n");
  t.write("src/store/s.h", "#include \"loop/l.h\"\n");
  t.write("src/loop/l.h", "#include \"store/s.h\"\n");
  EXPECT_EQ(t.violations(), (Lines{"include cycle: src/loop/l.h -> src/store/s.h -> src/loop/l.h",
                                   "src/store/s.h:1: part store includes part loop (upward)"}));
}

TEST(IncludeLayers, ACycleInsideAPartFails) {
  Tree t("common\n");
  t.write("src/common/a.h", "#include \"common/b.h\"\n");
  t.write("src/common/b.h", "#include \"c.h\"\n");  // resolved in its own folder
  t.write("src/common/c.h", "#include \"common/a.h\"\n");
  EXPECT_EQ(t.violations(),
            Lines{"include cycle: src/common/a.h -> src/common/b.h -> src/common/c.h -> "
                  "src/common/a.h"});
}

TEST(IncludeLayers, ViolationsAreInFileAndLineOrder) {
  Tree t("common\nloop\n");
  t.write("src/loop/l.h", "#pragma once\n");
  std::string text;
  for (int i = 0; i < 10; ++i) text += "#include \"loop/l.h\"\n";
  t.write("src/common/a.h", text);
  const Lines found = t.violations();
  ASSERT_EQ(found.size(), 10u);
  EXPECT_EQ(found[1], "src/common/a.h:2: part common includes part loop (upward)");
  EXPECT_EQ(found[9], "src/common/a.h:10: part common includes part loop (upward)");
}

TEST(IncludeLayers, PeersIncludeNoneOfEachOther) {
  Tree t("common\nstore kernels\n");
  t.write("src/kernels/k.h", "#pragma once\n");
  t.write("src/store/s.cc", "#include \"kernels/k.h\"\n");
  EXPECT_EQ(t.violations(), Lines{"src/store/s.cc:1: part store includes part kernels (a peer)"});
}

TEST(IncludeLayers, APartBelongsToTheLongestDeclaredFolder) {
  Tree t("targets\ntargets/cpu targets/cuda\n");
  t.write("src/targets/target.h", "#pragma once\n");
  t.write("src/targets/cpu/runner/protocol.h", "#include \"targets/target.h\"\n");
  t.write("src/targets/cuda/nvcc.cc", "#include \"targets/cpu/runner/protocol.h\"\n");
  t.write("src/targets/side.h", "#include \"targets/cpu/runner/protocol.h\"\n");
  EXPECT_EQ(
      t.violations(),
      (Lines{"src/targets/cuda/nvcc.cc:1: part targets/cuda includes part targets/cpu (a peer)",
             "src/targets/side.h:1: part targets includes part targets/cpu (upward)"}));
}

TEST(IncludeLayers, AngledIncludesAndEveryCxxFileAreChecked) {
  Tree t("common\nloop\n");
  t.write("src/loop/l.h", "#pragma once\n");
  t.write("src/common/a.h", "#include <vector>\n#include <loop/l.h>\n");
  t.write("src/common/b.cpp", "#include \"loop/l.h\"\n");
  t.write("src/common/c.inc", "#  include \"loop/l.h\"\n");
  t.write("src/common/l.h", "#pragma once\n");
  t.write("src/common/d.cc", "#include <l.h>\n");  // <...> is not looked up beside the file
  t.write("src/common/notes.txt", "#include \"loop/l.h\"\n");
  EXPECT_EQ(t.violations(), (Lines{"src/common/a.h:2: part common includes part loop (upward)",
                                   "src/common/b.cpp:1: part common includes part loop (upward)",
                                   "src/common/c.inc:1: part common includes part loop (upward)"}));
}

TEST(IncludeLayers, APartReachedThroughAGateIsIncludedOnlyByTheGate) {
  Tree t(
      "common\ntargets\ntargets/cpu targets/sim : through targets/registry\n"
      "targets/registry\ncli\n");
  t.write("src/targets/target.h", "#pragma once\n");
  t.write("src/targets/cpu/cpu.h", "#include \"targets/target.h\"\n");
  t.write("src/targets/cpu/cpu.cc", "#include \"targets/cpu/cpu.h\"\n");
  t.write("src/targets/registry/registry.cc", "#include \"targets/cpu/cpu.h\"\n");
  t.write("src/cli/verb.cc", "#include \"targets/target.h\"\n#include \"targets/cpu/cpu.h\"\n");
  t.write("src/cli/verb_test.cc", "#include \"targets/cpu/cpu.h\"\n");
  EXPECT_EQ(t.violations(),
            Lines{"src/cli/verb.cc:2: part cli includes part targets/cpu (reached only through "
                  "targets/registry)"});
}

TEST(IncludeLayers, AGateMustBeAPartAbove) {
  EXPECT_THROW(Tree("common\nloop : through common\n").violations(), std::runtime_error);
  EXPECT_THROW(Tree("common\nloop : through nowhere\n").violations(), std::runtime_error);
  EXPECT_THROW(Tree("common : by loop\nloop\n").violations(), std::runtime_error);
}

TEST(IncludeLayers, TestsMayIncludeAnyPartButNoProductionFileIncludesATest) {
  Tree t("common\nstore\nloop\n");
  t.write("src/loop/l.h", "#pragma once\n");
  t.write("src/store/test_temp_dir.h", "#pragma once\n");
  t.write("src/store/tree_test_support.h", "#include \"loop/l.h\"\n");
  t.write("src/common/a_test.cc", "#include \"loop/l.h\"\n#include \"store/test_temp_dir.h\"\n");
  t.write("src/loop/l.cc", "#include \"store/test_temp_dir.h\"\n");
  EXPECT_EQ(t.violations(),
            Lines{"src/loop/l.cc:1: production file includes test file src/store/test_temp_dir.h"});
}

TEST(IncludeLayers, EveryPartIsDeclaredAndThePublicHeadersStandAlone) {
  Tree t("common\n");
  t.write("src/common/a.h", "#pragma once\n");
  t.write("src/devices/pool.h", "#include \"common/a.h\"\n");
  t.write("src/devices/pool.cc", "#include \"devices/pool.h\"\n");
  t.write("include/headway/abi.h", "#include \"common/a.h\"\n");
  EXPECT_EQ(t.violations(),
            (Lines{"include/headway/abi.h:1: the public headers include src/common/a.h",
                   "src/devices/pool.cc: part devices is not in src/LAYERS"}));
}

TEST(IncludeLayers, ALayersFileThatNamesAPartTwiceIsAnError) {
  Tree t("common\nstore common\n");
  EXPECT_THROW(t.violations(), std::runtime_error);
  store::TestTempDir empty;
  EXPECT_THROW(find_layer_violations(empty.path()), std::runtime_error);
}

}  // namespace
}  // namespace headway
