#pragma once
// The memory a kernel call works on: every argument region of one kernel laid out in a single
// shared anonymous mapping, so that a forked runner process and the checking process see the
// same bytes without copies.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace headway {

enum class RegionRole {
  kInput,   // read-only for the kernel
  kOutput,  // fully written by the kernel
  kInOut,   // read, then fully written
  kCache,   // rows of row_bytes; the kernel writes only the rows the contract names
};

struct RegionSpec {
  std::string name;
  size_t bytes = 0;
  RegionRole role = RegionRole::kInput;
  size_t row_bytes = 0;  // kCache only
};

class SharedBuffers {
 public:
  // Maps one MAP_SHARED anonymous region holding every spec, each 4 KiB aligned.
  // Throws std::runtime_error when the mapping fails.
  explicit SharedBuffers(std::vector<RegionSpec> specs);
  ~SharedBuffers();
  SharedBuffers(const SharedBuffers&) = delete;
  SharedBuffers& operator=(const SharedBuffers&) = delete;

  const std::vector<RegionSpec>& specs() const { return specs_; }
  size_t index_of(std::string_view name) const;  // throws std::logic_error for an unknown name
  std::span<std::byte> bytes(size_t region) { return {base_ + offsets_[region], specs_[region].bytes}; }
  std::span<const std::byte> bytes(size_t region) const {
    return {base_ + offsets_[region], specs_[region].bytes};
  }
  template <typename T>
  std::span<T> as(std::string_view name) {
    auto b = bytes(index_of(name));
    return {reinterpret_cast<T*>(b.data()), b.size() / sizeof(T)};
  }
  template <typename T>
  std::span<const T> as(std::string_view name) const {
    auto b = bytes(index_of(name));
    return {reinterpret_cast<const T*>(b.data()), b.size() / sizeof(T)};
  }

 private:
  std::vector<RegionSpec> specs_;
  std::vector<size_t> offsets_;
  std::byte* base_ = nullptr;
  size_t total_ = 0;
};

}  // namespace headway
