#pragma once
// The agents' role prompts are Mustache templates (kainjow mustache), one file per role under
// prompts/ in the repository, built into the binary. A workspace may override any of them with
// its own file at .headway/prompts/<name>.mustache; `{{> name}}` includes another template
// (override or built-in) as a partial.
//
// Rendering does no HTML escaping: prompts are plain text and code. Data is a JSON object:
// strings and numbers render as text, booleans and arrays drive sections, objects nest.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace headway::agents {

struct PromptTemplate {
  std::string name;    // e.g. "variant"
  std::string origin;  // the override's path, or "built-in prompts/<name>.mustache"
  std::string text;
};

// The template `name` from override_dir (when it has <name>.mustache) or the built-in one.
// Throws std::runtime_error naming the template when there is neither, or the override cannot
// be read.
PromptTemplate load_template(const std::filesystem::path& override_dir, std::string_view name);

// Renders `tmpl` with `data`, partials loaded as load_template(override_dir, partial_name).
// Throws std::runtime_error naming the template's origin for a template that does not parse
// (an unclosed section, a bad delimiter) or a partial that does not exist.
std::string render_template(const PromptTemplate& tmpl, const nlohmann::json& data,
                            const std::filesystem::path& override_dir);

// The built-in template names (prompts/*.mustache without the extension), sorted.
std::vector<std::string> builtin_template_names();

}  // namespace headway::agents
