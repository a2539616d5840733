#include "knowledge/docs_index.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "store/sha256.h"

namespace headway::knowledge {

namespace fs = std::filesystem;

namespace {

std::string errno_text() { return std::strerror(errno); }

// An open file descriptor, closed (and its flock released) on destruction.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

Result<std::string> read_all(int fd, const fs::path& path) {
  std::string text;
  char buffer[65536];
  off_t offset = 0;
  while (true) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return environment_error(fmt::format("cannot read {}: {}", path.string(), errno_text()));
    }
    if (n == 0) return text;
    text.append(buffer, static_cast<size_t>(n));
    offset += n;
  }
}

Status write_all(int fd, std::string_view text, const fs::path& path) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return environment_error(fmt::format("cannot write {}: {}", path.string(), errno_text()));
    }
    done += static_cast<size_t>(n);
  }
  return {};
}

}  // namespace

fs::path manifest_log_path(const fs::path& workspace_root) {
  return workspace_root / ".headway" / "knowledge" / "docs-manifests.jsonl";
}

Result<std::vector<IndexingRecord>> parse_manifest_log(std::string_view text,
                                                       const fs::path& path) {
  std::vector<IndexingRecord> records;
  size_t start = 0;
  int line_number = 0;
  while (true) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) break;
    ++line_number;
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const auto bad = [&](std::string_view why) {
      return environment_error(fmt::format("{} line {}: {}", path.string(), line_number, why));
    };
    const auto json = nlohmann::json::parse(line, nullptr, false);
    if (json.is_discarded() || !json.is_object()) return bad("not a JSON object");
    if (!json.contains("manifest") || !json["manifest"].is_string() ||
        !store::is_sha256_hex(json["manifest"].get<std::string>())) {
      return bad("no manifest hash");
    }
    IndexingRecord record;
    record.manifest = json["manifest"].get<std::string>();
    if (json.contains("previous") && json["previous"].is_string())
      record.previous = json["previous"].get<std::string>();
    if (json.contains("indexed_at") && json["indexed_at"].is_string()) {
      record.indexed_at = json["indexed_at"].get<std::string>();
    }
    if (json.contains("docs_root") && json["docs_root"].is_string()) {
      record.docs_root = json["docs_root"].get<std::string>();
    }
    records.push_back(std::move(record));
  }
  return records;
}

Result<std::vector<IndexingRecord>> read_manifest_log(const fs::path& workspace_root) {
  const fs::path path = manifest_log_path(workspace_root);
  const int raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (raw < 0) {
    if (errno == ENOENT) return std::vector<IndexingRecord>{};
    return environment_error(fmt::format("cannot open {}: {}", path.string(), errno_text()));
  }
  Fd fd(raw);
  auto text = read_all(fd.get(), path);
  if (!text) return text.error();
  return parse_manifest_log(text.value(), path);
}

Result<CorpusManifest> load_manifest(const store::ArtifactStore& artifacts, std::string_view hash) {
  const auto text = artifacts.get(hash);
  if (!text)
    return environment_error(fmt::format("manifest {} is not in the workspace's artifacts", hash));
  const auto json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded()) return environment_error(fmt::format("manifest {} is not JSON", hash));
  return manifest_from_json(json);
}

Result<Indexing> index_corpus(const store::Workspace& workspace, const Corpus& corpus,
                              std::string indexed_at) {
  const store::ArtifactStore& artifacts = workspace.artifacts();
  Indexing out;
  out.manifest = make_manifest(corpus, std::move(indexed_at));
  for (size_t i = 0; i < corpus.files.size(); ++i) {
    auto stored = artifacts.put(corpus.files[i].text());
    if (!stored) return stored.error();
    if (stored.value() != out.manifest.files[i].artifact) {
      throw std::logic_error("artifact hash differs from the manifest's");
    }
  }
  auto manifest_hash = artifacts.put(to_json(out.manifest).dump(1) + "\n");
  if (!manifest_hash) return manifest_hash.error();

  const fs::path path = manifest_log_path(workspace.root());
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    return environment_error(
        fmt::format("cannot create {}: {}", path.parent_path().string(), ec.message()));
  const int raw = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (raw < 0)
    return environment_error(fmt::format("cannot open {}: {}", path.string(), errno_text()));
  Fd fd(raw);
  if (::flock(fd.get(), LOCK_EX) != 0) {
    return environment_error(fmt::format("cannot lock {}: {}", path.string(), errno_text()));
  }
  auto text = read_all(fd.get(), path);
  if (!text) return text.error();
  const size_t complete =
      text.value().rfind('\n') == std::string::npos ? 0 : text.value().rfind('\n') + 1;
  if (complete < text.value().size() && ::ftruncate(fd.get(), static_cast<off_t>(complete)) != 0) {
    return environment_error(
        fmt::format("cannot cut the torn last line of {}: {}", path.string(), errno_text()));
  }
  auto records = parse_manifest_log(std::string_view(text.value()).substr(0, complete), path);
  if (!records) return records.error();

  out.record.manifest = manifest_hash.value();
  out.record.indexed_at = out.manifest.indexed_at;
  out.record.docs_root = out.manifest.docs_root;
  if (!records.value().empty()) {
    out.record.previous = records.value().back().manifest;
    auto previous = load_manifest(artifacts, out.record.previous);
    if (!previous) return previous.error();
    out.previous = std::move(previous).value();
  }
  out.diff = diff(out.previous.value_or(CorpusManifest{}), out.manifest);

  const nlohmann::json line = {
      {"manifest", out.record.manifest},
      {"previous",
       out.record.previous.empty() ? nlohmann::json(nullptr) : nlohmann::json(out.record.previous)},
      {"indexed_at", out.record.indexed_at},
      {"docs_root", out.record.docs_root}};
  if (::lseek(fd.get(), 0, SEEK_END) < 0) {
    return environment_error(fmt::format("cannot seek {}: {}", path.string(), errno_text()));
  }
  if (auto written = write_all(fd.get(), line.dump() + "\n", path); !written)
    return written.error();
  if (::fsync(fd.get()) != 0)
    return environment_error(fmt::format("cannot sync {}: {}", path.string(), errno_text()));
  return out;
}

Result<std::optional<Indexing>> latest_indexing(const store::Workspace& workspace) {
  auto records = read_manifest_log(workspace.root());
  if (!records) return records.error();
  if (records.value().empty()) return std::optional<Indexing>{};
  Indexing out;
  out.record = records.value().back();
  auto manifest = load_manifest(workspace.artifacts(), out.record.manifest);
  if (!manifest) return manifest.error();
  out.manifest = std::move(manifest).value();
  if (!out.record.previous.empty()) {
    auto previous = load_manifest(workspace.artifacts(), out.record.previous);
    if (!previous) return previous.error();
    out.previous = std::move(previous).value();
  }
  out.diff = diff(out.previous.value_or(CorpusManifest{}), out.manifest);
  return std::optional<Indexing>(std::move(out));
}

std::string utc_timestamp_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

}  // namespace headway::knowledge
