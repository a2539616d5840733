#include "common/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace headway {

namespace {

// Closes a descriptor when it goes, keeping errno as it was.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) {
      const int saved = errno;
      ::close(fd_);
      errno = saved;
    }
  }
  int get() const { return fd_; }
  // Closes it now; false (errno set) when the close reports an error (a delayed write failure).
  bool close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

[[noreturn]] void throw_cannot_write(const std::filesystem::path& path, int error) {
  throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), std::strerror(error)));
}

}  // namespace

std::optional<std::string> read_file(const std::filesystem::path& path) {
  Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return std::nullopt;
  if (!S_ISREG(st.st_mode)) {
    errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    return std::nullopt;
  }
  std::string bytes;
  bytes.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  return bytes;
}

void write_file(const std::filesystem::path& path, std::string_view bytes) {
  Descriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
  if (fd.get() < 0) throw_cannot_write(path, errno);
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd.get(), bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_cannot_write(path, errno);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  if (!fd.close()) throw_cannot_write(path, errno);
}

void write_file_creating_folders(const std::filesystem::path& path, std::string_view bytes) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), ec.message()));
  }
  write_file(path, bytes);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  const std::filesystem::path tmp = path.string() + fmt::format(".tmp-{}", ::getpid());
  std::error_code ignored;
  try {
    write_file(tmp, bytes);
  } catch (const std::runtime_error&) {
    std::filesystem::remove(tmp, ignored);
    throw;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ignored);
    throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), ec.message()));
  }
}

}  // namespace headway
