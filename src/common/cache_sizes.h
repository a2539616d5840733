#pragma once
// The sizes of this machine's data caches, as its OS reports them.
#include <cstdint>
#include <string>

namespace headway {

// Data and unified cache sizes of cpu0 as the OS reports them, 0 where it reports none: sysfs
// (/sys/devices/system/cpu/cpu0/cache/index*), else sysconf(_SC_LEVEL*_CACHE_SIZE).
struct OsCacheSizes {
  uint64_t l1d = 0, l2 = 0, l3 = 0;
  std::string source;  // "sysfs", "sysconf" or "none"
};
OsCacheSizes os_cache_sizes();

// Size of the largest cache the OS reports (os_cache_sizes), or 32 MiB when it reports none.
uint64_t last_level_cache_bytes();

}  // namespace headway
