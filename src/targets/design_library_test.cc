#include "targets/design_library.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "targets/registry/test_targets.h"

namespace headway::targets {
namespace {

// The message of parse_design's error for `text`, or "" when it parses.
std::string parse_error(std::string_view kernel, std::string_view text) {
  const auto d = parse_design(kernel, text);
  return d ? std::string() : d.error().message;
}

constexpr const char* kDesign =
    "// headway-design: rows\n"
    "// summary: several rows share the x loads\n"
    "// param P_ROWS 1 2 4 default 2\n"
    "// param P_THREADS 1 2 default 2\n"
    "#include \"headway_kernel.h\"\n";

TEST(DesignLibrary, ParsesHeaderAndRenders) {
  const auto d = parse_design("qkv", kDesign);
  ASSERT_TRUE(d) << d.error().message;
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
  const auto d = parse_design("qkv", kDesign);
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
  std::string error = parse_error("qkv", "// summary: x\nint x;\n");
  EXPECT_NE(error.find("headway-design"), std::string::npos);
  error = parse_error("qkv", "// headway-design: a\n// param P_X 1 2 default 3\n");
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
  error = parse_error("qkv", "// headway-design: a\n// param P_X one default 1\n");
  EXPECT_NE(error.find("not an integer"), std::string::npos) << error;
  const auto unprefixed = parse_design("qkv", "// headway-design: a\n// param ROWS 1 default 1\n");
  ASSERT_FALSE(unprefixed);
  EXPECT_EQ(unprefixed.error().code, ErrorCode::kInvalidInput);
}

// Each way a header goes wrong is said as what is wrong, on its line, never a silent loss.
TEST(DesignLibrary, EachMalformedHeaderLineSaysWhatIsWrong) {
  const std::string design = "// headway-design: a\n";
  const std::pair<std::string, std::string> cases[] = {
      {"// headway-design:\n",
       "line 1: `headway-design:` without a name: expected `// "
       "headway-design: NAME`"},
      {"// headway-design: two rows\n",
       "line 1: a design's name is one word: 'rows' follows 'two'"},
      {design + "// headway-design: b\n", "line 2: a second `headway-design:` line"},
      {design + "// param\n",
       "line 2: `param` without a name: expected `param P_NAME v1 v2 ... default v`"},
      {design + "// param ROWS 1 default 1\n",
       "line 2: parameter name 'ROWS' is not P_ followed by capitals, digits or '_' (as P_ROWS)"},
      {design + "// param P_rows 1 default 1\n",
       "line 2: parameter name 'P_rows' is not P_ followed by capitals, digits or '_' (as "
       "P_ROWS)"},
      {design + "// param P_X default 1\n",
       "line 2: parameter P_X lists no values: expected `param P_X v1 v2 ... default v`"},
      {design + "// param P_X 1 2\n", "line 2: parameter P_X has no `default v` after its values"},
      {design + "// param P_X 1 2 default\n",
       "line 2: parameter P_X has no `default v` after its values"},
      {design + "// param P_X 1 2 default two\n",
       "line 2: parameter P_X: default 'two' is not an integer"},
      {design + "// param P_X 1 2 4 default 3\n",
       "line 2: parameter P_X: default 3 is not among its values (1 2 4)"},
      {design + "// param P_X 1 2 default 2 4\n", "line 2: parameter P_X: '4' after its default"},
      {design + "// param P_X 1 2x default 1\n", "line 2: parameter value '2x' is not an integer"},
      {design + "// param P_X 1 2 1 default 1\n", "line 2: parameter P_X lists 1 twice"},
      {design + "// summary: rows\n\n// param P_X 1 2 default 1\nint x = P_X;\n",
       "line 4: `param` outside the header: the header is the file's leading comment lines, with "
       "no blank or code line before or among them"},
      {"#include <cstdint>\n// headway-design: a\n",
       "line 2: `headway-design:` outside the header: the header is the file's leading comment "
       "lines, with no blank or code line before or among them"},
  };
  for (const auto& [text, error] : cases) EXPECT_EQ(parse_error("qkv", text), error) << text;
  // Notes in the header, and prose about parameters in the code, are fine.
  EXPECT_EQ(parse_error("qkv", design + "// two rows at a time\n// param P_X 1 2 default 1\n"
                                        "int x = P_X;  // param x is the row count\n"),
            "");
}

// Found by fuzz/design_fuzz.cc: a parameter declared twice parsed, and render(defaults()) threw
// because the defaults kept only the second declaration. Input kept in fuzz/regressions/design/.
TEST(DesignLibrary, ParameterDeclaredTwiceIsAnError) {
  const std::string error = parse_error(
      "qkv", "// headway-design: a\n// param P_X 1 2 default 1\n// param P_X 3 4 default 4\n");
  EXPECT_NE(error.find("line 3: parameter P_X is declared twice"), std::string::npos) << error;
}

TEST(DesignLibrary, RequiresLineListsExtensions) {
  const auto d =
      parse_design("qkv", "// headway-design: a\n// requires: avx512bw avx512vbmi\nint x;\n");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->requires_isa, (std::vector<std::string>{"avx512bw", "avx512vbmi"}));
  const auto none = parse_design("qkv", kDesign);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->requires_isa.empty());
  std::string error = parse_error("qkv", "// headway-design: a\n// requires:\n");
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
  error = parse_error("qkv", "// headway-design: a\n// requires: avx2\n// requires: fma\n");
  EXPECT_NE(error.find("line 3"), std::string::npos) << error;
}

