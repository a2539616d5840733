// What a process pays for its first touch of a page it maps (docs/PERFORMANCE.md, "A fresh
// process's first touch of a page").
//
// A 256 MiB memfd is written by the process; then one pass of 8-byte loads, one every 64 bytes,
// over a 16 MiB set is timed after 240 MiB of other sets went through the caches, through five
// kinds of mapping: the writer's own; a second mapping populated with MADV_POPULATE_READ (its
// first pass and a later one); a populated mapping of which one word of every page was touched
// first and every line then flushed; a populated mapping not touched; and a forked child's
// inherited mapping. Where a first touch of a page is a hypervisor exit, the first passes cost
// several times the later ones even with the page-table entries filled.
//
// With a folder as its argument the sets are a file there instead of a memfd: on a tmpfs
// mounted with huge=always they are on 2 MiB pages, as headway's input sets are where it can
// (src/common/huge_page_file.h).
//
// Build and run (x86-64 Linux, about a second):
//   g++ -std=c++20 -O2 -Wall -Wextra bench/first_touch.cc -o build/bench/first_touch
//   build/bench/first_touch [FOLDER]
// or bench/build.sh, which builds every program here.
#include <fcntl.h>
#include <immintrin.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr size_t kSet = size_t{16} << 20;
constexpr size_t kSets = 16;
uint64_t sink = 0;

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One 8-byte load every `step` bytes of [p, p + n).
uint64_t pass(const char* p, size_t n, size_t step = 64) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; i += step) s += *reinterpret_cast<const volatile uint64_t*>(p + i);
  return s;
}

// One timed pass over the set at `m` after the other 15 sets of `others` went through the caches.
double cold_pass(const char* m, const char* others) {
  for (size_t k = 1; k < kSets; ++k) sink += pass(others + k * kSet, kSet);
  const double t0 = now_ms();
  sink += pass(m, kSet);
  return now_ms() - t0;
}

// A new read-only mapping of the memfd's first set, its page-table entries filled.
const char* populated_mapping(int fd) {
  void* p = mmap(nullptr, kSet, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED || madvise(p, kSet, MADV_POPULATE_READ) != 0) {
    std::perror("mmap/madvise");
    std::exit(1);
  }
  return static_cast<const char*>(p);
}

}  // namespace

int main(int argc, char** argv) {
  const int fd = argc > 1 ? open(argv[1], O_TMPFILE | O_RDWR, 0600) : memfd_create("sets", 0);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(kSet * kSets)) != 0) {
    std::perror("memfd");
    return 1;
  }
  void* wp = mmap(nullptr, kSet * kSets, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (wp == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  char* w = static_cast<char*>(wp);
  std::memset(w, 1, kSet * kSets);
  std::printf("the writer's own mapping: %.2f ms\n", cold_pass(w, w));

  const char* r = populated_mapping(fd);
  const double first = cold_pass(r, w);
  const double later = cold_pass(r, w);
  std::printf("a new mapping, populated: first pass %.2f ms, later %.2f ms\n", first, later);

  const char* t = populated_mapping(fd);
  const double t0 = now_ms();
  sink += pass(t, kSet, 4096);  // one word of every page
  const double touch = now_ms() - t0;
  for (size_t i = 0; i < kSet; i += 64) _mm_clflush(t + i);
  _mm_mfence();
  std::printf("a new mapping, populated, every page touched (%.2f ms), flushed: %.2f ms\n", touch,
              cold_pass(t, w));

  std::printf("a new mapping, populated, not touched: %.2f ms\n",
              cold_pass(populated_mapping(fd), w));
  std::fflush(stdout);

  if (fork() == 0) {
    std::printf("a forked child's inherited mapping: %.2f ms\n", cold_pass(w, w));
    std::fflush(stdout);
    _exit(0);
  }
  wait(nullptr);
  return sink == 42 ? 1 : 0;  // keeps the loads
}
