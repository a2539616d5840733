#include "common/shared_memory.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace headway {
namespace {

// Pages of [data, data + bytes) the kernel holds now.
size_t resident_pages(const std::byte* data, size_t bytes) {
  std::vector<unsigned char> in(bytes / kPageBytes);
  if (mincore(const_cast<std::byte*>(data), bytes, in.data()) != 0) return 0;
  return static_cast<size_t>(
      std::count_if(in.begin(), in.end(), [](unsigned char c) { return (c & 1) != 0; }));
}

void expect_populated_zeroed_and_shared(const SharedMemory& memory) {
  EXPECT_EQ(resident_pages(memory.data(), memory.size()), memory.size() / kPageBytes)
      << "every page present when the constructor returns";
  EXPECT_TRUE(std::all_of(memory.data(), memory.data() + memory.size(),
                          [](std::byte b) { return b == std::byte{0}; }));
  // The last byte of every chunk a thread may have taken, written here, is read through a
  // second mapping of the same memory.
  const size_t last = memory.size() - 1;
  memory.data()[last] = std::byte{0x5a};
  memory.data()[memory.size() / 2] = std::byte{0xa5};
  const int fd = memory.open_read_only();
  ASSERT_GE(fd, 0);
  void* again = mmap(nullptr, memory.size(), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  ASSERT_NE(again, MAP_FAILED);
  const auto* bytes = static_cast<const std::byte*>(again);
  EXPECT_EQ(bytes[last], std::byte{0x5a});
  EXPECT_EQ(bytes[memory.size() / 2], std::byte{0xa5});
  munmap(again, memory.size());
}

TEST(SharedMemory, ASmallBlockIsPresentZeroedAndShared) {
  SharedMemory memory("test", 3 * kPageBytes + 17);
  EXPECT_EQ(memory.size(), 4 * kPageBytes);
  expect_populated_zeroed_and_shared(memory);
}

TEST(SharedMemory, ABlockPopulatedBySeveralThreadsIsPresentZeroedAndSharedToItsLastPage) {
  // Above the size that several threads populate, and not a whole number of their chunks.
  SharedMemory memory("test", (size_t{67} << 20) + 3 * kPageBytes);
  expect_populated_zeroed_and_shared(memory);
}

TEST(SharedMemory, ALargeBlockOfHugePagesIsPresentAndZeroed) {
  SharedMemory memory("test", size_t{70} << 20, SharedMemory::Pages::kHugeWherePossible);
  EXPECT_EQ(memory.size() % (size_t{2} << 20), 0u);
  expect_populated_zeroed_and_shared(memory);
  if (memory.small_pages_reason().empty()) {
    EXPECT_GT(memory.huge_page_share(), 0.99);
  }
}

}  // namespace
}  // namespace headway
