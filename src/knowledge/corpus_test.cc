#include "knowledge/corpus.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "knowledge/test_files.h"
#include "store/sha256.h"
#include "store/test_temp_dir.h"

namespace headway::knowledge {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> paths_of(const Corpus& c) {
  std::vector<std::string> out;
  for (const auto& f : c.files) out.push_back(f.path);
  return out;
}

TEST(CorpusRead, ReadsTextFilesRecursivelyAndSkipsTheRestWithReasons) {
  store::TestTempDir tmp;
  const fs::path docs = tmp.path() / "docs";
  write_test_file(docs, "intro.md", "# Intro\nA tile holds 448 bytes.\n");
  write_test_file(docs, "guide/memory.txt", "line one\r\nline two\r\n");
  write_test_file(docs, "guide/api.rst", "API\n===\n");
  write_test_file(docs, "ref/ops.html", "<h1>Ops</h1><p>dma_copy moves\n64 bytes</p>");
  write_test_file(docs, "logo.png", std::string("\x89PNG\r\n\x1a\n\0\0", 10));
  write_test_file(docs, "blob.md", std::string("text\0more", 9));
  write_test_file(docs, "latin1.txt", "caf\xE9\n");
  write_test_file(docs, "Makefile", "all:\n");
  write_test_file(docs, ".hidden.md", "secret\n");
  write_test_file(docs, ".git/config", "[core]\n");

  auto corpus = read_corpus(docs);
  ASSERT_TRUE(corpus.ok()) << corpus.error().message;
  EXPECT_EQ(paths_of(corpus.value()), (std::vector<std::string>{"guide/api.rst", "guide/memory.txt",
                                                                "intro.md", "ref/ops.html"}));
  const CorpusFile* md = corpus.value().find("intro.md");
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->kind, DocKind::kMarkdown);
  EXPECT_EQ(md->lines, (std::vector<std::string>{"# Intro", "A tile holds 448 bytes."}));
  EXPECT_EQ(md->sha256, store::sha256_hex("# Intro\nA tile holds 448 bytes.\n"));
  const CorpusFile* txt = corpus.value().find("./guide/../guide/memory.txt");
  ASSERT_NE(txt, nullptr);
  EXPECT_EQ(txt->lines, (std::vector<std::string>{"line one", "line two"}));
  EXPECT_EQ(txt->sha256, store::sha256_hex("line one\r\nline two\r\n"))
      << "the hash is of the bytes";
  EXPECT_EQ(txt->text(), "line one\nline two\n") << "the text is normalized";
  const CorpusFile* html = corpus.value().find("ref/ops.html");
  ASSERT_NE(html, nullptr);
  EXPECT_EQ(html->kind, DocKind::kHtml);
  EXPECT_EQ(html->lines, (std::vector<std::string>{"Ops", "dma_copy moves 64 bytes"}));
  EXPECT_EQ(corpus.value().line_count(), 2 + 2 + 2 + 2);

  std::map<std::string, std::string> skipped;
  for (const auto& s : corpus.value().skipped) skipped[s.path] = s.reason;
  EXPECT_EQ(skipped, (std::map<std::string, std::string>{
                         {".git", "hidden folder"},
                         {".hidden.md", "hidden file"},
                         {"Makefile", "no extension"},
                         {"blob.md", "binary (NUL byte at offset 4)"},
                         {"latin1.txt", "not UTF-8 (invalid byte at offset 3)"},
                         {"logo.png", "unsupported extension '.png'"},
                     }));
  ASSERT_NE(corpus.value().find_skipped("blob.md"), nullptr);
  EXPECT_EQ(corpus.value().find("blob.md"), nullptr);
  EXPECT_EQ(corpus.value().find("../docs/intro.md"), nullptr) << "outside the docs folder";
}

