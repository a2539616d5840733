#include "knowledge/docs_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "knowledge/test_files.h"
#include "store/test_temp_dir.h"

namespace headway::knowledge {
namespace {

namespace fs = std::filesystem;

class CorpusIndex : public ::testing::Test {
 protected:
  void SetUp() override {
    docs_ = tmp_.path() / "docs";
    write_test_file(docs_, "a.md", "# A\nThe tile is 448 bytes.\n");
    write_test_file(docs_, "b.html", "<p>one</p><p>two</p>");
    write_test_file(docs_, "c.txt", "unchanged\n");
    auto ws = store::Workspace::create(tmp_.path() / "ws");
    ASSERT_TRUE(ws.ok()) << ws.error().message;
    ws_.emplace(std::move(ws).value());
  }
  Indexing index(const std::string& at) {
    auto corpus = read_corpus(docs_);
    EXPECT_TRUE(corpus.ok());
    auto ix = index_corpus(*ws_, corpus.value(), at);
    if (!ix) throw std::runtime_error(ix.error().message);
    return std::move(ix).value();
  }
  std::string log_text() const {
    std::ifstream in(manifest_log_path(ws_->root()));
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

  store::TestTempDir tmp_;
  fs::path docs_;
  std::optional<store::Workspace> ws_;
};

TEST_F(CorpusIndex, FirstIndexStoresTextsAndManifest) {
  auto none = latest_indexing(*ws_);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.value().has_value());

  const Indexing ix = index("2025-01-01T00:00:00Z");
  EXPECT_FALSE(ix.previous.has_value());
  EXPECT_TRUE(ix.record.previous.empty());
  EXPECT_EQ(ix.diff.added.size(), 3u);
  ASSERT_EQ(ix.manifest.files.size(), 3u);
  EXPECT_EQ(ws_->artifacts().get(ix.manifest.files[1].artifact), "one\ntwo\n")
      << "HTML stored reduced";
  EXPECT_EQ(ws_->artifacts().get(ix.manifest.files[0].artifact), "# A\nThe tile is 448 bytes.\n");
  auto stored = load_manifest(ws_->artifacts(), ix.record.manifest);
  ASSERT_TRUE(stored.ok()) << stored.error().message;
  EXPECT_EQ(to_json(stored.value()), to_json(ix.manifest));

  const auto line = nlohmann::json::parse(log_text());
  EXPECT_EQ(line["manifest"], ix.record.manifest);
  EXPECT_TRUE(line["previous"].is_null());
  EXPECT_EQ(line["indexed_at"], "2025-01-01T00:00:00Z");
}

TEST_F(CorpusIndex, ReindexAfterChangingOneFileShowsExactlyThatChange) {
  const Indexing first = index("t1");
  write_test_file(docs_, "a.md", "# A\nThe tile is 512 bytes.\n");
  const Indexing second = index("t2");
  EXPECT_EQ(second.record.previous, first.record.manifest);
  EXPECT_EQ(second.diff.changed, std::vector<std::string>{"a.md"});
  EXPECT_TRUE(second.diff.added.empty());
  EXPECT_TRUE(second.diff.removed.empty());

  auto latest = latest_indexing(*ws_);
  ASSERT_TRUE(latest.ok()) << latest.error().message;
  ASSERT_TRUE(latest.value().has_value());
  EXPECT_EQ(latest.value()->record.manifest, second.record.manifest);
  EXPECT_EQ(latest.value()->diff.changed, std::vector<std::string>{"a.md"});

  fs::remove(docs_ / "c.txt");
  write_test_file(docs_, "d.md", "new\n");
  const Indexing third = index("t3");
  EXPECT_EQ(third.diff.added, std::vector<std::string>{"d.md"});
  EXPECT_EQ(third.diff.removed, std::vector<std::string>{"c.txt"});
  EXPECT_TRUE(third.diff.changed.empty());

  auto records = read_manifest_log(ws_->root());
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records.value().size(), 3u);
  EXPECT_EQ(records.value()[2].previous, second.record.manifest);
}

TEST_F(CorpusIndex, TornLastLineIsIgnoredAndCutByTheNextIndex) {
  const Indexing first = index("t1");
  {
    std::ofstream out(manifest_log_path(ws_->root()), std::ios::app);
    out << "{\"manifest\":\"abc";
  }
  auto records = read_manifest_log(ws_->root());
  ASSERT_TRUE(records.ok()) << records.error().message;
  EXPECT_EQ(records.value().size(), 1u);
  const Indexing second = index("t2");
  EXPECT_EQ(second.record.previous, first.record.manifest);
  const std::string text = log_text();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_EQ(text.find("abc\""), std::string::npos);
}

TEST_F(CorpusIndex, CorruptCompleteLineIsAnError) {
  fs::create_directories(manifest_log_path(ws_->root()).parent_path());
  std::ofstream(manifest_log_path(ws_->root())) << "not json\n";
  auto records = read_manifest_log(ws_->root());
  ASSERT_FALSE(records.ok());
  EXPECT_NE(records.error().message.find("line 1"), std::string::npos) << records.error().message;
}

TEST(CorpusIndexTime, TimestampShape) {
  const std::string t = utc_timestamp_now();
  ASSERT_EQ(t.size(), 20u) << t;
  EXPECT_EQ(t[4], '-');
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t.back(), 'Z');
}

}  // namespace
}  // namespace headway::knowledge
