#include "targets/cpu/whole_readings.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace headway::cpu {
namespace {

namespace fs = std::filesystem;

class WholeReadings : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("headway-whole-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path object(const std::string& name, const std::string& bytes) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  fs::path dir_;
};

TEST_F(WholeReadings, AKeyIsTheObjectsBytesTheKernelsLayoutAndTheCoreMode) {
  const KernelContract& attn = *builtin_kernel("attn_out");
  const KernelContract& qkv = *builtin_kernel("qkv");
  const auto a = whole_reading_key(attn, object("a.so", "code one"), false);
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, *whole_reading_key(attn, object("copy.so", "code one"), false))
      << "the same bytes at another path are the same object";
  EXPECT_NE(*a, *whole_reading_key(attn, object("b.so", "code two"), false));
  EXPECT_NE(*a, *whole_reading_key(qkv, object("a.so", "code one"), false));
  EXPECT_NE(*a, *whole_reading_key(attn, object("a.so", "code one"), true));
  EXPECT_FALSE(whole_reading_key(attn, dir_ / "missing.so", false));
}

TEST_F(WholeReadings, TheLongestReadingCheckedWholeIsRemembered) {
  const auto key = whole_reading_key(*builtin_kernel("attn_out"),
                                     object("remembered.so", "only this test's bytes"), false);
  ASSERT_TRUE(key);
  EXPECT_EQ(checked_whole_length(*key), 0);
  record_checked_whole(*key, 8);
  EXPECT_EQ(checked_whole_length(*key), 8);
  record_checked_whole(*key, 1);
  EXPECT_EQ(checked_whole_length(*key), 8) << "a shorter reading covers less, not more";
  record_checked_whole(*key, 16);
  EXPECT_EQ(checked_whole_length(*key), 16);
  WholeReadingKey other = *key;
  other.one_core = true;
  EXPECT_EQ(checked_whole_length(other), 0);
}

}  // namespace
}  // namespace headway::cpu
