#pragma once
// The memory a kernel call works on. Regions are split into two blocks: the input block (every
// kInput region) and the writable block (kOutput, kInOut and kCache regions), each region 4 KiB
// aligned inside its block. An owning SharedBuffers puts each block in shared memory (a memfd),
// so that a runner process maps the very same pages: the inputs read-only, the writable block
// read-write. A view points at blocks that someone else owns, such as one of several input sets.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/shared_memory.h"
#include "kernels/element_type.h"

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
  // What its outputs hold, for judging them (kernels/verify.h): the built-in kernels write bf16.
  ElementType element = ElementType::kBf16;
};

// Where every region lives: its block and its offset in that block.
struct BufferLayout {
  explicit BufferLayout(const std::vector<RegionSpec>& specs);
  std::vector<size_t> offset;
  std::vector<bool> in_inputs;  // true: in the input block; false: in the writable block
  size_t input_bytes = 0;       // size of the input block (whole pages)
  size_t writable_bytes = 0;    // size of the writable block (whole pages)
};

class SharedBuffers {
 public:
  // Owns a new input block and a new writable block, zeroed; a large input block on
  // `large_inputs` pages. Throws std::runtime_error when the memory cannot be had.
  explicit SharedBuffers(
      std::vector<RegionSpec> specs,
      SharedMemory::Pages large_inputs = SharedMemory::Pages::kHugeWherePossible);
  // A view of blocks laid out by BufferLayout(specs) that outlive it.
  SharedBuffers(std::vector<RegionSpec> specs, std::byte* inputs, std::byte* writable);
  SharedBuffers(const SharedBuffers&) = delete;
  SharedBuffers& operator=(const SharedBuffers&) = delete;

  const std::vector<RegionSpec>& specs() const { return specs_; }
  const BufferLayout& layout() const { return layout_; }
  size_t index_of(std::string_view name) const;  // throws std::logic_error for an unknown name
  std::span<std::byte> bytes(size_t region) { return {pointer(region), specs_[region].bytes}; }
  std::span<const std::byte> bytes(size_t region) const {
    return {pointer(region), specs_[region].bytes};
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
  std::byte* input_block() const { return inputs_; }
  std::byte* writable_block() const { return writable_; }
  // The owned blocks' memory (nullptr for a view).
  const SharedMemory* input_memory() const { return input_memory_.get(); }
  const SharedMemory* writable_memory() const { return writable_memory_.get(); }

 private:
  std::byte* pointer(size_t region) const {
    return (layout_.in_inputs[region] ? inputs_ : writable_) + layout_.offset[region];
  }
  std::vector<RegionSpec> specs_;
  BufferLayout layout_;
  std::unique_ptr<SharedMemory> input_memory_, writable_memory_;
  std::byte* inputs_ = nullptr;
  std::byte* writable_ = nullptr;
};

}  // namespace headway
