#include "knowledge/head_export.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/file_io.h"
#include "common/git.h"

namespace headway::knowledge {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCommitKey = "repository.commit";
constexpr const char* kPathKey = "repository.path";
constexpr const char* kExportsKey = "exports";

// The evidence as comment lines of the kernel language, then a blank line.
std::string evidence_comment(const targets::KernelLanguage& language, const std::string& evidence) {
  std::string out;
  std::istringstream lines(evidence);
  for (std::string line; std::getline(lines, line);)
    out += language.comment + (line.empty() ? "" : " " + line) + "\n";
  return out + "\n";
}

// A staging folder inside `to`, removed when it goes out of scope.
class Staging {
 public:
  explicit Staging(const fs::path& to)
      : dir_(to / fmt::format(".headway-export-{}", static_cast<long>(getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Staging() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

// Moves each staged file (a path relative to `from`) to the same path under `to`, refusing
// before any move when a destination exists.
Status place(const fs::path& from, const std::vector<fs::path>& files, const fs::path& to,
             std::vector<fs::path>* written) {
  for (const auto& f : files) {
    if (fs::exists(to / f))
      return conflict(
          fmt::format("{} exists: export writes no file over another (move it, or "
                      "export --to another folder)",
                      (to / f).string()));
  }
  for (const auto& f : files) {
    fs::create_directories((to / f).parent_path());
    fs::rename(from / f, to / f);
    written->push_back(fs::absolute(to / f));
  }
  return {};
}

// `to` made (a failure is an environment error naming it) and absolute.
Result<fs::path> folder(const fs::path& to) {
  std::error_code error;
  fs::create_directories(to, error);
  if (error || !fs::is_directory(to))
    return environment_error(fmt::format("cannot make the folder {}: {}", to.string(),
                                         error ? error.message() : "not a folder"));
  if (access(to.c_str(), W_OK) != 0)
    return environment_error(fmt::format("cannot write into {}", to.string()));
  return fs::absolute(to);
}

}  // namespace

std::optional<std::string> record_repository_commit(store::Workspace& ws,
                                                    const targets::Target& target) {
  // The target's first kernel: a built-in one, or a command target's own.
  const auto kernels = target.kernels(KernelCatalog());
  const KernelContract* kernel = kernels.empty() ? nullptr : kernels.front();
  if (!kernel) return std::nullopt;
  Result<targets::Target::SourceFiles> files = not_found("");
  try {
    files = target.source_files(*kernel, target.baseline_source(*kernel));
  } catch (const std::exception&) {
    return std::nullopt;  // a target that cannot say its baseline has no repository to record
  }
  if (!files || files->repository.empty() || !is_git_work_tree(files->repository))
    return std::nullopt;
  const auto commit = run_git(files->repository, {"rev-parse", "HEAD"});
  if (!commit) return std::nullopt;  // a repository with no commit yet
  ws.set_meta(kCommitKey, commit.value());
  ws.set_meta(kPathKey, files->repository.string());
  return commit.value();
}

std::optional<std::string> recorded_repository_commit(store::Workspace& ws) {
  return ws.meta(kCommitKey);
}

Result<ExportedFiles> export_files(const targets::Target& target,
                                   const std::vector<HeadToExport>& heads, const fs::path& to) {
  auto root = folder(to);
  if (!root) return root.error();
  const targets::KernelLanguage language = target.kernel_language();
  Staging staging(root.value());
  std::vector<fs::path> staged;
  std::vector<size_t> first_of_head;
  for (const HeadToExport& head : heads) {
    auto files = target.source_files(*head.kernel, head.source);
    if (!files) return files.error();
    first_of_head.push_back(staged.size());
    for (const auto& [path, text] : files->files) {
      const fs::path rel = files->repository.empty()
                               ? fs::path(path)
                               : fs::path(std::string(head.kernel->name())) / path;
      fs::create_directories((staging.dir() / rel).parent_path());
      write_file(staging.dir() / rel,
                 evidence_comment(language, head.subject + "\n\n" + head.evidence) + text);
      staged.push_back(rel);
    }
  }
  ExportedFiles out;
  if (auto placed = place(staging.dir(), staged, root.value(), &out.written); !placed)
    return placed.error();
  for (const size_t i : first_of_head)
    if (i < out.written.size()) out.first_of_head.push_back(out.written[i]);
  return out;
}

Result<PatchSeries> export_patches(const targets::Target& target,
                                   const std::vector<HeadToExport>& heads,
                                   const std::string& base_commit, const fs::path& to) {
  if (heads.empty()) return invalid_input("no head to export");
  auto first = target.source_files(*heads.front().kernel, heads.front().source);
  if (!first) return first.error();
  const fs::path repo = first->repository;
  if (repo.empty())
    return invalid_input(
        fmt::format("the {} target builds in no repository of yours: export with --format files",
                    target.name()));
  auto dirty = run_git(repo, {"status", "--porcelain"});
  if (!dirty) return dirty.error();
  if (!dirty->empty())
    return conflict(
        fmt::format("{} has uncommitted changes; commit or stash them, then export:\n{}",
                    repo.string(), dirty.value()));
  auto root = folder(to);
  if (!root) return root.error();
  Staging staging(root.value());
  const fs::path clone = staging.dir() / "repo";
  for (const auto& [dir, args] :
       {std::pair{staging.dir(), std::vector<std::string>{"clone", "--quiet", "--no-checkout",
                                                          repo.string(), "repo"}},
        std::pair{clone, std::vector<std::string>{"checkout", "--quiet", "-b", "headway-export",
                                                  base_commit}}}) {
    if (auto done = run_git(dir, args); !done) return done.error();
  }
  for (const HeadToExport& head : heads) {
    auto files = target.source_files(*head.kernel, head.source);
    if (!files) return files.error();
    for (const auto& [path, text] : files->files) {
      fs::create_directories((clone / path).parent_path());
      write_file(clone / path, text);
    }
    const fs::path message = staging.dir() / "message";
    write_file(message, head.subject + "\n\n" + head.evidence + "\n");
    for (const auto& args :
         {std::vector<std::string>{"add", "-A"},
          std::vector<std::string>{"commit", "--quiet", "-F", message.string()}}) {
      if (auto done = run_git(clone, args); !done) return done.error();
    }
  }
  const fs::path patches = staging.dir() / "patches";
  if (auto done = run_git(
          clone, {"format-patch", "--quiet", "-o", patches.string(), base_commit + "..HEAD"});
      !done)
    return done.error();
  std::vector<fs::path> staged;  // by name: they go to `to` itself
  for (const auto& entry : fs::directory_iterator(patches))
    staged.push_back(entry.path().filename());
  std::sort(staged.begin(), staged.end());
  PatchSeries out;
  out.base_commit = base_commit;
  if (auto placed = place(patches, staged, root.value(), &out.patches); !placed)
    return placed.error();
  const auto commits = run_git(clone, {"rev-list", "--reverse", base_commit + "..HEAD"});
  if (!commits) return commits.error();
  std::istringstream listed(commits.value());
  for (std::string line; std::getline(listed, line);)
    if (!line.empty()) out.commits.push_back(line);
  const auto now = run_git(repo, {"rev-parse", "HEAD"});
  if (!now) return now.error();
  out.repository_head = now.value();
  if (out.repository_head != base_commit) {
    std::set<std::string> failing;
    for (const auto& patch : out.patches) {
      const auto applies = run_git(repo, {"apply", "--check", patch.string()});
      if (applies) continue;
      // git names each file it cannot apply: "error: patch failed: PATH:LINE",
      // "error: PATH: does not exist in index" or "error: PATH: patch does not apply".
      std::istringstream lines(applies.error().message);
      for (std::string line; std::getline(lines, line);) {
        for (const char* marker : {"patch failed: ", "error: "}) {
          const auto at = line.find(marker);
          if (at == std::string::npos) continue;
          std::string file = line.substr(at + std::string(marker).size());
          file = file.substr(0, file.find(':'));
          if (!file.empty() && file.find(' ') == std::string::npos) failing.insert(file);
          break;
        }
      }
    }
    out.not_applying.assign(failing.begin(), failing.end());
  }
  return out;
}

void record_exports(store::Workspace& ws, const std::vector<ExportRecord>& records) {
  std::map<std::string, nlohmann::json> by_kernel;
  const auto keep = [&](const ExportRecord& r) {
    by_kernel[r.kernel] = {{"kernel", r.kernel}, {"node", r.node},       {"commit", r.commit},
                           {"path", r.path},     {"subject", r.subject}, {"evidence", r.evidence}};
  };
  for (const ExportRecord& r : exported_heads(ws)) keep(r);
  for (const ExportRecord& r : records) keep(r);
  nlohmann::json all = nlohmann::json::array();
  for (auto& [kernel, j] : by_kernel) all.push_back(std::move(j));
  ws.set_meta(kExportsKey, all.dump());
}

std::vector<ExportRecord> exported_heads(store::Workspace& ws) {
  std::vector<ExportRecord> out;
  const auto text = ws.meta(kExportsKey);
  if (!text) return out;
  const auto all = nlohmann::json::parse(*text, nullptr, false);
  if (!all.is_array()) return out;
  for (const auto& j : all) {
    if (!j.is_object()) continue;
    out.push_back({j.value("kernel", ""), j.value("node", int64_t{0}), j.value("commit", ""),
                   j.value("path", ""), j.value("subject", ""), j.value("evidence", "")});
  }
  return out;
}

}  // namespace headway::knowledge
