#include "targets/command/pack_manifest.h"

#include <gtest/gtest.h>

#include <fstream>

#include "store/test_temp_dir.h"

namespace headway::command {
namespace {

namespace fs = std::filesystem;

// A minimal valid manifest; tests edit it to break one thing at a time.
constexpr const char* kGood = R"(name = "toy"
repo = "repo"
editable = ["k/*.tk"]

[device]
read_gbps = 1500
time_unit = "cycles"
clock_hz = 1e9
retry = { exit_codes = [75] }

[kernels.qkv]
file = "k/qkv.tk"

[commands.toolchain_version]
run = "echo toy 1.0"
parse = { regex = 'toy ([0-9.]+)' }
example = "toy 1.0"

[commands.build]
run = "true"

[commands.check]
run = "true"

[commands.time]
run = "echo arm 0: 5"
parse = { regex = 'arm ([0-9]+): ([0-9]+)' }
example = "arm 0: 5\narm 1: 6"
)";

class ManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.path() / "repo/k");
    std::ofstream(dir_.path() / "repo/k/qkv.tk") << "kernel qkv\n";
  }
  Result<PackManifest> parse(const std::string& text) {
    std::ofstream(dir_.path() / "target.toml") << text;
    return parse_manifest(dir_.path() / "target.toml");
  }
  // The error of `text` with "FILE:" removed.
  std::string error_of(const std::string& text) {
    auto m = parse(text);
    if (m.ok()) return "(parsed)";
    const std::string prefix = (dir_.path() / "target.toml").string() + ":";
    const std::string& e = m.error().message;
    return e.rfind(prefix, 0) == 0 ? e.substr(prefix.size()) : e;
  }
  static std::string replace(std::string text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  }
  store::TestTempDir dir_;
};

TEST_F(ManifestTest, AGoodManifestParses) {
  auto m = parse(kGood);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m.value().name, "toy");
  EXPECT_EQ(m.value().repo, dir_.path() / "repo");
  EXPECT_EQ(m.value().kernels.at("qkv").entry, "qkv");
  EXPECT_DOUBLE_EQ(m.value().seconds_per_unit(), 1e-9);
  EXPECT_EQ(m.value().retry.exit_codes, std::vector<int>{75});
  EXPECT_EQ(m.value().command("static_cost"), nullptr);
  EXPECT_EQ(m.value().command("time")->line, 25);
}

TEST_F(ManifestTest, UnknownKeysAreRejectedWithTheirLine) {
  EXPECT_EQ(error_of(replace(kGood, "[commands.build]\nrun = \"true\"",
                             "[commands.build]\nrun = \"true\"\ntimout = 3")),
            "21: unknown key 'timout' in [commands.build] (known: run, timeout, env, sandbox, "
            "parse, example)");
  EXPECT_EQ(error_of(std::string("colour = 1\n") + kGood).substr(0, 22), "1: unknown key 'colour");
  EXPECT_EQ(error_of(replace(kGood, "[commands.build]", "[commands.bild]")).substr(0, 27),
            "19: unknown command 'bild' ");
}

TEST_F(ManifestTest, MissingCommandsAndKernelsAreRejected) {
  const std::string missing = error_of(replace(kGood, "[commands.check]\nrun = \"true\"\n", ""));
  EXPECT_NE(missing.find(": missing command [commands.check]"), std::string::npos) << missing;
  EXPECT_EQ(error_of(replace(kGood, "[kernels.qkv]", "[kernels.matmul]")).substr(0, 56),
            "11: kernel 'matmul' is not one headway has a contract of");
  EXPECT_EQ(error_of(replace(kGood, "file = \"k/qkv.tk\"", "file = \"k/none.tk\"")).substr(0, 24),
            "12: 'file': k/none.tk is");
}

TEST_F(ManifestTest, AParserThatNeverMatchesItsExampleIsRejected) {
  EXPECT_EQ(
      error_of(replace(kGood, "example = \"arm 0: 5\\narm 1: 6\"", "example = \"arm zero: 5\"")),
      "27: the time parser does not match its example: regex 'arm ([0-9]+): ([0-9]+)' gives no "
      "reading for "
      "arm 0 of 8 in: arm zero: 5");
  EXPECT_EQ(error_of(replace(kGood, "example = \"toy 1.0\"", "example = \"version 1\"")),
            "16: the toolchain_version parser does not match its example: regex 'toy ([0-9.]+)' "
            "matches nothing in: version 1");
  EXPECT_EQ(error_of(replace(kGood, "example = \"toy 1.0\"\n", "")),
            "16: the toolchain_version parser needs an 'example' output it matches");
  EXPECT_EQ(
      error_of(replace(kGood, "parse = { regex = 'toy ([0-9.]+)' }", "parse = { regex = 'toy (' }"))
          .substr(0, 26),
      "16: regex 'toy (' does not");
  EXPECT_EQ(error_of(replace(kGood, "[commands.build]\nrun = \"true\"",
                             "[commands.build]\nrun = \"true\"\nparse = { regex = 'x' }")),
            "21: the build command takes no parser (its exit status decides)");
}

