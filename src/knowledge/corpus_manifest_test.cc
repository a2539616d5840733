#include "knowledge/corpus_manifest.h"

#include <gtest/gtest.h>

#include "store/sha256.h"

namespace headway::knowledge {
namespace {

Corpus corpus_of(const std::vector<std::pair<std::string, std::string>>& files) {
  Corpus c;
  c.root = "/docs";
  for (const auto& [path, text] : files) {
    auto f = make_corpus_file(path, DocKind::kMarkdown, text);
    if (!f) throw std::logic_error(f.error().message);
    c.files.push_back(std::move(f).value());
  }
  return c;
}

TEST(CorpusManifest, DescribesEveryFile) {
  Corpus c = corpus_of({{"a.md", "one\r\ntwo\r\n"}, {"b.md", "x"}});
  c.skipped.push_back({"logo.png", "unsupported extension '.png'"});
  const CorpusManifest m = make_manifest(c, "2025-01-31T12:00:00Z");
  EXPECT_EQ(m.docs_root, "/docs");
  ASSERT_EQ(m.files.size(), 2u);
  EXPECT_EQ(m.files[0].path, "a.md");
  EXPECT_EQ(m.files[0].kind, "markdown");
  EXPECT_EQ(m.files[0].sha256, store::sha256_hex("one\r\ntwo\r\n"));
  EXPECT_EQ(m.files[0].artifact, store::sha256_hex("one\ntwo\n"));
  EXPECT_EQ(m.files[0].lines, 2);
  EXPECT_EQ(m.line_count(), 3);

  auto back = manifest_from_json(nlohmann::json::parse(to_json(m).dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(to_json(back.value()), to_json(m));
  EXPECT_EQ(back.value().skipped.size(), 1u);
}

TEST(CorpusManifest, RejectsBrokenJson) {
  auto no_files = manifest_from_json({{"docs_root", "/d"}, {"indexed_at", "t"}});
  ASSERT_FALSE(no_files.ok());
  EXPECT_NE(no_files.error().message.find("files"), std::string::npos);
  auto bad_lines = manifest_from_json({{"docs_root", "/d"},
                                       {"indexed_at", "t"},
                                       {"files",
                                        {{{"path", "a.md"},
                                          {"kind", "markdown"},
                                          {"sha256", "x"},
                                          {"artifact", "y"},
                                          {"lines", "many"}}}}});
  ASSERT_FALSE(bad_lines.ok());
  EXPECT_NE(bad_lines.error().message.find("\"lines\" in file a.md"), std::string::npos)
      << bad_lines.error().message;
  // Numbers that are not whole, or too large for a count (the fuzzer's 1.1e45 once reached an
  // undefined float-to-integer conversion), are refused by name.
  for (const char* lines : {"1.5", "1111111111111111111111111111111111111111111112",
                            "18446744073709551615", "-1e300"}) {
    const auto j = nlohmann::json::parse(
        std::string(R"({"docs_root": "/d", "indexed_at": "t", "files": [{"path": "a.md", )"
                    R"("kind": "markdown", "sha256": "x", "artifact": "y", "lines": )") +
        lines + "}]}");
    const auto m = manifest_from_json(j);
    ASSERT_FALSE(m.ok()) << lines;
    EXPECT_NE(m.error().message.find("\"lines\" in file a.md is not a whole number"),
              std::string::npos)
        << m.error().message;
  }
  EXPECT_TRUE(manifest_from_json(
                  nlohmann::json::parse(
                      R"({"docs_root": "/d", "indexed_at": "t", "files": [{"path": "a.md", )"
                      R"("kind": "markdown", "sha256": "x", "artifact": "y", "lines": 12}]})"))
                  .ok());
}

TEST(CorpusDiff, AddedRemovedChanged) {
  const CorpusManifest old =
      make_manifest(corpus_of({{"a.md", "1"}, {"b.md", "2"}, {"c.md", "3"}}), "t0");
  const CorpusManifest now =
      make_manifest(corpus_of({{"a.md", "1"}, {"b.md", "2 changed"}, {"d.md", "4"}}), "t1");
  const CorpusDiff d = diff(old, now);
  EXPECT_EQ(d.added, std::vector<std::string>{"d.md"});
  EXPECT_EQ(d.removed, std::vector<std::string>{"c.md"});
  EXPECT_EQ(d.changed, std::vector<std::string>{"b.md"});
  EXPECT_FALSE(d.empty());
  EXPECT_TRUE(diff(now, now).empty());
  EXPECT_EQ(diff(CorpusManifest{}, now).added.size(), 3u);
  EXPECT_EQ(to_json(d),
            nlohmann::json::parse(
                R"({"added":["d.md"],"removed":["c.md"],"changed":["b.md"],"reduced":[]})"));
}

TEST(CorpusDiff, SameBytesReducedToOtherTextIsReduced) {
  const CorpusManifest old = make_manifest(corpus_of({{"a.md", "1"}, {"b.md", "2"}}), "t0");
  CorpusManifest now = old;
  now.files[1].artifact = store::sha256_hex("2\nnew reduction\n");
  const CorpusDiff d = diff(old, now);
  EXPECT_EQ(d.reduced, std::vector<std::string>{"b.md"});
  EXPECT_TRUE(d.changed.empty());
  EXPECT_FALSE(d.empty());
  now.files[1].sha256 = store::sha256_hex("other bytes");
  EXPECT_EQ(diff(old, now).changed, std::vector<std::string>{"b.md"});
  EXPECT_TRUE(diff(old, now).reduced.empty());
}

}  // namespace
}  // namespace headway::knowledge
