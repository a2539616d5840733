// `headway bench --peers` as a user runs it: what it refuses before it measures anything.
#include <gtest/gtest.h>

#include "common/subprocess.h"

namespace headway {
namespace {

ProcessResult headway_bench(std::vector<std::string> args) {
  args.insert(args.begin(), {HEADWAY_BINARY, "bench"});
  return run_process(args, 120.0);
}

TEST(BenchPeers, NeedsTheCpuTarget) {
  const auto r = headway_bench({"--peers", "--target", "sim", "--kernel", "qkv"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--peers times libraries on this machine's CPU"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("not 'sim'"), std::string::npos) << r.output;
}

TEST(BenchPeers, SourceNeedsAKernel) {
  const auto r = headway_bench({"--peers", "--source", "whatever.cc"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--source needs --kernel"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace headway