TEST_F(ManifestTest, SyntaxErrorsAndBadValuesNameTheLine) {
  EXPECT_EQ(error_of(replace(kGood, "read_gbps = 1500", "read_gbps = ")).substr(0, 2), "6:");
  EXPECT_EQ(error_of(replace(kGood, "clock_hz = 1e9\n", "")),
            "5: time_unit \"cycles\" needs 'clock_hz' > 0");
  EXPECT_EQ(error_of(replace(kGood, "repo = \"repo\"", "repo = \"nowhere\"")).substr(0, 12),
            "2: 'repo': /");
  EXPECT_NE(parse_manifest(dir_.path() / "none.toml").error().message.find("no such manifest file"),
            std::string::npos);
}

TEST_F(ManifestTest, AKernelWithoutAContractIsDeclaredWithItsBytes) {
  std::ofstream(dir_.path() / "repo/k/rmsnorm.tk") << "kernel rmsnorm\n";
  const auto m = parse(replace(kGood, "[kernels.qkv]",
                               "[kernels.rmsnorm]\nfile = \"k/rmsnorm.tk\"\nbytes = 6000000\n\n"
                               "[kernels.qkv]"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(*m.value().kernels.at("rmsnorm").bytes, 6000000u);
  EXPECT_EQ(error_of(replace(kGood, "[kernels.qkv]", "[kernels.Rms-Norm]")).substr(0, 40),
            "11: 'Rms-Norm' is not a kernel name: a l");
}

TEST_F(ManifestTest, AKernelMayPointAtItsSpecInsteadOfGivingItsBytes) {
  std::ofstream(dir_.path() / "repo/k/rmsnorm.tk") << "kernel rmsnorm\n";
  const fs::path spec = fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs/rmsnorm/rmsnorm.toml";
  const std::string with_spec = replace(kGood, "[kernels.qkv]",
                                        "[kernels.rmsnorm]\nfile = \"k/rmsnorm.tk\"\nspec = \"" +
                                            spec.string() + "\"\n\n[kernels.qkv]");
  const auto m = parse(with_spec);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m.value().kernels.at("rmsnorm").spec, spec);
  EXPECT_FALSE(m.value().kernels.at("rmsnorm").bytes);
  EXPECT_EQ(error_of(replace(with_spec, "[kernels.qkv]",
                             "[kernels.qkv]\nspec = \"" + spec.string() + "\"")),
            "16: kernel 'qkv' is built in: its contract is headway's");
  const std::string other = replace(with_spec, "[kernels.rmsnorm]", "[kernels.norm]");
  EXPECT_EQ(error_of(other), "13: the spec is of kernel 'rmsnorm', not 'norm'");
  EXPECT_EQ(error_of(replace(with_spec, "spec = ", "bytes = 5\nspec = ")),
            "14: give 'spec' or 'bytes', not both: a spec states its bytes");
}

TEST_F(ManifestTest, TheKernelLanguageSetsMarkersAndParams) {
  const auto plain = parse(kGood);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain.value().language.comment, "//");
  EXPECT_EQ(plain.value().language.params, targets::KernelLanguage::Params::kDefine);
  EXPECT_TRUE(plain.value().language.strip_design_header);
  const std::string hash = replace(kGood, "[device]", "[language]\ncomment = \"#\"\n\n[device]");
  const auto python = parse(hash);
  ASSERT_TRUE(python.ok()) << python.error().message;
  EXPECT_EQ(python.value().language.comment, "#");
  // No preprocessor is assumed outside the C family.
  EXPECT_EQ(python.value().language.params, targets::KernelLanguage::Params::kPlaceholder);
  const auto rust =
      parse(replace(kGood, "[device]", "[language]\nparams = \"placeholder\"\n[device]"));
  ASSERT_TRUE(rust.ok()) << rust.error().message;
  EXPECT_EQ(rust.value().language.params, targets::KernelLanguage::Params::kPlaceholder);

  EXPECT_EQ(
      error_of(replace(hash, "comment = \"#\"", "comment = \"#\"\nparams = \"cpp\"")).substr(0, 24),
      "7: 'params' is 'cpp'; ex");
  EXPECT_EQ(error_of(replace(hash, "comment = \"#\"", "comment = \"\"")),
            "6: 'comment' must be the line comment's opening, e.g. \"#\"");
  EXPECT_EQ(error_of(replace(hash, "comment = \"#\"", "coment = \"#\"")),
            "6: unknown key 'coment' in [language] (known: comment, params)");
}