TEST(CorpusRead, OneFileReadsAsTheWholeCorpusReadsIt) {
  store::TestTempDir tmp;
  const fs::path docs = tmp.path() / "docs";
  write_test_file(docs, "ref/ops.html", "<nav>Home</nav><h1>Ops</h1><p>2<sup>8</sup> lanes</p>");
  write_test_file(docs, "logo.png", "PNG");
  write_test_file(docs, "blob.md", std::string("text\0more", 9));
  write_test_file(docs, ".hidden/a.md", "secret\n");
  auto corpus = read_corpus(docs);
  ASSERT_TRUE(corpus.ok()) << corpus.error().message;
  auto one = read_corpus_file(docs, "./ref/../ref/ops.html");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one.value().path, "ref/ops.html");
  EXPECT_EQ(one.value().lines, corpus.value().find("ref/ops.html")->lines);
  EXPECT_EQ(one.value().lines, (std::vector<std::string>{"Ops", "2^8 lanes"}));
  EXPECT_EQ(read_corpus_file(docs, "logo.png").error().message,
            "logo.png is not in the corpus: unsupported extension '.png'");
  EXPECT_EQ(read_corpus_file(docs, "blob.md").error().message,
            "blob.md is not in the corpus: " + corpus.value().find_skipped("blob.md")->reason);
  EXPECT_EQ(read_corpus_file(docs, ".hidden/a.md").error().message,
            ".hidden/a.md is not in the corpus: hidden");
  EXPECT_EQ(read_corpus_file(docs, "ref").error().message,
            "ref is not in the corpus: not a regular file");
  EXPECT_EQ(read_corpus_file(docs, "nope.md").error().message,
            "no file nope.md in " + docs.string());
  EXPECT_EQ(read_corpus_file(docs, "../x.md").error().message,
            "../x.md is outside the docs folder " + docs.string());
}

TEST(CorpusRead, MissingOrNonDirectoryDocsFolderIsAnError) {
  store::TestTempDir tmp;
  auto missing = read_corpus(tmp.path() / "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos)
      << missing.error().message;
  const fs::path file = write_test_file(tmp.path(), "file.md", "x\n");
  auto not_dir = read_corpus(file);
  ASSERT_FALSE(not_dir.ok());
  EXPECT_NE(not_dir.error().message.find("is not a directory"), std::string::npos)
      << not_dir.error().message;
}

TEST(CorpusRead, EmptyFolderAndLinks) {
  store::TestTempDir tmp;
  const fs::path docs = tmp.path() / "docs";
  fs::create_directories(docs);
  auto empty = read_corpus(docs);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty.value().files.empty());
  EXPECT_EQ(empty.value().line_count(), 0);

  write_test_file(tmp.path(), "outside/x.md", "x\n");
  fs::create_directory_symlink(tmp.path() / "outside", docs / "linked");
  fs::create_symlink(tmp.path() / "gone.md", docs / "dangling.md");
  auto linked = read_corpus(docs);
  ASSERT_TRUE(linked.ok());
  EXPECT_TRUE(linked.value().files.empty());
  ASSERT_EQ(linked.value().skipped.size(), 2u);
  EXPECT_EQ(linked.value().skipped[0].path, "dangling.md");
  EXPECT_EQ(linked.value().skipped[0].reason, "broken link");
  EXPECT_EQ(linked.value().skipped[1].reason, "link to a folder (not followed)");
}

TEST(CorpusRead, KindsByExtension) {
  DocKind kind{};
  EXPECT_TRUE(doc_kind_of("a/B.MD", &kind));
  EXPECT_EQ(kind, DocKind::kMarkdown);
  EXPECT_TRUE(doc_kind_of("x.htm", &kind));
  EXPECT_EQ(kind, DocKind::kHtml);
  EXPECT_TRUE(doc_kind_of("x.rst", &kind));
  EXPECT_EQ(kind, DocKind::kText);
  EXPECT_FALSE(doc_kind_of("x.pdf", &kind));
  EXPECT_FALSE(doc_kind_of("README", &kind));
}

}  // namespace
}  // namespace headway::knowledge
