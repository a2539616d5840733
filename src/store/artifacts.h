#pragma once
// Content-addressed artifacts (sources, build logs, ...) on disk: the text whose SHA-256 is H
// lives at ROOT/H[0..2)/H. A file at that path is always complete: put() writes a temporary
// file in the same directory, fsyncs it, renames it into place and fsyncs the directory, so a
// process killed at any moment leaves either no artifact or the whole one (and at worst a
// hidden ".tmp-*" file, which get() never returns).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace headway::store {

class ArtifactStore {
 public:
  // root need not exist yet; put() creates it.
  explicit ArtifactStore(std::filesystem::path root) : root_(std::move(root)) {}

  // Stores text and returns its hash (64 lower-case hex digits). The same text always gives the
  // same hash and is written once; storing it again only checks that the file is there. Durable
  // when it returns. An error when the filesystem refuses (permissions, disk full).
  Result<std::string> put(std::string_view text) const;
  // The text stored under hash; nullopt when there is none or hash is not a SHA-256 hex string.
  std::optional<std::string> get(std::string_view hash) const;
  bool contains(std::string_view hash) const;
  // Where the artifact with this hash lives. Requires is_sha256_hex(hash) (logic_error otherwise).
  std::filesystem::path path_of(std::string_view hash) const;
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

}  // namespace headway::store
