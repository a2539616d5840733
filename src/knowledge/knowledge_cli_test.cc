// `headway docs`, `headway check-citations` and `headway onboard` as a user runs them: the real
// binary on temp files.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/subprocess.h"
#include "knowledge/citation_markup.h"
#include "knowledge/facts.h"
#include "knowledge/target_docs.h"
#include "knowledge/test_files.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"

namespace headway::knowledge {
namespace {

namespace fs = std::filesystem;

class KnowledgeCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    docs_ = tmp_.path() / "docs";
    write_test_file(docs_, "memory.md",
                    "# Memory\nThe tile holds 448 bytes.\nDMA moves 64 bytes per cycle.\n");
    write_test_file(docs_, "ops.html", "<h1>Ops</h1><p>32 lanes</p>");
    write_test_file(docs_, "logo.png", std::string("\x89PNG\0", 5));
    ws_ = tmp_.path() / "ws";
    auto ws = store::Workspace::create(ws_);
    ASSERT_TRUE(ws.ok()) << ws.error().message;
  }
  static ProcessResult headway(std::vector<std::string> args, const fs::path& cwd = {}) {
    args.insert(args.begin(), HEADWAY_BINARY);
    return run_process(args, 60.0, cwd.string());
  }
  static nlohmann::json json_of(const ProcessResult& r) {
    auto j = nlohmann::json::parse(r.output, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.output;
    return j;
  }
  fs::path summary(const std::string& text) {
    return write_test_file(tmp_.path(), "summary.md", text);
  }

  store::TestTempDir tmp_;
  fs::path docs_;
  fs::path ws_;
};
class CorpusCli : public KnowledgeCliTest {};
class CitationCli : public KnowledgeCliTest {};
class OnboardCli : public KnowledgeCliTest {};

TEST_F(CorpusCli, IndexThenReindexShowsExactlyTheChange) {
  const auto first =
      headway({"docs", "index", docs_.string(), "--workspace", ws_.string(), "--json"});
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const auto j1 = json_of(first);
  EXPECT_EQ(j1["files"], 2);
  EXPECT_EQ(j1["lines"], 3 + 2);
  EXPECT_EQ(j1["first_index"], true);
  EXPECT_TRUE(j1["previous"].is_null());
  ASSERT_EQ(j1["skipped"].size(), 1u);
  EXPECT_EQ(j1["skipped"][0]["path"], "logo.png");
  EXPECT_TRUE(fs::exists(ws_ / ".headway/knowledge/docs-manifests.jsonl"));

  write_test_file(docs_, "memory.md",
                  "# Memory\nThe tile holds 512 bytes.\nDMA moves 64 bytes per cycle.\n");
  const auto second = headway({"docs", "index", docs_.string(), "--workspace", ws_.string()});
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("2 files, 5 lines, 1 skipped"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("1 changed, 0 added, 0 removed\n  changed memory.md\n"),
            std::string::npos)
      << second.output;

  const auto diff = headway({"docs", "diff", "--workspace", ws_.string(), "--json"});
  ASSERT_EQ(diff.exit_code, 0) << diff.output;
  const auto jd = json_of(diff);
  EXPECT_EQ(jd["diff"]["changed"], nlohmann::json::array({"memory.md"}));
  EXPECT_TRUE(jd["diff"]["added"].empty());
  EXPECT_TRUE(jd["diff"]["removed"].empty());
  EXPECT_EQ(jd["previous"], j1["manifest"]);
}

TEST_F(CorpusCli, UsageErrorsExitTwo) {
  const auto missing =
      headway({"docs", "index", (tmp_.path() / "nope").string(), "--workspace", ws_.string()});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("does not exist"), std::string::npos) << missing.output;
  const auto never = headway({"docs", "diff", "--workspace", ws_.string()});
  EXPECT_EQ(never.exit_code, 2) << never.output;
  EXPECT_NE(never.output.find("no docs indexed"), std::string::npos) << never.output;
  EXPECT_EQ(headway({"docs"}).exit_code, 2);
  EXPECT_EQ(headway({"docs", "index"}).exit_code, 2);
}

