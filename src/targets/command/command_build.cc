#include "targets/command/command_build.h"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "store/sha256.h"
#include "targets/command/candidate_files.h"
#include "targets/command/command_runner.h"
#include "targets/error_diagnostics.h"

namespace headway::command {

namespace fs = std::filesystem;
using targets::BuildOutcome;

BuildOutcome build_in_pack(const PackManifest& m, const std::string& toolchain_id,
                           const std::string& source, const fs::path& cache_dir) {
  BuildOutcome out;
  const auto start = std::chrono::steady_clock::now();
  const auto since_start = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const std::string id = store::sha256_hex(toolchain_id + '\n' + source).substr(0, 24);
  const fs::path dir = cache_dir / "command" / id;
  if (fs::exists(dir / kBuiltMarker)) {
    const auto meta =
        nlohmann::json::parse(read_file(dir / kBuiltMarker).value_or(""), nullptr, false);
    if (meta.is_object()) {
      out.cached = true;
      out.seconds = since_start();
      if (meta.value("built", false)) {
        out.status = BuildOutcome::Status::kBuilt;
        out.artifact = {id, dir, meta};
      } else {
        out.diagnostics = meta.value("diagnostics", "");
      }
      return out;
    }
  }
  auto finish = [&](nlohmann::json meta) {
    meta["toolchain"] = toolchain_id;
    write_file(dir / kBuiltMarker, meta.dump());
    out.seconds = since_start();
    return out;
  };
  // Only the first file's name is needed for a plain source: the single kernel's file.
  const std::string default_file = m.kernels.size() == 1 ? m.kernels.begin()->second.file : "";
  auto files = candidate_files(source, default_file, m.editable, m.language);
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (!files) {
    out.diagnostics = "headway: error: rejected before the build: " + files.error().message;
    return finish({{"built", false}, {"diagnostics", out.diagnostics}});
  }
  copy_repository(m.repo, dir);
  write_files(dir, files.value());
  // The kernel whose file the candidate writes: the commands learn it from HEADWAY_KERNEL.
  // A "headway-kernel:" marker names it; else the kernel whose file the candidate writes.
  std::vector<std::pair<std::string, std::string>> env;
  if (auto named = m.kernels.find(candidate_kernel(source, m.language)); named != m.kernels.end()) {
    env = {{"HEADWAY_KERNEL", named->first}, {"HEADWAY_ENTRY", named->second.entry}};
  }
  for (const auto& f : files.value()) {
    for (const auto& [name, k] : m.kernels) {
      if (k.file == f.path && env.empty())
        env = {{"HEADWAY_KERNEL", name}, {"HEADWAY_ENTRY", k.entry}};
    }
  }
  const CommandSpec& build = *m.command("build");
  const ProcessResult r = run_command(m, build, {dir, {}, env});
  if (!r.ok()) {
    out.diagnostics = r.output.empty() || r.timed_out
                          ? fmt::format("headway: error: the build command {}\n{}",
                                        describe_failure(r, build.timeout_seconds), r.output)
                          : r.output;
    return finish({{"built", false}, {"diagnostics", out.diagnostics}});
  }
  nlohmann::json meta = {{"built", true}};
  if (!env.empty()) meta["kernel"] = env.front().second;
  if (const CommandSpec* cost = m.command("static_cost")) {
    const ProcessResult c = run_command(m, *cost, {dir, {}, env});
    Result<double> v = invalid_input("");
    if (!c.ok()) {
      v = invalid_input(fmt::format("the static_cost command {}: {}",
                                    describe_failure(c, cost->timeout_seconds), excerpt(c.output)));
    } else if (!cost->parser->file.empty()) {
      v = cost->parser->number(read_file(dir / cost->parser->file).value_or(""));
    } else {
      v = cost->parser->number(c.output);
    }
    if (v) {
      meta["static_cost"] = v.value();
    } else {
      meta["static_cost_error"] = "the static_cost output does not parse: " + v.error().message;
    }
  }
  out.status = BuildOutcome::Status::kBuilt;
  out.artifact = {id, dir, meta};
  return finish(meta);
}

}  // namespace headway::command
