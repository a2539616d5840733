// Huge-page files: a real helper process, namespace and tmpfs.
#include "common/huge_page_file.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "common/shared_memory.h"

namespace headway {
namespace {

// The kernel's setting for tmpfs mounts: "deny" or "force" override every mount's huge= option.
std::string shmem_setting() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/shmem_enabled");
  std::string all;
  std::getline(in, all);
  const auto open = all.find('[');
  const auto close = all.find(']');
  return open == std::string::npos || close == std::string::npos
             ? ""
             : all.substr(open + 1, close - open - 1);
}

TEST(HugePageFile, IsSizedToWholeHugePagesAndSharedBetweenMappings) {
  Result<int> fd = huge_page_file(3 * kHugePageBytes + 1);
  if (!fd) GTEST_SKIP() << fd.error().message;  // no user namespaces here
  struct stat st {};
  ASSERT_EQ(fstat(*fd, &st), 0);
  EXPECT_EQ(static_cast<size_t>(st.st_size), 4 * kHugePageBytes);
  EXPECT_EQ(st.st_nlink, 0u) << "the file must be unlinked";
  auto* a = static_cast<unsigned char*>(
      mmap(nullptr, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0));
  auto* b = static_cast<unsigned char*>(mmap(nullptr, st.st_size, PROT_READ, MAP_SHARED, *fd, 0));
  ASSERT_NE(a, MAP_FAILED);
  ASSERT_NE(b, MAP_FAILED);
  a[kHugePageBytes + 5] = 42;
  EXPECT_EQ(b[kHugePageBytes + 5], 42);
  EXPECT_EQ(b[0], 0);
  munmap(a, st.st_size);
  munmap(b, st.st_size);
  close(*fd);
}

TEST(HugePageFile, ItsPagesAreHugeUnlessTheKernelForbids) {
  const std::string setting = shmem_setting();
  if (setting.empty() || setting == "deny")
    GTEST_SKIP() << "this kernel gives tmpfs no huge pages (" << setting << ")";
  SharedMemory memory("huge-test", 8 * kHugePageBytes, SharedMemory::Pages::kHugeWherePossible);
  if (!memory.small_pages_reason().empty() && memory.huge_page_share() == 0.0 &&
      memory.small_pages_reason().find("namespace") != std::string::npos) {
    GTEST_SKIP() << memory.small_pages_reason();
  }
  EXPECT_EQ(memory.size(), 8 * kHugePageBytes);
  EXPECT_GT(memory.huge_page_share(), 0.99) << memory.small_pages_reason();
  EXPECT_TRUE(memory.small_pages_reason().empty()) << memory.small_pages_reason();
  // A runner maps it from the read-only descriptor, on huge pages too.
  const int ro = memory.open_read_only();
  ASSERT_GE(ro, 0);
  void* view = mmap(nullptr, memory.size(), PROT_READ, MAP_SHARED | MAP_POPULATE, ro, 0);
  close(ro);
  ASSERT_NE(view, MAP_FAILED);
  memory.data()[7] = std::byte{9};
  EXPECT_EQ(static_cast<const std::byte*>(view)[7], std::byte{9});
  EXPECT_GT(huge_page_share(view, memory.size()), 0.99);
  munmap(view, memory.size());
}

TEST(HugePageFile, SmallPagesAreReportedAsSmall) {
  SharedMemory memory("small-test", 8 * kHugePageBytes);
  EXPECT_EQ(memory.huge_page_share(), 0.0);
  EXPECT_TRUE(memory.small_pages_reason().empty());
  EXPECT_EQ(huge_page_share(memory.data(), memory.size()), 0.0);
  std::vector<char> heap(1 << 20);
  EXPECT_EQ(huge_page_share(heap.data(), heap.size()), 0.0);
  EXPECT_EQ(huge_page_share(memory.data(), 0), 0.0);
}

}  // namespace
}  // namespace headway
