#pragma once
// For tests: runs the built headway (HEADWAY_BINARY) as a user does, keeping its standard output
// and standard error apart, so that a test can parse stdout alone.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "store/test_temp_dir.h"

namespace headway::cli {

struct CliRun {
  int exit_code = -1;   // -1 when it did not exit normally (see `problem`)
  std::string out;      // standard output
  std::string err;      // standard error
  std::string problem;  // why it did not run or exit: empty when it did
};

inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `program args...` in cwd (empty: this process's) with stdout and stderr in separate files.
inline CliRun run_split(const std::string& program, const std::vector<std::string>& args,
                        const std::string& cwd = "", double timeout_seconds = 120.0) {
  store::TestTempDir files;
  const auto out = files.path() / "out";
  const auto err = files.path() / "err";
  std::vector<std::string> argv = {
      "sh",   "-c",         "out=$1 err=$2; shift 2; exec \"$@\" >\"$out\" 2>\"$err\"",
      "sh",   out.string(), err.string(),
      program};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult r = run_process(argv, timeout_seconds, cwd);
  CliRun run;
  run.out = file_text(out);
  run.err = file_text(err);
  if (!r.started) {
    run.problem = "did not start: " + r.error;
  } else if (r.timed_out || r.signal != 0) {
    run.problem = r.timed_out ? "timed out" : "killed by " + signal_name(r.signal);
  } else {
    run.exit_code = r.exit_code;
  }
  if (!r.output.empty()) run.problem += " (sh: " + r.output + ")";
  return run;
}

inline CliRun run_headway(const std::vector<std::string>& args, const std::string& cwd = "",
                          double timeout_seconds = 120.0) {
  return run_split(HEADWAY_BINARY, args, cwd, timeout_seconds);
}

}  // namespace headway::cli
