#include "store/artifacts.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/file_io.h"
#include "store/sha256.h"

namespace headway::store {

namespace fs = std::filesystem;

namespace {

std::atomic<uint64_t> temp_counter{0};

std::string errno_text(int err) { return std::strerror(err); }

// fsyncs a directory so that a rename or a new entry in it survives a power cut.
bool sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

Status write_all_and_sync(const fs::path& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return environment_error(fmt::format("cannot create {}: {}", path.string(), errno_text(errno)));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return environment_error(fmt::format("cannot write {}: {}", path.string(), errno_text(err)));
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return environment_error(fmt::format("cannot sync {}: {}", path.string(), errno_text(err)));
  }
  if (::close(fd) != 0)
    return environment_error(fmt::format("cannot close {}: {}", path.string(), errno_text(errno)));
  return {};
}

}  // namespace

fs::path ArtifactStore::path_of(std::string_view hash) const {
  if (!is_sha256_hex(hash))
    throw std::logic_error(fmt::format("'{}' is not an artifact hash", hash));
  return root_ / std::string(hash.substr(0, 2)) / std::string(hash);
}

Result<std::string> ArtifactStore::put(std::string_view text) const {
  std::string hash = sha256_hex(text);
  const fs::path target = path_of(hash);
  std::error_code ec;
  if (fs::is_regular_file(target, ec) && fs::file_size(target, ec) == text.size() && !ec) {
    return hash;
  }
  const fs::path shard = target.parent_path();
  const bool made = fs::create_directories(shard, ec);
  if (ec)
    return environment_error(fmt::format("cannot create {}: {}", shard.string(), ec.message()));
  if (made && (!sync_directory(root_) || !sync_directory(root_.parent_path()))) {
    return environment_error(fmt::format("cannot sync {}: {}", root_.string(), errno_text(errno)));
  }
  const fs::path temp = shard / fmt::format(".tmp-{}-{}-{}", ::getpid(), temp_counter.fetch_add(1),
                                            hash.substr(0, 16));
  if (Status written = write_all_and_sync(temp, text); !written) {
    ::unlink(temp.c_str());
    return written.error();
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return environment_error(
        fmt::format("cannot rename {} to {}: {}", temp.string(), target.string(), errno_text(err)));
  }
  if (!sync_directory(shard)) {
    return environment_error(fmt::format("cannot sync {}: {}", shard.string(), errno_text(errno)));
  }
  return hash;
}

std::optional<std::string> ArtifactStore::get(std::string_view hash) const {
  if (!is_sha256_hex(hash)) return std::nullopt;
  return read_file(path_of(hash));
}

bool ArtifactStore::contains(std::string_view hash) const {
  if (!is_sha256_hex(hash)) return false;
  std::error_code ec;
  return fs::is_regular_file(path_of(hash), ec);
}

}  // namespace headway::store