TEST_F(CitationCli, AllSupportedExitsZero) {
  const auto s = summary(
      "- The tile holds 448 bytes [memory.md:L2 \"holds 448\"].\n- 32 lanes [ops.html:L2]\n");
  const auto r = headway({"check-citations", s.string(), "--docs", docs_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2 citations: 2 supported-by-text\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("agent passes: skipped (no agent configured)"), std::string::npos)
      << r.output;
}

TEST_F(CitationCli, ProblemsExitOneWithJsonShape) {
  const auto s = summary(
      "# Summary\n"
      "- The tile holds 448 bytes [memory.md:L2].\n"
      "- DMA moves 64 bytes [memory.md:L2].\n"
      "- Broken [memory.md:L2-L9]\n"
      "- Bad [memory.md:Lx] and later 32 lanes [ops.html:L2]\n");
  const auto text = headway({"check-citations", s.string(), "--docs", docs_.string()});
  EXPECT_EQ(text.exit_code, 1) << text.output;
  EXPECT_NE(text.output.find(s.string() +
                             ":3: [memory.md:L2] number-mismatch: 64 not in the cited lines"),
            std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find(
                "5 citations: 2 supported-by-text, 1 number-mismatch, 1 broken, 1 malformed"),
            std::string::npos)
      << text.output;

  const auto r = headway({"check-citations", s.string(), "--docs", docs_.string(), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const auto j = json_of(r);
  ASSERT_EQ(j["citations"].size(), 5u) << r.output;
  const std::vector<std::tuple<int, std::string, std::string>> expected = {
      {2, "[memory.md:L2]", "supported-by-text"}, {3, "[memory.md:L2]", "number-mismatch"},
      {4, "[memory.md:L2-L9]", "broken"},         {5, "[memory.md:Lx]", "malformed"},
      {5, "[ops.html:L2]", "supported-by-text"},
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(j["citations"][i]["line"], std::get<0>(expected[i])) << i;
    EXPECT_EQ(j["citations"][i]["cite"], std::get<1>(expected[i])) << i;
    EXPECT_EQ(j["citations"][i]["verdict"], std::get<2>(expected[i])) << i;
  }
  EXPECT_EQ(j["totals"],
            nlohmann::json::parse(
                R"({"supported-by-text":2,"number-mismatch":1,"broken":1,"malformed":1})"));
  EXPECT_EQ(j["agent_passes"]["status"], "skipped");
}

TEST_F(CitationCli, WithoutCitationsExitsOne) {
  const auto s = summary("# Notes\n\nThe tile holds 448 bytes.\n");
  const auto r = headway({"check-citations", s.string(), "--docs", docs_.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no citations found"), std::string::npos) << r.output;
  const auto j =
      json_of(headway({"check-citations", s.string(), "--docs", docs_.string(), "--json"}));
  EXPECT_TRUE(j["citations"].empty());
  EXPECT_TRUE(j["totals"].empty());
  EXPECT_NE(j["message"].get<std::string>().find("no citations found"), std::string::npos);
}

TEST_F(CitationCli, UsageErrorsExitTwo) {
  const auto s = summary("- Tile 448 [memory.md:L2]\n");
  const auto no_summary =
      headway({"check-citations", (tmp_.path() / "missing.md").string(), "--docs", docs_.string()});
  EXPECT_EQ(no_summary.exit_code, 2) << no_summary.output;
  EXPECT_NE(no_summary.output.find("cannot read summary"), std::string::npos) << no_summary.output;
  const auto no_docs =
      headway({"check-citations", s.string(), "--docs", (tmp_.path() / "nope").string()});
  EXPECT_EQ(no_docs.exit_code, 2) << no_docs.output;
  EXPECT_NE(no_docs.output.find("does not exist"), std::string::npos) << no_docs.output;
  EXPECT_EQ(headway({"check-citations"}).exit_code, 2);
}

TEST_F(CitationCli, DocsDefaultToTheWorkspaceIndexElseTheSummaryFolder) {
  const auto s = summary("- Tile 448 [memory.md:L2]\n");
  const auto beside = headway({"check-citations", s.string(), "--json"}, tmp_.path());
  EXPECT_EQ(beside.exit_code, 1) << beside.output;
  EXPECT_EQ(json_of(beside)["docs_from"], "summary folder");
  EXPECT_EQ(json_of(beside)["citations"][0]["verdict"], "broken");

  ASSERT_EQ(headway({"docs", "index", docs_.string(), "--workspace", ws_.string()}).exit_code, 0);
  const auto indexed = headway({"check-citations", s.string(), "--json"}, ws_);
  EXPECT_EQ(indexed.exit_code, 0) << indexed.output;
  EXPECT_EQ(json_of(indexed)["docs_from"], "workspace");
  const auto named =
      headway({"check-citations", s.string(), "--workspace", ws_.string()}, tmp_.path());
  EXPECT_EQ(named.exit_code, 0) << named.output;

  write_test_file(docs_, "memory.md", "# Memory\n\nThe tile holds 448 bytes.\n");
  const auto stale = headway({"check-citations", s.string()}, ws_);
  EXPECT_EQ(stale.exit_code, 1) << stale.output;
  EXPECT_NE(stale.output.find("the docs changed since the workspace's last index (1 changed"),
            std::string::npos)
      << stale.output;
}

// The Rust Reference's pages as rustup installs them (testdata/real-docs/README.md).
fs::path rust_reference() {
  return fs::path(HEADWAY_SOURCE_DIR) / "src/knowledge/testdata/real-docs/rust-reference";
}

TEST_F(CitationCli, OneClaimPerVerdictOnTheRustReference) {
  const auto s = summary(
      "# Rust's types\n"
      "- `u8` ranges from 0 to 2^8-1 [types/numeric.html:L9 \"u8 | 0 | 2^8-1\"].\n"
      "- `u8` ranges up to 28-1 [types/numeric.html:L9 \"0 | 28-1\"].\n"
      "- `i64` holds values up to 2^64-1 [types/numeric.html:L20].\n"
      "- A `bool` has a size and alignment of 1 each [types/boolean.html:L12].\n"
      "- The value `false` has the bit pattern 0x00 [types/boolean.html:L999].\n"
      "- Booleans take one byte [types/boolean.html:L12-12].\n");
  const auto r =
      headway({"check-citations", s.string(), "--docs", rust_reference().string(), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const auto j = json_of(r);
  ASSERT_EQ(j["citations"].size(), 6u) << r.output;
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"supported-by-text", ""},
      {"quote-not-found", "\"0 | 28-1\" is not in types/numeric.html:L9"},
      {"number-mismatch", "64 not in the cited lines"},
      {"identifier-not-found", "`bool` not in the cited lines"},
      {"broken", "types/boolean.html has "},
      {"malformed", ""},
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(j["citations"][i]["cite"].get<std::string>());
    EXPECT_EQ(j["citations"][i]["line"], i + 2);
    EXPECT_EQ(j["citations"][i]["verdict"], expected[i].first);
    EXPECT_EQ(j["citations"][i]["why"].get<std::string>().rfind(expected[i].second, 0), 0u)
        << j["citations"][i]["why"];
  }
  EXPECT_EQ(j["totals"].size(), 6u);
}

TEST_F(CorpusCli, ShowPrintsTheLinesCitationsCount) {
  const auto r = headway({"docs", "show", "types/numeric.html", "--docs", rust_reference().string(),
                          "--lines", "8-9"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "8  Type | Minimum | Maximum\n9  u8 | 0 | 2^8-1\n");
  const auto whole = headway(
      {"docs", "show", "types/numeric.html", "--docs", rust_reference().string(), "--json"});
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  const auto j = json_of(whole);
  EXPECT_EQ(j["path"], "types/numeric.html");
  EXPECT_EQ(j["kind"], "html");
  EXPECT_EQ(j["from"], "--docs");
  EXPECT_EQ(j["first"], 1);
  EXPECT_EQ(j["last"], j["line_count"]);
  ASSERT_EQ(j["lines"].size(), j["line_count"].get<size_t>());
  EXPECT_EQ(j["lines"][0]["text"], "Numeric types - The Rust Reference");
  EXPECT_EQ(j["lines"][8], nlohmann::json::parse(R"({"line": 9, "text": "u8 | 0 | 2^8-1"})"));
  const auto ranged = json_of(headway({"docs", "show", "types/numeric.html", "--docs",
                                       rust_reference().string(), "--lines", "L20", "--json"}));
  EXPECT_EQ(ranged["lines"],
            nlohmann::json::parse(R"([{"line": 20, "text": "i64 | -(2^63) | 2^63-1"}])"));
}

TEST_F(CorpusCli, ShowRefusesWhatCitationsCannotCite) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"memory.md", "--lines", "2-9"}, "headway: memory.md has 3 lines; L9 is past its end\n"},
      {{"memory.md", "--lines", "0"}, "headway: --lines: line numbers start at 1\n"},
      {{"memory.md", "--lines", "3-2"}, "headway: --lines 3-2: the range ends before it starts\n"},
      {{"memory.md", "--lines", "x"},
       "headway: --lines x: expected A-B or A (e.g. 12-18 or L12-L18)\n"},
      {{"logo.png"}, "headway: logo.png is not in the corpus: unsupported extension '.png'\n"},
      {{"../memory.md"},
       "headway: ../memory.md is outside the docs folder " + docs_.string() + "\n"},
      {{"nope.md"}, "headway: no file nope.md in " + docs_.string() + "\n"},
  };
  for (const auto& [args, error] : cases) {
    std::vector<std::string> argv = {"docs", "show"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--docs", docs_.string()});
    const auto r = headway(argv);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(r.output, error);
  }
}

TEST_F(CorpusCli, ShowReadsTheWorkspaceIndexAndWhatItStored) {
  ASSERT_EQ(headway({"docs", "index", docs_.string(), "--workspace", ws_.string()}).exit_code, 0);
  const auto fresh = headway({"docs", "show", "ops.html", "--json"}, ws_);
  ASSERT_EQ(fresh.exit_code, 0) << fresh.output;
  EXPECT_EQ(json_of(fresh)["from"], "workspace");
  EXPECT_EQ(json_of(fresh)["lines"][1]["text"], "32 lanes");

  write_test_file(docs_, "ops.html", "<nav>Home</nav><h1>Ops</h1><p>64 lanes</p>");
  const auto changed = headway({"docs", "show", "ops.html", "--lines", "2"}, ws_);
  EXPECT_EQ(changed.exit_code, 0) << changed.output;
  EXPECT_NE(changed.output.find("2  64 lanes\n"), std::string::npos) << changed.output;
  EXPECT_NE(changed.output.find("note: ops.html is not as the workspace's last index"),
            std::string::npos)
      << changed.output;
  const auto stored =
      headway({"docs", "show", "ops.html", "--indexed", "--workspace", ws_.string(), "--json"});
  ASSERT_EQ(stored.exit_code, 0) << stored.output;
  EXPECT_EQ(json_of(stored)["from"], "index");
  EXPECT_EQ(json_of(stored)["lines"][1]["text"], "32 lanes");
  const auto not_indexed =
      headway({"docs", "show", "nope.md", "--indexed", "--workspace", ws_.string()});
  EXPECT_EQ(not_indexed.exit_code, 2) << not_indexed.output;
  EXPECT_NE(not_indexed.output.find("nope.md is not in the workspace's index"), std::string::npos)
      << not_indexed.output;
}

TEST_F(CorpusCli, DiffWithASummaryShowsWhereCitedLinesWent) {
  const auto s = summary(
      "- The tile holds 448 bytes [memory.md:L2 \"448 bytes\"].\n"
      "- DMA moves 64 bytes per cycle [memory.md:L3].\n"
      "- 32 lanes [ops.html:L2]\n");
  ASSERT_EQ(headway({"docs", "index", docs_.string(), "--workspace", ws_.string()}).exit_code, 0);
  write_test_file(docs_, "memory.md",
                  "# Memory\nSee also: ops.\n\nThe tile holds 448 bytes.\nDMA moves 128 bytes.\n");
  ASSERT_EQ(headway({"docs", "index", docs_.string(), "--workspace", ws_.string()}).exit_code, 0);
  const auto text = headway({"docs", "diff", "--summary", s.string(), "--workspace", ws_.string()});
  EXPECT_EQ(text.exit_code, 1) << text.output;
  EXPECT_NE(text.output.find(s.string() + ":1: [memory.md:L2 \"448 bytes\"] moved: now "
                                          "[memory.md:L4 \"448 bytes\"]\n"),
            std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find(s.string() + ":2: [memory.md:L3] changed: the cited lines, as they "
                                          "were, are no longer in the file\n"),
            std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find(": 3 citations: 1 unchanged, 1 moved, 1 changed\n"), std::string::npos)
      << text.output;
  const auto j = json_of(
      headway({"docs", "diff", "--summary", s.string(), "--workspace", ws_.string(), "--json"}));
  ASSERT_EQ(j["citations"].size(), 3u);
  EXPECT_EQ(j["citations"][0]["move"], "moved");
  EXPECT_EQ(j["citations"][0]["now"], "[memory.md:L4 \"448 bytes\"]");
  EXPECT_EQ(j["citations"][0]["first"], 4);
  EXPECT_EQ(j["citations"][1]["move"], "changed");
  EXPECT_EQ(j["citations"][2]["move"], "unchanged");

  // --update rewrites the moved citation in the summary; the changed one still needs a look.
  const auto update =
      headway({"docs", "diff", "--summary", s.string(), "--update", "--workspace", ws_.string()});
  EXPECT_EQ(update.exit_code, 1) << update.output;
  EXPECT_NE(update.output.find(": 1 moved citation rewritten with their new lines\n"),
            std::string::npos)
      << update.output;
  EXPECT_EQ(read_test_file(s),
            "- The tile holds 448 bytes [memory.md:L4 \"448 bytes\"].\n"
            "- DMA moves 64 bytes per cycle [memory.md:L3].\n"
            "- 32 lanes [ops.html:L2]\n");
  const auto checked =
      json_of(headway({"check-citations", s.string(), "--docs", docs_.string(), "--json"}));
  EXPECT_EQ(checked["citations"][0]["verdict"], "supported-by-text");
  EXPECT_EQ(checked["citations"][1]["verdict"], "number-mismatch");
  const auto alone = headway({"docs", "diff", "--update", "--workspace", ws_.string()});
  EXPECT_EQ(alone.exit_code, 2) << alone.output;
  EXPECT_EQ(alone.output, "headway: --update needs --summary FILE\n");

  // Index again without a change: every citation is unchanged, exit 0.
  ASSERT_EQ(headway({"docs", "index", docs_.string(), "--workspace", ws_.string()}).exit_code, 0);
  const auto again =
      headway({"docs", "diff", "--summary", s.string(), "--workspace", ws_.string()});
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find(": 3 citations: 3 unchanged\n"), std::string::npos) << again.output;
}

TEST_F(OnboardCli, OfflineChecksTheBuiltInSummaryAndKeepsStoredFacts) {
  {
    auto ws = store::Workspace::open(ws_);
    ASSERT_TRUE(ws.ok()) << ws.error().message;
    store_fact(ws.value(),
               {kReadBandwidth, current_toolchain_id(ws.value()), 9.5, "GB/s", 1.0, "test", ""});
  }
  const auto r = headway({"onboard", "--keep-facts", "--workspace", ws_.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The workspace's target's built-in summary, as onboarding stored it: every citation checked.
  const size_t cites =
      parse_summary(read_test_file(ws_ / ".headway/knowledge/summary.md")).citation_count();
  EXPECT_GT(cites, 0u);
  EXPECT_NE(
      r.output.find(fmt::format("citations: {} citations: {} supported-by-text\n", cites, cites)),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("agent passes: skipped (no agent configured)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("facts: 1 kept from an earlier measurement"), std::string::npos)
      << r.output;
  EXPECT_TRUE(fs::exists(ws_ / ".headway/knowledge/cheatsheet.md"));
}

TEST_F(OnboardCli, BadDocsOrSummaryExitTwoAndWriteNothing) {
  const auto no_docs =
      headway({"onboard", "--docs", (tmp_.path() / "nope").string(), "--workspace", ws_.string()});
  EXPECT_EQ(no_docs.exit_code, 2) << no_docs.output;
  EXPECT_NE(no_docs.output.find("does not exist"), std::string::npos) << no_docs.output;
  const auto png = headway({"onboard", "--docs", docs_.string(), "--summary",
                            (docs_ / "logo.png").string(), "--workspace", ws_.string()});
  EXPECT_EQ(png.exit_code, 2) << png.output;
  EXPECT_NE(png.output.find("is not text"), std::string::npos) << png.output;
  EXPECT_FALSE(fs::exists(ws_ / ".headway/knowledge"));
}

}  // namespace
}  // namespace headway::knowledge
