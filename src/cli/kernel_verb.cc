// `headway kernel new|check|add|list`: kernels as data (docs/KERNELS.md, "Kernel specs").
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "common/file_io.h"
#include "kernels/declared_kernel.h"
#include "kernels/kernel_spec.h"
#include "knowledge/spec_check.h"
#include "knowledge/workspace_kernels.h"
#include "targets/design_library.h"
#include "targets/spec_designs.h"

namespace headway::cli {

namespace fs = std::filesystem;

namespace {

struct KernelArgs {
  std::string name;
  std::string spec;
  std::string dir = ".";
  std::string target = "cpu";
  std::string toolchain;
  std::string workspace;
  uint64_t seed = 1;
  bool replace = false;
  bool json = false;
};

// The scaffold: an elementwise product of two bf16 rows, which `kernel check` accepts as written.
std::string scaffold_spec(const std::string& name) {
  return fmt::format(
      R"(# {0}: out[i] = x[i] * y[i]. Edit the arguments, the reference and the baseline together;
# `headway kernel check {0}.toml` says what does not hold (docs/KERNELS.md, "Kernel specs").
name = "{0}"
summary = "elementwise product of two bf16 rows"
dims = ["N"]
reference = "{0}_reference.c"
tolerance = {{ atol = 1e-3, rtol = 1e-2 }}

[[shapes]]
name = "default"
N = 4096

[[arguments]]
name = "x"
role = "input"
type = "bf16"
shape = ["N"]
draw = {{ normal = 1.0 }}

[[arguments]]
name = "y"
role = "input"
type = "bf16"
shape = ["N"]
draw = {{ uniform = [-2.0, 2.0] }}

[[arguments]]
name = "out"
role = "output"
type = "bf16"
shape = ["N"]

[baselines]
cpu = "{0}_cpu.cc"
)",
      name);
}

std::string scaffold_reference(const std::string& name) {
  return fmt::format(R"(/* The f64 reference of {0}.toml (include/headway/headway_reference.h). */
#include "headway_reference.h"

void headway_reference(double* const* args, const int64_t* dims) {{
  const double* x = args[0];
  const double* y = args[1];
  double* out = args[2];
  for (int64_t i = 0; i < dims[0]; ++i) out[i] = x[i] * y[i];
}}
)",
                     name);
}

std::string scaffold_baseline(const std::string& name) {
  return fmt::format(R"(// The cpu baseline of {0}.toml: plain and single-threaded.
#include "headway_support.h"

typedef struct hw_{0}_args {{
  const uint16_t* x;    // input bf16 [N]
  const uint16_t* y;    // input bf16 [N]
  uint16_t* out;        // output bf16 [N]
  const int64_t* dims;  // N
}} hw_{0}_args;

extern "C" void hw_{0}(const hw_{0}_args* a) {{
  for (int64_t i = 0; i < a->dims[0]; ++i)
    a->out[i] = hw::f32_to_bf16(hw::bf16_to_f32(a->x[i]) * hw::bf16_to_f32(a->y[i]));
}}
)",
                     name);
}

int run_new(const KernelArgs& args) {
  value_or_fail(valid_kernel_name(args.name));
  if (is_builtin_kernel(args.name))
    throw UsageError(fmt::format("kernel {} is built in: choose another name", args.name));
  const fs::path dir = fs::path(args.dir) / args.name;
  const std::pair<std::string, std::string> files[] = {
      {args.name + ".toml", scaffold_spec(args.name)},
      {args.name + "_reference.c", scaffold_reference(args.name)},
      {args.name + "_cpu.cc", scaffold_baseline(args.name)},
  };
  for (const auto& [file, text] : files) {
    if (fs::exists(dir / file))
      fail_with(conflict(fmt::format("{} exists; nothing was written", (dir / file).string())));
  }
  for (const auto& [file, text] : files) write_file_creating_folders(dir / file, text);
  if (args.json) {
    const fs::path absolute = fs::absolute(dir).lexically_normal();
    nlohmann::json written = nlohmann::json::array();
    for (const auto& [file, text] : files) written.push_back((absolute / file).string());
    fmt::print("{}\n", nlohmann::json{{"kernel", args.name},
                                      {"dir", absolute.string()},
                                      {"spec", written[0]},
                                      {"files", written}}
                           .dump(2));
    return kExitOk;
  }
  fmt::print("wrote {}: {}.toml, {}_reference.c, {}_cpu.cc\n", dir.string(), args.name, args.name,
             args.name);
  return kExitOk;
}

int run_check_spec(const KernelArgs& args) {
  const knowledge::JudgedSpec judged =
      value_or_fail(knowledge::judge_spec(args.spec, args.seed, build_cache_dir()));
  const KernelSpec& spec = *judged.spec;
  auto target = target_or_throw(args.target, args.toolchain);
  value_or_fail(knowledge::check_spec_designs(judged, *target));
  // The baseline, then each design at its defaults: every one must pass at every shape set.
  const auto checks =
      value_or_fail(knowledge::check_spec_sources(judged, *target, args.seed, build_cache_dir()));
  nlohmann::json shapes = nlohmann::json::array();
  int failed = 0;
  for (const auto& kernel : judged.kernels) {
    const std::string& shape = kernel->shape_set().name;
    const bool check_only = kernel->check_only();
    nlohmann::json checked = nlohmann::json::object();
    for (const auto& c : checks) {
      if (c.shape != shape) continue;
      failed += c.outcome.correct() ? 0 : 1;
      checked[c.label] = c.outcome.description;
      if (!args.json) {
        fmt::print("{} @ {}{}: {} bytes to move; {} {}: {}\n", spec.name, shape,
                   check_only ? " (check only, never timed)" : "", kernel->bytes_to_move(),
                   args.target, c.label, c.outcome.description);
      }
    }
    shapes.push_back({{"shape", shape},
                      {"check_only", check_only},
                      {"bytes_to_move", kernel->bytes_to_move()},
                      {"checked", checked}});
  }
  if (args.json) {
    fmt::print("{}\n", nlohmann::json{{"kernel", spec.name},
                                      {"spec", spec.file.string()},
                                      {"target", args.target},
                                      {"ok", failed == 0},
                                      {"shapes", shapes}}
                           .dump(2));
  } else if (failed) {
    fmt::print("{}: {} check(s) of the baseline and designs failed\n", spec.name, failed);
  }
  return failed ? kExitNegative : kExitOk;
}

