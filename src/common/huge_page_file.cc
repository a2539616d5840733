#include "common/huge_page_file.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "common/descriptor_passing.h"

namespace headway {

namespace {

// What the child reports: the step that failed (kDone when none) and its errno.
enum Step : int32_t { kDone, kUnshare, kSetgroups, kUidMap, kGidMap, kMount, kCreate, kSize };

const char* step_name(int32_t step) {
  switch (step) {
    case kUnshare:
      return "creating a user and mount namespace";
    case kSetgroups:
      return "writing /proc/self/setgroups";
    case kUidMap:
      return "writing /proc/self/uid_map";
    case kGidMap:
      return "writing /proc/self/gid_map";
    case kMount:
      return "mounting a tmpfs with huge=always";
    case kCreate:
      return "creating a file on it";
    case kSize:
      return "sizing the file";
    default:
      return "an unknown step";
  }
}

bool write_all(const char* path, const char* text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const size_t n = std::strlen(text);
  const bool ok = write(fd, text, n) == static_cast<ssize_t>(n);
  close(fd);
  return ok;
}

struct Report {
  int32_t step = kDone;
  int32_t error = 0;
};

// The child after fork: only system calls and what was prepared before the fork.
[[noreturn]] void make_file(int channel, size_t bytes, const char* uid_map, const char* gid_map,
                            const char* mount_options) {
  Report report;
  int fd = -1;
  auto fail = [&](Step step) {
    report.step = step;
    report.error = errno;
  };
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
    fail(kUnshare);
  } else if (!write_all("/proc/self/setgroups", "deny") && errno != ENOENT) {
    fail(kSetgroups);
  } else if (!write_all("/proc/self/uid_map", uid_map)) {
    fail(kUidMap);
  } else if (!write_all("/proc/self/gid_map", gid_map)) {
    fail(kGidMap);
  } else {
    mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr);  // nothing leaves this namespace
    const char* place = nullptr;
    for (const char* dir : {"/tmp", "/dev/shm", "/run", "/mnt"}) {
      if (mount("headway-huge", dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, mount_options) ==
          0) {
        place = dir;
        break;
      }
    }
    if (!place) {
      fail(kMount);
    } else if ((fd = open(place, O_TMPFILE | O_RDWR, 0600)) < 0) {
      fail(kCreate);
    } else if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
      fail(kSize);
    }
  }
  const bool sent =
      send_with_descriptor(channel, &report, sizeof report, report.step == kDone ? fd : -1) ==
      static_cast<ssize_t>(sizeof report);
  _exit(sent ? 0 : 1);
}

}  // namespace

Result<int> huge_page_file(size_t bytes) {
  const size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  char uid_map[64];
  char gid_map[64];
  char mount_options[96];
  std::snprintf(uid_map, sizeof uid_map, "0 %u 1", static_cast<unsigned>(getuid()));
  std::snprintf(gid_map, sizeof gid_map, "0 %u 1", static_cast<unsigned>(getgid()));
  std::snprintf(mount_options, sizeof mount_options, "huge=always,size=%zu,mode=0700",
                rounded + kHugePageBytes);
  int channel[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) != 0) {
    return environment_error(std::string("cannot create a channel for a huge-page file: ") +
                             std::strerror(errno));
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(channel[0]);
    make_file(channel[1], rounded, uid_map, gid_map, mount_options);
  }
  close(channel[1]);
  if (pid < 0) {
    const int e = errno;
    close(channel[0]);
    return environment_error(std::string("cannot fork for a huge-page file: ") + std::strerror(e));
  }
  Report report{-1, 0};
  int fd = -1;
  const ssize_t got = receive_with_descriptor(channel[0], &report, sizeof report, &fd);
  close(channel[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got != static_cast<ssize_t>(sizeof report)) {
    return environment_error("the helper that makes a huge-page file ended without a report");
  }
  if (report.step != kDone || fd < 0) {
    if (fd >= 0) close(fd);
    return environment_error(std::string("cannot make a huge-page file: ") +
                             step_name(report.step) + " failed: " + std::strerror(report.error));
  }
  return fd;
}

double huge_page_share(const void* data, size_t bytes) {
  if (bytes == 0) return 0.0;
  std::ifstream smaps("/proc/self/smaps");
  const auto want = reinterpret_cast<uintptr_t>(data);
  std::string line;
  bool inside = false;
  uint64_t huge_kib = 0;
  while (std::getline(smaps, line)) {
    uintptr_t from = 0;
    uintptr_t to = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> from >> dash >> to && dash == '-') {
      if (inside) break;  // the mapping's block has been read: the kernel need walk no further
      inside = from <= want && want < to;
      continue;
    }
    if (!inside) continue;
    uint64_t kib = 0;
    for (const char* key : {"ShmemPmdMapped:", "FilePmdMapped:"}) {
      if (line.rfind(key, 0) == 0 && std::istringstream(line.substr(std::strlen(key))) >> kib)
        huge_kib += kib;
    }
  }
  return std::min(1.0, static_cast<double>(huge_kib) * 1024.0 / static_cast<double>(bytes));
}

}  // namespace headway