TEST(DesignLibrary, SubnormalsLineSaysWhereTheDesignMakesThem) {
  const auto d =
      parse_design("qkv", "// headway-design: a\n// subnormals: f8 codes below 2^-6\nint x;\n");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->subnormals, "f8 codes below 2^-6");
  const auto none = parse_design("qkv", kDesign);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->subnormals.empty());
  std::string error = parse_error("qkv", "// headway-design: a\n// subnormals:\n");
  EXPECT_NE(error.find("line 2: expected `// subnormals: WHERE`"), std::string::npos) << error;
  error = parse_error("qkv", "// headway-design: a\n// subnormals: x\n// subnormals: y\n");
  EXPECT_NE(error.find("line 3: a second `subnormals:` line"), std::string::npos) << error;
}

// A formatter that reflows the header joins `requires:` and `param` lines onto the summary's last
// line; parsed as prose they would vanish (the design would lose its parameters and requirements).
TEST(DesignLibrary, AReflowedHeaderIsAnErrorNotASilentLoss) {
  std::string error =
      parse_error("qkv",
                  "// headway-design: a\n// summary: two rows\n// at a time requires: "
                  "avx512bw param P_X 1 default 1\n");
  EXPECT_NE(error.find("line 3"), std::string::npos) << error;
  error = parse_error("qkv", "// headway-design: a\n// streams rows param P_X 1 default 1\n");
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
  // Prose that merely mentions the words is fine.
  EXPECT_EQ(parse_error("qkv", "// headway-design: a\n// summary: nothing it requires here\n"), "");
}

// A language without a preprocessor: the header in its comment (or `//`), {{P_NAME}} placeholders
// replaced by headway, and nothing of headway's header left in the candidate.
constexpr const char* kHashDesign =
    "# headway-design: tiled\n"
    "// summary: bigger tiles\n"
    "# param P_TILE 32 64 default 64\n"
    "# param P_VECTOR 16 32 default 32\n"
    "# headway-file: kernels/qkv.py\n"
    "tile = {{P_TILE}}  # rows per DMA\n"
    "vector = {{P_VECTOR}}\n"
    "lanes = {{P_VECTOR}}\n";

const KernelLanguage kPythonLike{"#", KernelLanguage::Params::kPlaceholder, true};

TEST(DesignLibrary, PlaceholdersAreReplacedAndTheHeaderLeftOut) {
  const auto d = parse_design("qkv", kHashDesign, kPythonLike);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->name, "tiled");
  EXPECT_EQ(d->summary, "bigger tiles");
  EXPECT_EQ(d->render({{"P_TILE", 32}, {"P_VECTOR", 16}}),
            "# headway-file: kernels/qkv.py\ntile = 32  # rows per DMA\nvector = 16\nlanes = 16\n");
  EXPECT_THROW(d->render({{"P_TILE", 48}, {"P_VECTOR", 16}}), std::invalid_argument);
  // The same file read as C-family: no header in its comments, so no design.
  EXPECT_NE(parse_error("qkv", kHashDesign).find("missing `// headway-design: NAME`"),
            std::string::npos);
}

TEST(DesignLibrary, DefinesGoInFrontAndATargetMayLeaveTheHeaderOut) {
  const KernelLanguage c_stripped{"//", KernelLanguage::Params::kDefine, true};
  const auto d = parse_design("qkv", kDesign, c_stripped);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->render(d->defaults()),
            "#define P_ROWS 2\n#define P_THREADS 2\n#include \"headway_kernel.h\"\n");
}

TEST(DesignLibrary, APlaceholderWithoutAParamOrAParamWithoutAPlaceholderNamesItsLine) {
  auto error = [](const std::string& text) {
    const auto d = parse_design("qkv", text, kPythonLike);
    return d ? std::string() : d.error().message;
  };
  const std::string base = "# headway-design: a\n# param P_TILE 1 2 default 1\n";
  EXPECT_EQ(error(base + "tile = {{P_TILE}}\n"), "");
  EXPECT_EQ(error(base + "tile = {{P_TILE}}\nvector = {{P_VECTR}}\n"),
            "line 4: placeholder {{P_VECTR}} names no param of the header");
  EXPECT_EQ(error(base + "tile = P_TILE\n"),
            "line 2: parameter P_TILE has no {{P_TILE}} in the design, so its values would all be "
            "the same source");
  EXPECT_EQ(error(base + "tile = {{P_TILE}}\nx = {{P_tile}}\n").substr(0, 8), "line 4: ");
  // The header is not written, so a placeholder there sets nothing.
  EXPECT_EQ(error("# headway-design: a\n# summary: {{P_TILE}} rows\n# param P_TILE 1 2 default 1\n"
                  "tile = 4\n")
                .substr(0, 29),
            "line 3: parameter P_TILE has ");
}

TEST(DesignLibrary, EveryEmbeddedDesignParses) {
  for (const char* k : {"qkv", "attn_out", "ffn"}) {
    for (const auto& d : designs_for(test_cpu_target(), *builtin_kernel(k))) {
      EXPECT_EQ(d.kernel, k);
      EXPECT_FALSE(d.summary.empty()) << d.name;
      const std::string source = d.render(d.defaults());
      for (const auto& [name, value] : d.defaults())
        EXPECT_NE(source.find(fmt::format("#define {} {}\n", name, value)), std::string::npos)
            << d.name << " " << name;
      EXPECT_NE(source.find(d.text), std::string::npos) << d.name;
    }
  }
}

}  // namespace
}  // namespace headway::targets
