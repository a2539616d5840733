#include "knowledge/corpus_manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <type_traits>

#include "common/json_whole.h"
#include "store/sha256.h"

namespace headway::knowledge {

namespace {

template <typename T>
Result<T> field(const nlohmann::json& object, const char* name, const char* where) {
  if (!object.is_object() || !object.contains(name)) {
    return invalid_input(fmt::format("manifest: {} has no \"{}\"", where, name));
  }
  const nlohmann::json& value = object.at(name);
  if constexpr (std::is_integral_v<T>) {
    if (!is_whole<T>(value))
      return invalid_input(
          fmt::format("manifest: \"{}\" in {} is not a whole number", name, where));
  }
  try {
    return value.get<T>();
  } catch (const nlohmann::json::exception&) {
    return invalid_input(fmt::format("manifest: \"{}\" in {} has the wrong type", name, where));
  }
}

}  // namespace

int64_t CorpusManifest::line_count() const {
  int64_t total = 0;
  for (const auto& f : files) total += f.lines;
  return total;
}

CorpusManifest make_manifest(const Corpus& corpus, std::string indexed_at) {
  CorpusManifest m;
  m.docs_root = corpus.root.string();
  m.indexed_at = std::move(indexed_at);
  for (const auto& f : corpus.files) {
    m.files.push_back({f.path, std::string(to_string(f.kind)), f.sha256,
                       store::sha256_hex(f.text()), static_cast<int64_t>(f.lines.size())});
  }
  m.skipped = corpus.skipped;
  return m;
}

nlohmann::json to_json(const CorpusManifest& manifest) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : manifest.files) {
    files.push_back({{"path", f.path},
                     {"kind", f.kind},
                     {"sha256", f.sha256},
                     {"artifact", f.artifact},
                     {"lines", f.lines}});
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& s : manifest.skipped)
    skipped.push_back({{"path", s.path}, {"reason", s.reason}});
  return {{"docs_root", manifest.docs_root},
          {"indexed_at", manifest.indexed_at},
          {"files", files},
          {"skipped", skipped}};
}

Result<CorpusManifest> manifest_from_json(const nlohmann::json& json) {
  CorpusManifest m;
  auto root = field<std::string>(json, "docs_root", "the manifest");
  if (!root) return root.error();
  auto at = field<std::string>(json, "indexed_at", "the manifest");
  if (!at) return at.error();
  m.docs_root = root.value();
  m.indexed_at = at.value();
  if (!json.contains("files") || !json["files"].is_array())
    return invalid_input("manifest: no \"files\" array");
  for (const auto& f : json["files"]) {
    auto path = field<std::string>(f, "path", "a file");
    if (!path) return path.error();
    const std::string where = fmt::format("file {}", path.value());
    auto kind = field<std::string>(f, "kind", where.c_str());
    auto sha = field<std::string>(f, "sha256", where.c_str());
    auto artifact = field<std::string>(f, "artifact", where.c_str());
    auto lines = field<int64_t>(f, "lines", where.c_str());
    if (!kind) return kind.error();
    if (!sha) return sha.error();
    if (!artifact) return artifact.error();
    if (!lines) return lines.error();
    m.files.push_back({path.value(), kind.value(), sha.value(), artifact.value(), lines.value()});
  }
  if (json.contains("skipped")) {
    if (!json["skipped"].is_array()) return invalid_input("manifest: \"skipped\" is not an array");
    for (const auto& s : json["skipped"]) {
      auto path = field<std::string>(s, "path", "a skipped file");
      if (!path) return path.error();
      auto reason = field<std::string>(s, "reason", "a skipped file");
      if (!reason) return reason.error();
      m.skipped.push_back({path.value(), reason.value()});
    }
  }
  std::sort(
      m.files.begin(), m.files.end(),
      [](const CorpusManifestEntry& a, const CorpusManifestEntry& b) { return a.path < b.path; });
  return m;
}

CorpusDiff diff(const CorpusManifest& old, const CorpusManifest& now) {
  std::map<std::string, const CorpusManifestEntry*> before;
  for (const auto& f : old.files) before[f.path] = &f;
  CorpusDiff d;
  for (const auto& f : now.files) {
    const auto it = before.find(f.path);
    if (it == before.end()) {
      d.added.push_back(f.path);
    } else {
      if (it->second->sha256 != f.sha256) {
        d.changed.push_back(f.path);
      } else if (it->second->artifact != f.artifact) {
        d.reduced.push_back(f.path);
      }
      before.erase(it);
    }
  }
  for (const auto& [path, sha] : before) d.removed.push_back(path);
  std::sort(d.added.begin(), d.added.end());
  std::sort(d.changed.begin(), d.changed.end());
  std::sort(d.reduced.begin(), d.reduced.end());
  return d;
}

nlohmann::json to_json(const CorpusDiff& d) {
  return {
      {"added", d.added}, {"removed", d.removed}, {"changed", d.changed}, {"reduced", d.reduced}};
}

}  // namespace headway::knowledge