TEST_F(ManifestTest, ADesignThatDoesNotParseInTheLanguageIsRejectedWithItsFileAndLine) {
  fs::create_directories(dir_.path() / "designs/qkv");
  const fs::path design = dir_.path() / "designs/qkv/tiled.py";
  std::ofstream(design)
      << "# headway-design: tiled\n# param P_TILE 8 16 default 8\ntile = {{P_TILE}}\n";
  const std::string hash =
      replace(replace(kGood, "[device]", "[language]\ncomment = \"#\"\n[device]"),
              "editable =", "designs = \"designs\"\neditable =");
  ASSERT_TRUE(parse(hash).ok());
  // Read as the C family, the `#` header is no header.
  auto c_family = parse(replace(hash, "comment = \"#\"", "comment = \"//\""));
  ASSERT_FALSE(c_family.ok());
  EXPECT_EQ(c_family.error().message,
            design.string() +
                ":1: design: missing `// headway-design: NAME` in the leading "
                "comment block");
  std::ofstream(design) << "# headway-design: tiled\n# param P_TILE 8 16 default 8\ntile = 8\n";
  auto unused = parse(hash);
  ASSERT_FALSE(unused.ok());
  EXPECT_EQ(unused.error().message.rfind(design.string() + ":2: design: parameter P_TILE has", 0),
            0u)
      << unused.error().message;
}

TEST_F(ManifestTest, ADeviceSharesTheHostOnlyWhenTheManifestSaysSo) {
  EXPECT_FALSE(parse(kGood).value().shares_host);
  auto shared = parse(replace(kGood, "read_gbps = 1500", "read_gbps = 1500\nshares_host = true"));
  ASSERT_TRUE(shared.ok()) << shared.error().message;
  EXPECT_TRUE(shared.value().shares_host);
  EXPECT_EQ(error_of(replace(kGood, "read_gbps = 1500", "read_gbps = 1500\nshares_host = 1")),
            "7: 'shares_host' must be true or false");
}

// Found by fuzz/command_manifest_fuzz.cc: a non-ASCII character where toml++ looks for
// whitespace reached TOML_UNREACHABLE inside toml++ 3.3 (undefined behaviour). Such a character is
// refused, naming its line, before toml++ parses; inside strings and comments it is fine.
TEST_F(ManifestTest, NonAsciiOutsideStringsIsRefusedWithItsLineAndFineInside) {
  EXPECT_EQ(error_of(replace(kGood, "read_gbps = 1500", "read_gbps = 1\u00a2500")),
            "6: a non-ASCII character outside a string or comment");
  EXPECT_EQ(error_of(replace(kGood, "read_gbps = 1500", "read_gbps = 1500 # r\u00e9sum\u00e9 \"")),
            "(parsed)");
  EXPECT_EQ(error_of("x = \"\"\"a \\\n b \u00e9\"\"\"\ny = '\u00e9'\nz = 1\u00a2\n"),
            "4: a non-ASCII character outside a string or comment")
      << "line counting across multi-line strings and line-ending backslashes";
}

// Found by fuzz/command_manifest_fuzz.cc: toml++ quotes the offending characters, a newline
// included, and the error was two lines. Input kept in fuzz/regressions/command_manifest/.
TEST_F(ManifestTest, AnErrorQuotingControlCharactersStaysOneLine) {
  const std::string e = error_of(replace(kGood, "read_gbps = 1500", "read_gbps = f\n\x01"));
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_EQ(e.substr(0, 2), "6:") << e;
}

// The shipped packs' manifests parse (the furiosa-opt one against an empty stand-in of the
// competition repository's layout: nothing of it runs here).
TEST(PackManifests, StandinAndFuriosaOptParse) {
  auto standin = parse_manifest(fs::path(HEADWAY_SOURCE_DIR) / "packs/standin/target.toml");
  ASSERT_TRUE(standin.ok()) << standin.error().message;
  EXPECT_EQ(standin.value().kernels.size(), 3u);
  EXPECT_NE(standin.value().command("static_cost"), nullptr);

  store::TestTempDir dir;
  fs::copy(fs::path(HEADWAY_SOURCE_DIR) / "packs/furiosa-opt", dir.path() / "pack",
           fs::copy_options::recursive);
  fs::create_directories(dir.path() / "pack/repo/src/device");
  std::ofstream(dir.path() / "pack/repo/src/ops.rs") << "// ops\n";
  auto furiosa = parse_manifest(dir.path() / "pack/target.toml");
  ASSERT_TRUE(furiosa.ok()) << furiosa.error().message;
  EXPECT_EQ(furiosa.value().kernels.at("ffn").entry, "ops::decoder_feedforward");
  EXPECT_EQ(*furiosa.value().kernels.at("qkv").bytes, 31507460u);
  EXPECT_DOUBLE_EQ(furiosa.value().read_gbps, 1500.0);
  EXPECT_EQ(furiosa.value().language.params, targets::KernelLanguage::Params::kPlaceholder);
  // Without the repository linked in, the error says so.
  fs::remove_all(dir.path() / "pack/repo");
  auto missing = parse_manifest(dir.path() / "pack/target.toml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("'repo': "), std::string::npos) << missing.error().message;
}

}  // namespace
}  // namespace headway::command
