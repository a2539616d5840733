#include "agents/command_agent.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <system_error>
#include <utility>

#include "common/file_io.h"
#include "common/subprocess.h"

namespace headway::agents {

namespace fs = std::filesystem;

namespace {

// A directory made with mkdtemp, removed with everything in it on destruction (directories the
// command made unwritable are made writable first).
class TempDir {
 public:
  TempDir(const fs::path& parent, const std::string& prefix) {
    std::string pattern = (parent / (prefix + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw AgentError(
          AgentError::Kind::kCommand,
          fmt::format("cannot make a directory in {}: {}", parent.string(), std::strerror(errno)));
    }
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
    if (!ec) return;
    for (auto it = fs::recursive_directory_iterator(path_, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) {
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
      }
    }
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

fs::path default_parent() {
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir != nullptr && *tmpdir != '\0' ? fs::path(tmpdir) : fs::path("/tmp");
}

// Writes a file of the scratch copy, creating its folder; an AgentError when it cannot.
void write_scratch_file(const fs::path& path, const std::string& bytes) {
  try {
    write_file_creating_folders(path, bytes);
  } catch (const std::runtime_error& e) {
    throw AgentError(AgentError::Kind::kCommand, e.what());
  }
}

std::string with_stderr(std::string message, const std::string& err_tail) {
  if (err_tail.empty()) return message + " (no stderr)";
  return message + "; stderr ends:\n" + err_tail;
}

}  // namespace

std::string request_path_problem(const std::string& path) {
  if (path.empty()) return "an empty file name";
  if (path.find('\0') != std::string::npos) return fmt::format("file name {:?} holds a NUL", path);
  const fs::path p(path);
  if (p.is_absolute() || path.front() == '/') return fmt::format("absolute path {:?}", path);
  for (const auto& part : p) {
    if (part == "..") return fmt::format("path {:?} has a \"..\" component", path);
  }
  if (!p.has_filename() || p.filename() == ".") {
    return fmt::format("path {:?} names a directory", path);
  }
  return "";
}

CommandAgent::CommandAgent(CommandAgentOptions options) : options_(std::move(options)) {
  if (options_.scratch_parent.empty()) options_.scratch_parent = default_parent();
}

AgentReply CommandAgent::complete(const AgentRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  for (const auto& [path, bytes] : request.files) {
    if (std::string problem = request_path_problem(path); !problem.empty()) {
      throw AgentError(AgentError::Kind::kBadRequest, "request file: " + problem);
    }
  }
  const TempDir prompt_dir(options_.scratch_parent, "headway-prompt");
  const TempDir scratch(options_.scratch_parent, "headway-cmd");
  const fs::path prompt_file = prompt_dir.path() / "prompt.txt";
  write_scratch_file(prompt_file, request.system.empty()
                                      ? request.prompt
                                      : request.system + "\n\n" + request.prompt);
  for (const auto& [path, bytes] : request.files) write_scratch_file(scratch.path() / path, bytes);

  CommandSpec spec;
  spec.argv = {"/bin/sh", "-c", options_.command};
  spec.cwd = scratch.path().string();
  spec.stdin_path = prompt_file.string();
  spec.environment = {{"HEADWAY_ROLE", request.role},
                      {"HEADWAY_PROMPT_FILE", prompt_file.string()}};
  spec.timeout_seconds = options_.timeout_seconds;
  spec.stdout_limit = options_.stdout_limit;
  spec.stderr_tail = options_.stderr_tail;
  CommandResult run = run_command(spec);

  const std::string what = fmt::format("command agent {:?}", options_.command);
  if (!run.started) {
    throw AgentError(AgentError::Kind::kCommand, fmt::format("{}: {}", what, run.error));
  }
  if (run.timed_out) {
    throw AgentError(
        AgentError::Kind::kTimeout,
        with_stderr(fmt::format("{} ran past its limit of {:g} s", what, options_.timeout_seconds),
                    run.err_tail));
  }
  if (run.signal != 0) {
    throw AgentError(AgentError::Kind::kCommand,
                     with_stderr(fmt::format("{} was killed by {}", what, signal_name(run.signal)),
                                 run.err_tail));
  }
  if (run.exit_code != 0) {
    throw AgentError(
        AgentError::Kind::kCommand,
        with_stderr(fmt::format("{} exited with code {}", what, run.exit_code), run.err_tail));
  }

  AgentReply reply;
  for (const auto& [path, bytes] : request.files) {
    std::optional<std::string> now = read_file(scratch.path() / path);
    if (!now) {
      throw AgentError(
          AgentError::Kind::kMalformed,
          fmt::format("{} deleted request file {:?} (or left it unreadable)", what, path));
    }
    if (*now != bytes) reply.files.emplace(path, std::move(*now));
  }
  reply.text = std::move(run.out);
  reply.truncated = run.out_cut;
  reply.model = options_.command;
  reply.latency_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return reply;
}

}  // namespace headway::agents
