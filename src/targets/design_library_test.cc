#include "targets/design_library.h"

#include <gtest/gtest.h>

#include <set>

#include "targets/registry/registry.h"

namespace headway::targets {
namespace {

// The cpu target, whose design library these tests read.
const Target& cpu() {
  static const std::unique_ptr<Target> target = make_target("cpu");
  return *target;
}

constexpr const char* kDesign =
    "// headway-design: rows\n"
    "// summary: several rows share the x loads\n"
    "// param P_ROWS 1 2 4 default 2\n"
    "// param P_THREADS 1 2 default 2\n"
    "#include \"headway_kernel.h\"\n";

TEST(DesignLibrary, ParsesHeaderAndRenders) {
  std::string error;
  const auto d = parse_design("qkv", kDesign, &error);
  ASSERT_TRUE(d) << error;
  EXPECT_EQ(d->name, "rows");
  EXPECT_EQ(d->summary, "several rows share the x loads");
  ASSERT_EQ(d->params.size(), 2u);
  EXPECT_EQ(d->params[0].values, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(d->defaults(), (Params{{"P_ROWS", 2}, {"P_THREADS", 2}}));
  const std::string src = d->render({{"P_ROWS", 4}, {"P_THREADS", 1}});
  EXPECT_EQ(src.rfind("#define P_ROWS 4\n#define P_THREADS 1\n// headway-design: rows", 0), 0u)
      << src;
  EXPECT_THROW(d->render({{"P_ROWS", 3}, {"P_THREADS", 1}}), std::invalid_argument);
  EXPECT_THROW(d->render({{"P_ROWS", 4}}), std::invalid_argument);
}

TEST(DesignLibrary, NeighboursChangeExactlyOneParameter) {
  std::string error;
  const auto d = parse_design("qkv", kDesign, &error);
  const auto n = d->neighbours(d->defaults());
  // P_ROWS: 1, 4 (2 is the current value); P_THREADS: 1.
  ASSERT_EQ(n.size(), 3u);
  for (const auto& p : n) {
    int changed = 0;
    for (const auto& [k, v] : p) changed += v != d->defaults().at(k);
    EXPECT_EQ(changed, 1);
  }
}

TEST(DesignLibrary, MalformedHeadersNameTheLine) {
  std::string error;
  EXPECT_FALSE(parse_design("qkv", "// summary: x\nint x;\n", &error));
  EXPECT_NE(error.find("headway-design"), std::string::npos);
  EXPECT_FALSE(parse_design("qkv", "// headway-design: a\n// param P_X 1 2 default 3\n", &error));
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
  EXPECT_FALSE(parse_design("qkv", "// headway-design: a\n// param P_X one default 1\n", &error));
  EXPECT_NE(error.find("not an integer"), std::string::npos) << error;
  EXPECT_FALSE(parse_design("qkv", "// headway-design: a\n// param ROWS 1 default 1\n", &error));
}

// Found by fuzz/design_fuzz.cc: a parameter declared twice parsed, and render(defaults()) threw
// because the defaults kept only the second declaration. Input kept in fuzz/regressions/design/.
TEST(DesignLibrary, ParameterDeclaredTwiceIsAnError) {
  std::string error;
  EXPECT_FALSE(parse_design(
      "qkv", "// headway-design: a\n// param P_X 1 2 default 1\n// param P_X 3 4 default 4\n",
      &error));
  EXPECT_NE(error.find("line 3: parameter P_X is declared twice"), std::string::npos) << error;
}

TEST(DesignLibrary, RequiresLineListsExtensions) {
  std::string error;
  const auto d = parse_design(
      "qkv", "// headway-design: a\n// requires: avx512bw avx512vbmi\nint x;\n", &error);
  ASSERT_TRUE(d) << error;
  EXPECT_EQ(d->requires_isa, (std::vector<std::string>{"avx512bw", "avx512vbmi"}));
  const auto none = parse_design("qkv", kDesign, &error);
  ASSERT_TRUE(none) << error;
  EXPECT_TRUE(none->requires_isa.empty());
  EXPECT_FALSE(parse_design("qkv", "// headway-design: a\n// requires:\n", &error));
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
  EXPECT_FALSE(
      parse_design("qkv", "// headway-design: a\n// requires: avx2\n// requires: fma\n", &error));
  EXPECT_NE(error.find("line 3"), std::string::npos) << error;
}

// A formatter that reflows the header joins `requires:` and `param` lines onto the summary's last
// line; parsed as prose they would vanish (the design would lose its parameters and requirements).
TEST(DesignLibrary, AReflowedHeaderIsAnErrorNotASilentLoss) {
  std::string error;
  EXPECT_FALSE(parse_design("qkv",
                            "// headway-design: a\n// summary: two rows\n// at a time requires: "
                            "avx512bw param P_X 1 default 1\n",
                            &error));
  EXPECT_NE(error.find("line 3"), std::string::npos) << error;
  EXPECT_FALSE(
      parse_design("qkv", "// headway-design: a\n// streams rows param P_X 1 default 1\n", &error));
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
  // Prose that merely mentions the words is fine.
  EXPECT_TRUE(
      parse_design("qkv", "// headway-design: a\n// summary: nothing it requires here\n", &error))
      << error;
}

TEST(DesignLibrary, EveryEmbeddedDesignParses) {
  for (const char* k : {"qkv", "attn_out", "ffn"}) {
    for (const auto& d : designs_for(cpu(), k)) {
      EXPECT_EQ(d.kernel, k);
      EXPECT_FALSE(d.summary.empty()) << d.name;
      EXPECT_NO_THROW(d.render(d.defaults())) << d.name;
    }
  }
}

}  // namespace
}  // namespace headway::targets