int run_add(const KernelArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  // The reference must build and judge before the spec is added: a workspace never holds one
  // that cannot.
  const knowledge::JudgedSpec judged =
      value_or_fail(knowledge::judge_spec(args.spec, args.seed, build_cache_dir()));
  const auto& spec = judged.spec;
  auto target = workspace_target_or_throw(ws);
  value_or_fail(knowledge::check_spec_designs(judged, *target));
  const bool replaced = fs::exists(knowledge::workspace_kernels_dir(ws.root()) / spec->name);
  const fs::path added =
      value_or_fail(knowledge::add_workspace_kernel(ws, args.spec, args.replace));
  if (!args.json) {
    fmt::print("added {}\n", added.string());
    return kExitOk;
  }
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& kernel : judged.kernels) {
    shapes.push_back({{"shape", kernel->shape_set().name},
                      {"check_only", kernel->check_only()},
                      {"bytes_to_move", kernel->bytes_to_move()}});
  }
  nlohmann::json designs = nlohmann::json::array();
  for (const auto& file : targets::spec_design_files(*spec, target->name())) {
    designs.push_back(
        value_or_fail(targets::parse_design(spec->name, file.text, target->kernel_language()))
            .name);
  }
  nlohmann::json files = nlohmann::json::array();
  for (const fs::path& file : spec_files(value_or_fail(load_kernel_spec(added))))
    files.push_back(file.string());
  fmt::print("{}\n", nlohmann::json{{"kernel", spec->name},
                                    {"spec", spec->file.string()},
                                    {"added", added.string()},
                                    {"files", files},
                                    {"replaced", replaced},
                                    {"workspace", ws.root().string()},
                                    {"target", target->name()},
                                    {"shapes", shapes},
                                    {"designs", designs}}
                         .dump(2));
  return kExitOk;
}

int run_list(const KernelArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  const KernelCatalog catalog = kernel_catalog_or_throw(ws);
  nlohmann::json rows = nlohmann::json::array();
  for (const KernelContract* k : builtin_kernels())
    rows.push_back(
        {{"kernel", k->name()}, {"source", "built-in"}, {"bytes_to_move", k->bytes_to_move()}});
  for (const KernelContract* k : catalog.added()) {
    rows.push_back({{"kernel", k->name()},
                    {"source", k->spec()->file.string()},
                    {"bytes_to_move", k->bytes_to_move()}});
  }
  if (args.json) {
    fmt::print("{}\n", rows.dump(2));
    return kExitOk;
  }
  for (const auto& r : rows) {
    fmt::print("{:<16} {:>12} bytes  {}\n", r["kernel"].get<std::string>(),
               r["bytes_to_move"].get<uint64_t>(), r["source"].get<std::string>());
  }
  return kExitOk;
}

}  // namespace

void add_kernel(CLI::App& app, int* exit_code) {
  auto* kernel =
      app.add_subcommand("kernel", "Kernels as data: scaffold, check and add kernel specs");
  kernel->require_subcommand(1);
  auto args = std::make_shared<KernelArgs>();

  auto* made =
      kernel->add_subcommand("new", "Write a spec, its reference and a cpu baseline for NAME");
  made->add_option("name", args->name, "the kernel's name")->required();
  made->add_option("--dir", args->dir, "where the folder NAME/ is made (default: here)");
  made->add_flag("--json", args->json, "print one JSON object");
  made->callback([args, exit_code] { run_verb(exit_code, [&] { return run_new(*args); }); });

  auto* check = kernel->add_subcommand(
      "check",
      "Validate a spec: it parses, its reference builds and judges, and the target's baseline "
      "passes at every shape set");
  check->add_option("spec", args->spec, "the spec file (TOML)")->required();
  check->add_option("--target", args->target, "whose baseline is checked (default: cpu)");
  check->add_option("--toolchain,--cxx", args->toolchain, "the target's toolchain");
  check->add_option("--seed", args->seed, "the input seed (default: 1)");
  check->add_flag("--json", args->json, "print one JSON object");
  check->callback(
      [args, exit_code] { run_verb(exit_code, [&] { return run_check_spec(*args); }); });

  auto* add = kernel->add_subcommand("add", "Copy a spec and its files into the workspace");
  add->add_option("spec", args->spec, "the spec file (TOML)")->required();
  add->add_flag("--replace", args->replace, "replace a spec of the same name");
  add->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here)");
  add->add_flag("--json", args->json, "print one JSON object");
  add->callback([args, exit_code] { run_verb(exit_code, [&] { return run_add(*args); }); });

  auto* list = kernel->add_subcommand("list", "The built-in kernels and the workspace's specs");
  list->add_option("--workspace", args->workspace,
                   "workspace directory (default: the nearest one up from here)");
  list->add_flag("--json", args->json, "print JSON");
  list->callback([args, exit_code] { run_verb(exit_code, [&] { return run_list(*args); }); });
}

}  // namespace headway::cli
