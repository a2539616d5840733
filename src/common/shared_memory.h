#pragma once
// Memory backed by a memfd: mapped here, and handed to a runner process as a descriptor, so that
// both see the same physical pages. A runner that must only read gets a read-only descriptor:
// a mapping made from it cannot be made writable (mprotect fails with EACCES).
#include <cstddef>
#include <mutex>
#include <string>

namespace headway {

class SharedMemory {
 public:
  enum class Pages {
    kSmall,              // a memfd, on the kernel's tmpfs
    kHugeWherePossible,  // a file on a tmpfs of 2 MiB pages (huge_page_file), else a memfd
  };
  // Creates `bytes` of zeroed memory (rounded up to whole pages) and maps it read-write here.
  // Throws std::runtime_error when the memfd or the mapping cannot be made.
  SharedMemory(const std::string& name, size_t bytes, Pages pages = Pages::kSmall);
  ~SharedMemory();
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;

  std::byte* data() const { return base_; }
  size_t size() const { return size_; }
  // The read-write descriptor (close-on-exec).
  int fd() const { return fd_; }
  // A new read-only descriptor of the same memory, without close-on-exec: the caller owns it.
  // -1 with errno set on failure.
  int open_read_only() const;
  // The share of the memory on 2 MiB pages: 0 for Pages::kSmall, else measured at the first
  // call and kept (a walk of /proc/self/smaps, which costs with everything this process maps,
  // tens of milliseconds in a session's process: so it is paid only where a share is wanted).
  double huge_page_share() const;
  // Why Pages::kHugeWherePossible gave small pages; empty when it did not ask or did not fail.
  std::string small_pages_reason() const;

 private:
  int fd_ = -1;
  std::byte* base_ = nullptr;
  size_t size_ = 0;
  bool asked_huge_ = false;
  std::string huge_page_file_error_;
  mutable std::once_flag measured_;
  mutable double huge_share_ = 0.0;
};

inline constexpr size_t kPageBytes = 4096;
inline size_t round_up_to_page(size_t n) { return (n + kPageBytes - 1) / kPageBytes * kPageBytes; }

}  // namespace headway
