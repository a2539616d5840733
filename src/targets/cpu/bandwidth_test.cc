#include "targets/cpu/bandwidth.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace headway::cpu {
namespace {

TEST(ReadBandwidth, EveryThreadCountTakesItsFastestReaderAndTheProfileItsFastestCount) {
  const std::vector<std::string> names = bandwidth_reader_names();
  ASSERT_GE(names.size(), 3u);
  const BandwidthProfile profile = measure_read_bandwidth(2, 3);
  ASSERT_EQ(profile.by_threads.size(), 2u);
  EXPECT_GE(profile.buffer_bytes, 256ull << 20);
  double best = 0.0;
  for (const BandwidthAtThreads& at : profile.by_threads) {
    ASSERT_EQ(at.readers.size(), names.size());
    double fastest = 0.0;
    std::string fastest_name;
    for (size_t k = 0; k < names.size(); ++k) {
      EXPECT_EQ(at.readers[k].reader, names[k]);
      ASSERT_EQ(at.readers[k].gbps.size(), 3u);  // the warm-up pass dropped
      EXPECT_GT(at.readers[k].median_gbps, 0.0);
      if (at.readers[k].median_gbps > fastest) {
        fastest = at.readers[k].median_gbps;
        fastest_name = names[k];
      }
    }
    EXPECT_DOUBLE_EQ(at.median_gbps, fastest);
    EXPECT_EQ(at.reader, fastest_name);
    EXPECT_EQ(at.gbps.size(), 3u);
    best = std::max(best, at.median_gbps);
  }
  EXPECT_DOUBLE_EQ(profile.best_gbps, best);
  EXPECT_DOUBLE_EQ(profile.by_threads[static_cast<size_t>(profile.best_threads - 1)].median_gbps,
                   best);
  for (const std::string& name : names) EXPECT_NE(profile.method.find(name), std::string::npos);
}

}  // namespace
}  // namespace headway::cpu
