#include "targets/fact_names.h"

#include <fmt/format.h>

namespace headway::targets {

std::string isa_fact_name(std::string_view extension) {
  return std::string(kIsaPrefix) + std::string(extension);
}
std::string read_bandwidth_at(int threads) {
  return fmt::format("read_bandwidth.threads_{}", threads);
}
std::string fma_throughput_at(int threads) {
  return fmt::format("fma_throughput.threads_{}", threads);
}
std::string cache_size_name(int level) {
  return level == 1 ? kCacheL1d : fmt::format("cache.l{}", level);
}
std::string cache_latency_name(int level) {
  return level == 1 ? kLatencyL1d : fmt::format("latency.l{}", level);
}

}  // namespace headway::targets
