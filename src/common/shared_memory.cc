#include "common/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/huge_page_file.h"

namespace headway {

SharedMemory::SharedMemory(const std::string& name, size_t bytes, Pages pages)
    : size_(round_up_to_page(bytes)) {
  if (size_ == 0) size_ = kPageBytes;
  if (pages == Pages::kHugeWherePossible) {
    size_ = (size_ + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    Result<int> huge = huge_page_file(size_);
    if (huge) {
      fd_ = *huge;
    } else {
      small_pages_reason_ = huge.error().message;
    }
  }
  if (fd_ < 0) fd_ = memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd_ < 0)
    throw std::runtime_error("cannot create shared memory: " + std::string(std::strerror(errno)));
  if (ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
    const int e = errno;
    close(fd_);
    throw std::runtime_error("cannot size shared memory to " + std::to_string(size_) +
                             " bytes: " + std::strerror(e));
  }
  // Populated at once: one call allocates every page, where writing them would fault on each
  // (under a hypervisor, microseconds a page).
  void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd_, 0);
  if (p == MAP_FAILED) {
    const int e = errno;
    close(fd_);
    throw std::runtime_error("cannot map " + std::to_string(size_) +
                             " bytes of shared memory: " + std::strerror(e));
  }
  base_ = static_cast<std::byte*>(p);
  if (pages == Pages::kHugeWherePossible) {
    huge_share_ = headway::huge_page_share(base_, size_);
    if (huge_share_ == 0.0 && small_pages_reason_.empty())
      small_pages_reason_ = "the kernel backed the huge-page tmpfs with small pages";
  }
}

SharedMemory::~SharedMemory() {
  if (base_) munmap(base_, size_);
  if (fd_ >= 0) close(fd_);
}

int SharedMemory::open_read_only() const {
  return open(("/proc/self/fd/" + std::to_string(fd_)).c_str(), O_RDONLY);
}

}  // namespace headway
