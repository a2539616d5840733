#include "agents/prompt_template.h"

#include <fmt/format.h>

#include <kainjow/mustache.hpp>
#include <map>
#include <regex>

#include "common/embedded.h"
#include "common/file_io.h"

namespace headway::agents {
namespace {

namespace mu = kainjow::mustache;

constexpr std::string_view kBuiltinDir = "prompts/";
constexpr std::string_view kExtension = ".mustache";

mu::data to_data(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      mu::data d{mu::data::type::object};
      for (const auto& [key, value] : j.items()) d.set(key, to_data(value));
      return d;
    }
    case nlohmann::json::value_t::array: {
      mu::data d{mu::data::type::list};
      for (const auto& value : j) d.push_back(to_data(value));
      return d;
    }
    case nlohmann::json::value_t::string:
      return mu::data{j.get<std::string>()};
    case nlohmann::json::value_t::boolean:
      return j.get<bool>() ? mu::data{mu::data::type::bool_true}
                           : mu::data{mu::data::type::bool_false};
    case nlohmann::json::value_t::null:
      return mu::data{mu::data::type::bool_false};
    default:
      return mu::data{j.dump()};
  }
}

// The text of every partial `tmpl` uses, nested ones included, by name. Every `{{> name}}` must
// name a template: Mustache itself renders an unknown partial as nothing. Partials nest at most
// kMaxPartialDepth deep (a cycle is an error, not a hang).
constexpr int kMaxPartialDepth = 8;
void load_partials(const PromptTemplate& tmpl, const std::filesystem::path& override_dir,
                   std::map<std::string, std::string>& partials, int depth = 0) {
  if (depth > kMaxPartialDepth) {
    throw std::runtime_error(
        fmt::format("partials nest deeper than {} (a cycle?)", kMaxPartialDepth));
  }
  static const std::regex partial(R"(\{\{\s*>\s*([^}\s]+)\s*\}\})");
  for (std::sregex_iterator it(tmpl.text.begin(), tmpl.text.end(), partial), end; it != end; ++it) {
    const std::string name = (*it)[1];
    try {
      const PromptTemplate loaded = load_template(override_dir, name);
      load_partials(loaded, override_dir, partials, depth + 1);
      partials[name] = loaded.text;
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}: partial '{}': {}", tmpl.origin, name, e.what()));
    }
  }
}

}  // namespace

std::vector<std::string> builtin_template_names() {
  std::vector<std::string> names;
  for (std::string_view path : embedded_files_under(kBuiltinDir)) {
    if (path.size() <= kExtension.size() ||
        path.substr(path.size() - kExtension.size()) != kExtension)
      continue;
    path.remove_prefix(kBuiltinDir.size());
    path.remove_suffix(kExtension.size());
    names.emplace_back(path);
  }
  return names;
}

PromptTemplate load_template(const std::filesystem::path& override_dir, std::string_view name) {
  PromptTemplate t;
  t.name = name;
  if (name.empty() || name.find('/') != std::string_view::npos ||
      name.find("..") != std::string_view::npos) {
    throw std::runtime_error(fmt::format("'{}' is not a prompt template name", name));
  }
  if (!override_dir.empty()) {
    const auto path = override_dir / (std::string(name) + std::string(kExtension));
    if (std::filesystem::exists(path)) {
      std::optional<std::string> text = read_file(path);
      if (!text)
        throw std::runtime_error(fmt::format("{}: cannot read the prompt template", path.string()));
      t.origin = path.string();
      t.text = std::move(*text);
      return t;
    }
  }
  const std::string builtin = fmt::format("{}{}{}", kBuiltinDir, name, kExtension);
  const auto names = builtin_template_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw std::runtime_error(
        fmt::format("no prompt template '{}' (built-in: {})", name, fmt::join(names, ", ")));
  }
  t.origin = "built-in " + builtin;
  t.text = std::string(embedded_file(builtin));
  return t;
}

std::string render_template(const PromptTemplate& tmpl, const nlohmann::json& data,
                            const std::filesystem::path& override_dir) {
  mu::mustache compiled{tmpl.text};
  if (!compiled.is_valid()) {
    throw std::runtime_error(fmt::format("{}: {}", tmpl.origin, compiled.error_message()));
  }
  std::map<std::string, std::string> partials;
  load_partials(tmpl, override_dir, partials);
  compiled.set_custom_escape([](const std::string& s) { return s; });
  mu::data d = to_data(data.is_object() ? data : nlohmann::json::object());
  for (const auto& [name, text] : partials) {
    if (d.get(name) == nullptr) d.set(name, mu::partial{[text] { return text; }});
  }
  std::string out = compiled.render(d);
  if (!compiled.is_valid()) {
    throw std::runtime_error(fmt::format("{}: {}", tmpl.origin, compiled.error_message()));
  }
  return out;
}

}  // namespace headway::agents
