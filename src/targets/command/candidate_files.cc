#include "targets/command/candidate_files.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include "common/file_io.h"

namespace headway::command {

namespace fs = std::filesystem;
using targets::marker_line;
using targets::marker_value;

namespace {
constexpr std::string_view kFileMarker = "headway-file";
constexpr std::string_view kKernelMarker = "headway-kernel";

bool inside_repository(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  for (const auto& part : fs::path(path)) {
    if (part == "..") return false;
  }
  return true;
}
}  // namespace

std::string candidate_kernel(std::string_view source, const targets::KernelLanguage& language) {
  size_t pos = 0;
  while (pos < source.size()) {
    size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) end = source.size();
    if (auto kernel = marker_value(source.substr(pos, end - pos), language, kKernelMarker))
      return *kernel;
    pos = end + 1;
  }
  return "";
}

bool glob_matches(const std::string& glob, const std::string& path) {
  return fnmatch(glob.c_str(), path.c_str(), 0) == 0;
}

Result<std::vector<CandidateFile>> candidate_files(std::string_view source,
                                                   const std::string& default_file,
                                                   const std::vector<std::string>& editable,
                                                   const targets::KernelLanguage& language) {
  std::vector<CandidateFile> files;
  std::string preamble;  // lines before the first marker: they open the first file
  size_t pos = 0;
  bool bundle = false;
  while (pos <= source.size()) {
    size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) end = source.size();
    const std::string_view line = source.substr(pos, end - pos);
    if (marker_value(line, language, kKernelMarker)) {
      // not part of any file
    } else if (auto path = marker_value(line, language, kFileMarker)) {
      files.push_back({std::move(*path), bundle ? "" : preamble});
      bundle = true;
    } else if (!bundle) {
      preamble.append(line);
      if (end < source.size()) preamble += '\n';
    } else {
      files.back().text.append(line);
      if (end < source.size()) files.back().text += '\n';
    }
    pos = end + 1;
  }
  if (!bundle) {
    if (default_file.empty()) {
      return invalid_input(
          fmt::format("the candidate names no file: start each file with a line '{}'",
                      marker_line(language, kFileMarker, "PATH")));
    }
    files = {{default_file, std::string(source)}};
  }
  for (const auto& f : files) {
    if (!inside_repository(f.path)) {
      return invalid_input(fmt::format(
          "the candidate writes '{}', which is not a path inside the repository", f.path));
    }
    bool allowed = false;
    for (const auto& g : editable) allowed |= glob_matches(g, f.path);
    if (!allowed) {
      std::string globs;
      for (const auto& g : editable) globs += (globs.empty() ? "" : ", ") + g;
      return invalid_input(fmt::format(
          "the candidate changes {}, which is not among the files a candidate may change ({})",
          f.path, globs));
    }
  }
  return files;
}

void copy_repository(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (auto it = fs::recursive_directory_iterator(from); it != fs::recursive_directory_iterator();
       ++it) {
    const fs::path rel = fs::relative(it->path(), from);
    const std::string first = rel.begin()->string();
    if (first == ".git" || first == "target" || first == "build") {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory()) {
      fs::create_directories(to / rel);
    } else {
      fs::copy(it->path(), to / rel,
               fs::copy_options::overwrite_existing | fs::copy_options::copy_symlinks);
    }
  }
}

void write_files(const fs::path& root, const std::vector<CandidateFile>& files) {
  for (const auto& f : files) {
    const fs::path p = root / f.path;
    write_file_creating_folders(p, f.text);
  }
}

}  // namespace headway::command
