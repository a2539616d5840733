#include "kernels/shared_buffers.h"

#include <stdexcept>

namespace headway {

BufferLayout::BufferLayout(const std::vector<RegionSpec>& specs) {
  for (const auto& s : specs) {
    const bool input = s.role == RegionRole::kInput;
    size_t& end = input ? input_bytes : writable_bytes;
    offset.push_back(end);
    in_inputs.push_back(input);
    end += round_up_to_page(s.bytes);
  }
}

SharedBuffers::SharedBuffers(std::vector<RegionSpec> specs, SharedMemory::Pages large_inputs)
    : specs_(std::move(specs)), layout_(specs_) {
  // Large inputs (weights) on 2 MiB pages where the kernel allows: a kernel streaming them, and
  // headway patching scattered lines of them, then miss the TLB once per 2 MiB, not per 4 KiB.
  constexpr size_t kLargeInputBytes = size_t{4} << 20;
  input_memory_ = std::make_unique<SharedMemory>(
      "headway-inputs", layout_.input_bytes,
      layout_.input_bytes >= kLargeInputBytes ? large_inputs : SharedMemory::Pages::kSmall);
  writable_memory_ = std::make_unique<SharedMemory>("headway-outputs", layout_.writable_bytes);
  inputs_ = input_memory_->data();
  writable_ = writable_memory_->data();
}

SharedBuffers::SharedBuffers(std::vector<RegionSpec> specs, std::byte* inputs, std::byte* writable)
    : specs_(std::move(specs)), layout_(specs_), inputs_(inputs), writable_(writable) {}

size_t SharedBuffers::index_of(std::string_view name) const {
  for (size_t i = 0; i < specs_.size(); ++i) {
    if (specs_[i].name == name) return i;
  }
  throw std::logic_error("no kernel region named " + std::string(name));
}

}  // namespace headway
