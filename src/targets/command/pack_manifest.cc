#include "targets/command/pack_manifest.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>

#include "common/file_io.h"
#include "common/toml_fields.h"
#include "kernels/contract.h"
#include "kernels/declared_kernel.h"
#include "kernels/kernel_spec.h"
#include "targets/design_library.h"

namespace headway::command {

namespace {

namespace fs = std::filesystem;
using toml_fields::existing_path;
using toml_fields::fail;
using toml_fields::line_of;
using toml_fields::number_at;
using toml_fields::one_line;
using toml_fields::only_keys;
using toml_fields::string_at;
using toml_fields::strings_at;
using toml_fields::table_at;
using ManifestError = toml_fields::FieldError;

constexpr std::string_view kCommands[] = {"build", "check", "static_cost", "time",
                                          "toolchain_version"};
constexpr std::string_view kRequired[] = {"build", "check", "time", "toolchain_version"};
constexpr std::string_view kParsed[] = {"static_cost", "time", "toolchain_version"};

bool parsed(std::string_view name) {
  for (auto n : kParsed) {
    if (n == name) return true;
  }
  return false;
}

CommandSpec parse_command(const std::string& name, const toml::table& t, int max_arms) {
  CommandSpec c;
  c.name = name;
  c.line = line_of(t);
  only_keys(t, fmt::format("[commands.{}]", name),
            {"run", "timeout", "env", "sandbox", "parse", "example"});
  c.run = string_at(t, "run", c.line, true);
  if (auto v = number_at(t, "timeout")) {
    if (*v <= 0) fail(line_of(*t.get("timeout")), "'timeout' must be positive (seconds)");
    c.timeout_seconds = *v;
  }
  if (const toml::table* env = table_at(t, "env")) {
    for (auto&& [key, node] : *env) {
      const auto* s = node.as_string();
      if (!s) fail(line_of(node), fmt::format("env '{}' must be a string", key.str()));
      c.env.emplace_back(std::string(key.str()), s->get());
    }
  }
  if (const toml::node* n = t.get("sandbox")) {
    if (!n->is_boolean()) fail(line_of(*n), "'sandbox' must be true or false");
    c.sandbox = n->as_boolean()->get();
  }
  const toml::table* parse = table_at(t, "parse");
  if (!parsed(name)) {
    if (parse)
      fail(line_of(*parse),
           fmt::format("the {} command takes no parser (its exit status decides)", name));
    return c;
  }
  if (!parse)
    fail(c.line,
         fmt::format(
             "the {} command needs 'parse = {{ regex = \"...\" }}' or '{{ json = \"...\" }}'",
             name));
  only_keys(*parse, fmt::format("[commands.{}] parse", name), {"regex", "json", "file"});
  const bool regex = parse->contains("regex");
  if (regex == parse->contains("json"))
    fail(line_of(*parse), "'parse' needs exactly one of 'regex' and 'json'");
  auto made = make_parser(regex ? OutputParser::Kind::kRegex : OutputParser::Kind::kJsonPath,
                          string_at(*parse, regex ? "regex" : "json", line_of(*parse), true));
  if (!made) fail(line_of(*parse), made.error().message);
  OutputParser p = made.value();
  p.file = string_at(*parse, "file", line_of(*parse), false);
  const toml::node* ex = t.get("example");
  if (!ex)
    fail(line_of(*parse), fmt::format("the {} parser needs an 'example' output it matches", name));
  p.example = string_at(t, "example", c.line, true);
  if (name == "time") {
    std::string why;
    bool matched = false;
    for (int arms = max_arms; arms >= 1 && !matched; --arms) {
      auto r = p.per_arm(p.example, arms);
      matched = r.ok();
      if (!r && why.empty()) why = r.error().message;
    }
    if (!matched)
      fail(line_of(*parse), fmt::format("the time parser does not match its example: {}", why));
  } else if (name != "toolchain_version") {
    if (auto r = p.number(p.example); !r) {
      fail(line_of(*parse),
           fmt::format("the {} parser does not match its example: {}", name, r.error().message));
    }
  } else {
    // The version is text: the regex must match (group 1 or the whole match is the version).
    if (p.kind != OutputParser::Kind::kRegex)
      fail(line_of(*parse), "the toolchain_version parser must be a regex");
    if (!std::regex_search(p.example, std::regex(p.pattern))) {
      fail(line_of(*parse),
           fmt::format(
               "the toolchain_version parser does not match its example: {} matches nothing in: {}",
               p.describe(), excerpt(p.example)));
    }
  }
  c.parser = std::move(p);
  return c;
}

void parse_device(PackManifest& m, const toml::table& d) {
  only_keys(d, "[device]",
            {"read_gbps", "time_unit", "clock_hz", "max_arms", "shares_host", "retry"});
  const auto bw = number_at(d, "read_gbps");
  if (!bw || *bw <= 0)
    fail(line_of(d),
         "[device] needs 'read_gbps' > 0 (the memory bandwidth floors are based on, GB/s)");
  m.read_gbps = *bw;
  m.time_unit = string_at(d, "time_unit", line_of(d), false, "seconds");
  const std::set<std::string> units = {"seconds", "ms", "us", "ns", "cycles"};
  if (!units.count(m.time_unit)) {
    fail(line_of(*d.get("time_unit")),
         fmt::format("time_unit '{}' is not one of seconds, ms, us, ns, cycles", m.time_unit));
  }
  m.clock_hz = number_at(d, "clock_hz").value_or(0.0);
  if (m.time_unit == "cycles" && m.clock_hz <= 0)
    fail(line_of(d), "time_unit \"cycles\" needs 'clock_hz' > 0");
  if (auto v = number_at(d, "max_arms")) {
    if (*v < 2 || *v != std::floor(*v))
      fail(line_of(*d.get("max_arms")), "'max_arms' must be an integer >= 2");
    m.max_arms = static_cast<int>(*v);
  }
  if (const toml::node* n = d.get("shares_host")) {
    if (!n->is_boolean()) fail(line_of(*n), "'shares_host' must be true or false");
    m.shares_host = n->as_boolean()->get();
  }
  if (const toml::table* r = table_at(d, "retry")) {
    only_keys(*r, "[device] retry", {"output_regex", "exit_codes", "max_attempts"});
    if (const toml::node* n = r->get("output_regex")) {
      auto made =
          make_parser(OutputParser::Kind::kRegex, string_at(*r, "output_regex", line_of(*r), true));
      if (!made) fail(line_of(*n), made.error().message);
      m.retry.output_regex = made.value().pattern;
    }
    if (const toml::node* n = r->get("exit_codes")) {
      const auto* a = n->as_array();
      if (!a) fail(line_of(*n), "'exit_codes' must be an array of integers");
      for (const auto& e : *a) {
        if (!e.is_integer()) fail(line_of(e), "'exit_codes' must hold integers");
        m.retry.exit_codes.push_back(static_cast<int>(e.as_integer()->get()));
      }
    }
    if (auto v = number_at(*r, "max_attempts")) {
      if (*v < 1) fail(line_of(*r->get("max_attempts")), "'max_attempts' must be >= 1");
      m.retry.max_attempts = static_cast<int>(*v);
    }
  }
}

void parse_kernels(PackManifest& m, const toml::table& ks) {
  for (auto&& [key, node] : ks) {
    const std::string name(key.str());
    const int line = static_cast<int>(key.source().begin.line);
    if (auto valid = valid_kernel_name(name); !valid) fail(line, valid.error().message);
    const auto* t = node.as_table();
    if (!t) fail(line, fmt::format("[kernels.{}] must be a table", name));
    only_keys(*t, fmt::format("[kernels.{}]", name), {"file", "entry", "bytes", "spec"});
    KernelEntry k;
    k.name = name;
    k.file = string_at(*t, "file", line, true);
    if (!fs::exists(m.repo / k.file))
      fail(line_of(*t->get("file")),
           fmt::format("'file': {} is not in the repository {}", k.file, m.repo.string()));
    k.entry = string_at(*t, "entry", line, false, name);
    if (auto b = number_at(*t, "bytes")) {
      if (*b <= 0) fail(line_of(*t->get("bytes")), "'bytes' must be positive");
      k.bytes = static_cast<uint64_t>(*b);
    }
    if (t->contains("spec")) {
      const int spec_line = line_of(*t->get("spec"));
      if (is_builtin_kernel(name))
        fail(spec_line, fmt::format("kernel '{}' is built in: its contract is headway's", name));
      if (k.bytes) fail(spec_line, "give 'spec' or 'bytes', not both: a spec states its bytes");
      k.spec = existing_path(m.path.parent_path(), *t, "spec", line, true, true);
      auto spec = load_kernel_spec(k.spec);
      if (!spec) throw ManifestError{spec_line, "spec: " + spec.error().message};
      if (spec.value().name != name)
        fail(spec_line,
             fmt::format("the spec is of kernel '{}', not '{}'", spec.value().name, name));
    }
    if (!is_builtin_kernel(name) && !k.bytes && k.spec.empty()) {
      fail(line, fmt::format("kernel '{}' is not one headway has a contract of ({}): point at its "
                             "spec (spec = \"FILE\") or give the bytes it must move (bytes = N), "
                             "which its floor is based on",
                             name, fmt::join(builtin_kernel_names(), ", ")));
    }
    m.kernels[name] = k;
  }
  if (m.kernels.empty()) fail(line_of(ks), "[kernels] names no kernel");
}

void parse_language(PackManifest& m, const toml::table& t) {
  only_keys(t, "[language]", {"comment", "params"});
  const int line = line_of(t);
  m.language.comment = string_at(t, "comment", line, false, "//");
  if (m.language.comment.empty() ||
      m.language.comment.find_first_of(" \t\r\n") != std::string::npos) {
    fail(line_of(*t.get("comment")), "'comment' must be the line comment's opening, e.g. \"#\"");
  }
  const std::string params =
      string_at(t, "params", line, false, m.language.comment == "//" ? "define" : "placeholder");
  if (params == "define") {
    m.language.params = targets::KernelLanguage::Params::kDefine;
  } else if (params == "placeholder") {
    m.language.params = targets::KernelLanguage::Params::kPlaceholder;
  } else {
    fail(
        line_of(*t.get("params")),
        fmt::format("'params' is '{}'; expected \"define\" (#define lines, for a language with a C "
                    "preprocessor) or \"placeholder\" ({{{{P_NAME}}}} replaced by headway)",
                    params));
  }
}

// Every design of a kernel the manifest names parses in the manifest's language.
void check_designs(const PackManifest& m) {
  if (m.designs.empty()) return;
  for (const auto& [kernel, entry] : m.kernels) {
    const fs::path dir = m.designs / kernel;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (!e.is_regular_file()) continue;
      const auto parsed =
          targets::parse_design(kernel, read_file(e.path()).value_or(""), m.language);
      if (parsed) continue;
      const auto [line, message] = targets::design_error_at(parsed.error().message);
      throw ManifestError{line, "design: " + message, e.path()};
    }
  }
}

PackManifest parse_table(const fs::path& path, const toml::table& root) {
  PackManifest m;
  m.path = path;
  m.pack = path.parent_path();
  only_keys(root, "the manifest",
            {"name", "repo", "docs", "designs", "editable", "sandbox_read_only", "language",
             "device", "budget", "kernels", "commands"});
  m.name = string_at(root, "name", 1, true);
  m.repo = existing_path(m.pack, root, "repo", 1, true, true);
  m.docs = existing_path(m.pack, root, "docs", 1, false, true);
  m.designs = existing_path(m.pack, root, "designs", 1, false, true);
  m.editable = strings_at(root, "editable");
  if (m.editable.empty())
    fail(1,
         "missing key 'editable' (the files a candidate may change, e.g. [\"src/device/*.rs\"])");
  for (const auto& p : strings_at(root, "sandbox_read_only")) {
    const fs::path abs = fs::absolute(m.pack / p).lexically_normal();
    if (!fs::exists(abs))
      fail(line_of(*root.get("sandbox_read_only")),
           fmt::format("sandbox_read_only: {} does not exist", abs.string()));
    m.read_only.push_back(abs);
  }
  if (const toml::table* language = table_at(root, "language")) parse_language(m, *language);
  const toml::table* device = table_at(root, "device");
  if (!device) fail(1, "missing table [device] (read_gbps, time_unit, ...)");
  parse_device(m, *device);
  if (const toml::table* b = table_at(root, "budget")) {
    only_keys(*b, "[budget]", {"jobs", "device_minutes"});
    m.budget_jobs = static_cast<int64_t>(number_at(*b, "jobs").value_or(0));
    m.budget_device_minutes = number_at(*b, "device_minutes").value_or(0);
    if (m.budget_jobs < 0 || m.budget_device_minutes < 0)
      fail(line_of(*b), "budgets must be >= 0 (0: no limit)");
  }
  const toml::table* kernels = table_at(root, "kernels");
  if (!kernels) fail(1, "missing table [kernels] (one [kernels.NAME] per kernel)");
  parse_kernels(m, *kernels);
  check_designs(m);
  const toml::table* commands = table_at(root, "commands");
  if (!commands) fail(1, "missing table [commands]");
  for (auto&& [key, node] : *commands) {
    const std::string name(key.str());
    bool known = false;
    for (auto k : kCommands) known |= k == name;
    if (!known) {
      fail(static_cast<int>(key.source().begin.line),
           fmt::format(
               "unknown command '{}' (known: build, check, static_cost, time, toolchain_version)",
               name));
    }
    const auto* t = node.as_table();
    if (!t)
      fail(static_cast<int>(key.source().begin.line),
           fmt::format("[commands.{}] must be a table", name));
    m.commands[name] = parse_command(name, *t, m.max_arms);
  }
  for (auto r : kRequired) {
    if (!m.commands.count(std::string(r)))
      fail(line_of(*commands), fmt::format("missing command [commands.{}]", r));
  }
  return m;
}

}  // namespace

