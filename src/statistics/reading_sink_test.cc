#include "statistics/reading_sink.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace headway::statistics {
namespace {

Reading make(int pair, Arm arm, double seconds) {
  Reading r;
  r.kernel = "k";
  r.node = "n";
  r.test_id = 4;
  r.pair_index = pair;
  r.position = arm == Arm::kHead ? 0 : 1;
  r.arm = arm;
  r.start_ns = 1000 * pair;
  r.seconds = seconds;
  return r;
}

std::string temp_path(const char* name) {
  return (std::filesystem::temp_directory_path() /
          (std::string("headway_measure_") + name + "_" + std::to_string(::getpid())))
      .string();
}

TEST(MemorySink, KeepsOrder) {
  MemorySink sink;
  sink.record(make(0, Arm::kHead, 1.0));
  sink.record(make(0, Arm::kCandidate, 2.0));
  ASSERT_EQ(sink.readings().size(), 2u);
  EXPECT_EQ(sink.readings()[0].arm, Arm::kHead);
  EXPECT_EQ(sink.readings()[1].seconds, 2.0);
  sink.clear();
  EXPECT_TRUE(sink.readings().empty());
}

TEST(JsonLinesSink, WritesOneLinePerReadingAndReadsBack) {
  const std::string path = temp_path("jsonl");
  {
    auto sink = JsonLinesSink::open(path);
    ASSERT_TRUE(sink.ok()) << sink.error().message;
    sink.value()->record(make(0, Arm::kHead, 0.5));
    sink.value()->record(make(0, Arm::kCandidate, 0.25));
  }
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 2);
  auto back = read_json_lines(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back.value().size(), 2u);
  EXPECT_EQ(back.value()[0], make(0, Arm::kHead, 0.5));
  EXPECT_EQ(back.value()[1], make(0, Arm::kCandidate, 0.25));
  {
    auto sink = JsonLinesSink::open(path, /*append=*/true);
    ASSERT_TRUE(sink.ok());
    sink.value()->record(make(1, Arm::kHead, 0.75));
  }
  EXPECT_EQ(read_json_lines(path).value().size(), 3u);
  std::filesystem::remove(path);
}

TEST(JsonLinesSink, ErrorsAreClear) {
  auto sink = JsonLinesSink::open("/nonexistent-dir/x.jsonl");
  ASSERT_FALSE(sink.ok());
  EXPECT_EQ(sink.error().message, "cannot open '/nonexistent-dir/x.jsonl' for writing");
  const std::string path = temp_path("bad");
  {
    std::ofstream out(path);
    out << to_json(make(0, Arm::kHead, 1.0)).dump() << "\n\n{oops\n";
  }
  auto back = read_json_lines(path);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.error().message, path + ":3: not JSON");
  std::filesystem::remove(path);
}

TEST(TeeSink, ForwardsToAll) {
  MemorySink a;
  MemorySink b;
  TeeSink tee({&a, nullptr, &b});
  tee.record(make(2, Arm::kHead, 1.0));
  EXPECT_EQ(a.readings().size(), 1u);
  EXPECT_EQ(b.readings().size(), 1u);
}

}  // namespace
}  // namespace headway::statistics
