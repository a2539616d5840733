#include "common/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/huge_page_file.h"

namespace headway {

namespace {

// Under a hypervisor a fresh page is the host's work as well as the guest's, and the host backs
// several vCPUs' pages at once: two threads populate a 1 GiB block of 2 MiB pages 2-3x as fast as
// one (docs/PERFORMANCE.md, "Input sets").
constexpr size_t kParallelPopulateBytes = size_t{32} << 20;
constexpr unsigned kPopulatingThreads = 4;

// Makes every page of [begin, begin + bytes) present and writable: MADV_POPULATE_WRITE where the
// kernel has it (5.14), else a write to each page (the memory is fresh, so writing a zero keeps
// it as it was).
void populate(std::byte* begin, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  if (madvise(begin, bytes, MADV_POPULATE_WRITE) == 0) return;
#endif
  auto* page = reinterpret_cast<volatile std::byte*>(begin);
  for (size_t at = 0; at < bytes; at += kPageBytes) page[at] = std::byte{0};
}

void populate_in_parallel(std::byte* base, size_t bytes) {
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, kPopulatingThreads);
  const size_t chunk = (bytes / threads + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  std::vector<std::thread> others;
  for (size_t at = chunk; at < bytes; at += chunk)
    others.emplace_back(populate, base + at, std::min(chunk, bytes - at));
  populate(base, std::min(chunk, bytes));
  for (auto& t : others) t.join();
}

}  // namespace

SharedMemory::SharedMemory(const std::string& name, size_t bytes, Pages pages)
    : size_(round_up_to_page(bytes)) {
  if (size_ == 0) size_ = kPageBytes;
  asked_huge_ = pages == Pages::kHugeWherePossible;
  if (asked_huge_) {
    size_ = (size_ + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    Result<int> huge = huge_page_file(size_);
    if (huge) {
      fd_ = *huge;
    } else {
      huge_page_file_error_ = huge.error().message;
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
  // (under a hypervisor, microseconds a page). A large block is populated by several threads.
  const bool parallel = size_ >= kParallelPopulateBytes;
  void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED | (parallel ? 0 : MAP_POPULATE),
                 fd_, 0);
  if (p == MAP_FAILED) {
    const int e = errno;
    close(fd_);
    throw std::runtime_error("cannot map " + std::to_string(size_) +
                             " bytes of shared memory: " + std::strerror(e));
  }
  base_ = static_cast<std::byte*>(p);
  if (parallel) populate_in_parallel(base_, size_);
}

double SharedMemory::huge_page_share() const {
  std::call_once(measured_, [&] {
    if (asked_huge_) huge_share_ = headway::huge_page_share(base_, size_);
  });
  return huge_share_;
}

std::string SharedMemory::small_pages_reason() const {
  if (!huge_page_file_error_.empty()) return huge_page_file_error_;
  if (asked_huge_ && huge_page_share() == 0.0)
    return "the kernel backed the huge-page tmpfs with small pages";
  return {};
}

SharedMemory::~SharedMemory() {
  if (base_) munmap(base_, size_);
  if (fd_ >= 0) close(fd_);
}

int SharedMemory::open_read_only() const {
  return open(("/proc/self/fd/" + std::to_string(fd_)).c_str(), O_RDONLY);
}

}  // namespace headway