const CommandSpec* PackManifest::command(const std::string& command_name) const {
  auto it = commands.find(command_name);
  return it == commands.end() ? nullptr : &it->second;
}

double PackManifest::seconds_per_unit() const {
  if (time_unit == "ms") return 1e-3;
  if (time_unit == "us") return 1e-6;
  if (time_unit == "ns") return 1e-9;
  if (time_unit == "cycles") return 1.0 / clock_hz;
  return 1.0;
}

Result<PackManifest> parse_manifest(const std::filesystem::path& given) {
  const fs::path path = fs::absolute(given).lexically_normal();
  if (!fs::is_regular_file(path))
    return not_found(fmt::format("{}: no such manifest file", path.string()));
  try {
    const std::optional<std::string> read = read_file(path);
    if (!read) return invalid_input(fmt::format("{}: cannot read the manifest", path.string()));
    const std::string& text = *read;
    const toml::table root = toml_fields::parse(text, path);
    return parse_table(path, root);
  } catch (const toml::parse_error& e) {
    return invalid_input(
        fmt::format("{}:{}: {}", path.string(), e.source().begin.line, one_line(e.description())));
  } catch (const ManifestError& e) {
    return invalid_input(
        fmt::format("{}:{}: {}", (e.file.empty() ? path : e.file).string(), e.line, e.message));
  }
}

}  // namespace headway::command
