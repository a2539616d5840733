#include "common/cache_sizes.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

namespace headway {

namespace {

// "32K", "1024K", "32M" (sysfs's form) in bytes.
uint64_t parse_size(const std::string& text) {
  if (text.empty()) return 0;
  uint64_t value = std::strtoull(text.c_str(), nullptr, 10);
  if (text.back() == 'K') value <<= 10;
  if (text.back() == 'M') value <<= 20;
  if (text.back() == 'G') value <<= 30;
  return value;
}

}  // namespace

OsCacheSizes os_cache_sizes() {
  OsCacheSizes sizes;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", index);
    std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size");
    int level = 0;
    std::string type, size;
    if (!(level_file >> level) || !(type_file >> type) || !(size_file >> size)) continue;
    if (type == "Instruction") continue;
    const uint64_t bytes = parse_size(size);
    if (level == 1) sizes.l1d = bytes;
    if (level == 2) sizes.l2 = bytes;
    if (level == 3) sizes.l3 = bytes;
  }
  if (sizes.l1d || sizes.l2 || sizes.l3) {
    sizes.source = "sysfs";
    return sizes;
  }
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && \
    defined(_SC_LEVEL3_CACHE_SIZE)
  auto conf = [](int name) {
    const long v = sysconf(name);
    return v > 0 ? static_cast<uint64_t>(v) : uint64_t{0};
  };
  sizes.l1d = conf(_SC_LEVEL1_DCACHE_SIZE);
  sizes.l2 = conf(_SC_LEVEL2_CACHE_SIZE);
  sizes.l3 = conf(_SC_LEVEL3_CACHE_SIZE);
#endif
  sizes.source = (sizes.l1d || sizes.l2 || sizes.l3) ? "sysconf" : "none";
  return sizes;
}

uint64_t last_level_cache_bytes() {
  const OsCacheSizes os = os_cache_sizes();
  const uint64_t largest = std::max({os.l1d, os.l2, os.l3});
  return largest ? largest : (32ull << 20);
}

}  // namespace headway
