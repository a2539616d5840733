#include "kernels/shared_buffers.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace headway {

SharedBuffers::SharedBuffers(std::vector<RegionSpec> specs) : specs_(std::move(specs)) {
  constexpr size_t kAlign = 4096;
  for (const auto& s : specs_) {
    offsets_.push_back(total_);
    total_ += (s.bytes + kAlign - 1) / kAlign * kAlign;
  }
  void* p = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw std::runtime_error("cannot map " + std::to_string(total_) +
                             " bytes of kernel buffers: " + std::strerror(errno));
  }
  base_ = static_cast<std::byte*>(p);
}

SharedBuffers::~SharedBuffers() {
  if (base_) munmap(base_, total_);
}

size_t SharedBuffers::index_of(std::string_view name) const {
  for (size_t i = 0; i < specs_.size(); ++i) {
    if (specs_[i].name == name) return i;
  }
  throw std::logic_error("no kernel region named " + std::string(name));
}

}  // namespace headway
