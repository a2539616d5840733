#include "targets/cpu/whole_readings.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "common/file_io.h"
#include "common/hash.h"
#include "targets/cpu/host_abi.h"

namespace headway::cpu {

namespace {

std::mutex& memo_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<WholeReadingKey, int>& memo() {
  static std::map<WholeReadingKey, int> checked;
  return checked;
}

}  // namespace

std::optional<WholeReadingKey> whole_reading_key(const KernelContract& kernel,
                                                 const std::filesystem::path& object,
                                                 bool one_core) {
  const auto bytes = read_file(object);
  if (!bytes) return std::nullopt;
  return WholeReadingKey{std::string(kernel.name()), encode_regions(kernel.regions()),
                         hash_bytes(bytes->data(), bytes->size()), one_core};
}

int checked_whole_length(const WholeReadingKey& key) {
  std::lock_guard lock(memo_mutex());
  const auto it = memo().find(key);
  return it == memo().end() ? 0 : it->second;
}

void record_checked_whole(const WholeReadingKey& key, int length) {
  std::lock_guard lock(memo_mutex());
  int& longest = memo()[key];
  longest = std::max(longest, length);
}

}  // namespace headway::cpu
