#pragma once
// What a command-target candidate changes in the user's kernel repository, and the scratch copy
// it is built in. A candidate source is either the whole text of the kernel's file, or a bundle:
// lines "// headway-file: PATH" (in the kernel language's comment or in `//`) each start the full
// text of one repository file; lines before the first such line open the first file (so a design
// library's "#define P_X v" lines, put in front of a design, land in its file). Every file a
// candidate writes must match one of the manifest's editable globs; anything else rejects the
// candidate before it is built.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "targets/kernel_language.h"

namespace headway::command {

struct CandidateFile {
  std::string path;  // relative to the repository
  std::string text;
};

// The files `source` writes: a bundle's files, else {default_file, source}. Errors (one line):
// a path outside the repository (absolute, or with ".."), a file no editable glob matches.
Result<std::vector<CandidateFile>> candidate_files(std::string_view source,
                                                   const std::string& default_file,
                                                   const std::vector<std::string>& editable,
                                                   const targets::KernelLanguage& language = {});

// The kernel a candidate names with a line "// headway-kernel: NAME" (such lines belong to no
// file), or empty. Tells the commands which kernel a shared file's candidate is for.
std::string candidate_kernel(std::string_view source, const targets::KernelLanguage& language = {});

// fnmatch(3) of a repository-relative path against a glob ("*" crosses "/").
bool glob_matches(const std::string& glob, const std::string& path);

// Copies the repository `from` into `to` (created), leaving out .git and build outputs
// (target/, build/). Throws std::filesystem::filesystem_error on I/O failure.
void copy_repository(const std::filesystem::path& from, const std::filesystem::path& to);

// Writes the candidate's files into a copy of the repository, creating their folders. Throws
// std::runtime_error (common/file_io.h) when a file cannot be written.
void write_files(const std::filesystem::path& root, const std::vector<CandidateFile>& files);

}  // namespace headway::command
