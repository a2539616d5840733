#pragma once
// Heads going home (headway export): each exported kernel's head written where the user works,
// with the evidence that made it head, either as files (each opening with the evidence as a
// comment in the kernel language) or, for a target that builds in copies of the user's git
// repository (the command target), as a patch series against the commit the workspace was made
// from, one commit per kernel, `git am` applies.
//
// Nothing is half written: every file is made in a staging folder inside `to` and moved into
// place only once all of them are; a file already at a destination is an error before any.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "kernels/contract.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::knowledge {

// Records the HEAD commit of the target's repository (Target::source_files of its first kernel's
// baseline) in the workspace, where the target has one and it is a git work tree: what a patch
// series is made against. Returns the commit, or nullopt when there is none to record.
std::optional<std::string> record_repository_commit(store::Workspace& ws,
                                                    const targets::Target& target);
// The commit record_repository_commit kept, or nullopt.
std::optional<std::string> recorded_repository_commit(store::Workspace& ws);

struct HeadToExport {
  const KernelContract* kernel = nullptr;
  int64_t node = 0;      // the head's node
  std::string source;    // the head's source as the Design Tree keeps it
  std::string subject;   // one line: the commit's subject, the evidence's first line
  std::string evidence;  // lines, without comment markers
};

struct ExportedFiles {
  std::vector<std::filesystem::path> written;        // absolute, in the order written
  std::vector<std::filesystem::path> first_of_head;  // each head's first file, in order
};

// Writes each head's files into `to` (created if missing): a target with a repository of the
// user's writes each file at its path under `to`/<kernel>/, others one file `to`/<kernel><ext>;
// each opens with the evidence, one comment line each in `language`.
Result<ExportedFiles> export_files(const targets::Target& target,
                                   const std::vector<HeadToExport>& heads,
                                   const std::filesystem::path& to);

struct PatchSeries {
  std::string base_commit;                     // what the series applies to
  std::vector<std::filesystem::path> patches;  // absolute, one per head, in order
  std::vector<std::string> commits;            // the commit of each patch, in order
  // Where the repository has moved on from base_commit: the files of the series that do not
  // apply to its HEAD now (empty when all do or it has not moved).
  std::string repository_head;
  std::vector<std::string> not_applying;
};

// One commit per head on top of `base_commit` of the target's repository (its evidence the
// commit message's body), written by `git format-patch` into `to`. Errors: no repository, a
// repository with uncommitted changes, git's own failures.
Result<PatchSeries> export_patches(const targets::Target& target,
                                   const std::vector<HeadToExport>& heads,
                                   const std::string& base_commit, const std::filesystem::path& to);

// What one export wrote of one kernel's head, kept in the workspace so that the report can name
// it (report --format md, for a pull request).
struct ExportRecord {
  std::string kernel;
  int64_t node = 0;
  std::string commit;  // the commit of its patch (patch format); empty for files
  std::string path;    // its patch, or its first file
  std::string subject;
  std::string evidence;
};
// Keeps `records`, each in place of the kernel's earlier one.
void record_exports(store::Workspace& ws, const std::vector<ExportRecord>& records);
// Every kernel's latest export, by kernel name.
std::vector<ExportRecord> exported_heads(store::Workspace& ws);

}  // namespace headway::knowledge
