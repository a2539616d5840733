#include "targets/design_library.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace headway::targets {

Params Design::defaults() const {
  Params p;
  for (const auto& param : params) p[param.name] = param.default_value;
  return p;
}

Params params_from_json(const nlohmann::json& params) {
  Params p;
  if (!params.is_object()) return p;
  for (const auto& [k, v] : params.items()) {
    if (v.is_number_integer()) p[k] = v.get<int>();
  }
  return p;
}

std::string Design::render(const Params& values) const {
  std::string defines;
  std::string body =
      language.strip_design_header || language.params == KernelLanguage::Params::kPlaceholder
          ? std::string(without_header(text, language))
          : text;
  for (const auto& param : params) {
    const auto it = values.find(param.name);
    if (it == values.end() ||
        std::find(param.values.begin(), param.values.end(), it->second) == param.values.end()) {
      throw std::invalid_argument(
          fmt::format("design {}: no allowed value for {}", name, param.name));
    }
    if (language.params == KernelLanguage::Params::kDefine) {
      defines += fmt::format("#define {} {}\n", param.name, it->second);
      continue;
    }
    const std::string placeholder = "{{" + param.name + "}}";
    const std::string value = std::to_string(it->second);
    for (size_t at = body.find(placeholder); at != std::string::npos;
         at = body.find(placeholder, at + value.size())) {
      body.replace(at, placeholder.size(), value);
    }
  }
  return defines + body;
}

std::vector<Params> Design::neighbours(const Params& from) const {
  std::vector<Params> out;
  for (const auto& param : params) {
    for (int v : param.values) {
      const auto it = from.find(param.name);
      if (it != from.end() && it->second == v) continue;
      Params p = from;
      p[param.name] = v;
      out.push_back(std::move(p));
    }
  }
  return out;
}

namespace {

// With placeholders, every `{{P_NAME}}` of the body (the header is not written) names a declared
// param and every param has one.
Result<void> check_placeholders(const Design& d, const std::map<std::string, int>& param_lines) {
  const std::string_view body = without_header(d.text, d.language);
  const std::string_view header(d.text.data(), d.text.size() - body.size());
  const int body_line = 1 + static_cast<int>(std::count(header.begin(), header.end(), '\n'));
  auto used = placeholders_in(body, body_line);
  if (!used) return used.error();
  for (const auto& name : used.value()) {
    if (!param_lines.count(name)) {
      const size_t at = body.find("{{" + name + "}}");
      return invalid_input(fmt::format(
          "line {}: placeholder {{{{{}}}}} names no param of the header",
          body_line +
              std::count(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(at), '\n'),
          name));
    }
  }
  for (const auto& [name, line] : param_lines) {
    if (!used.value().count(name)) {
      return invalid_input(fmt::format(
          "line {}: parameter {} has no {{{{{}}}}} in the design, so its values would all be the "
          "same source",
          line, name, name));
    }
  }
  return {};
}

std::optional<int> whole_int(std::string_view word) {
  int v = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
  if (ec != std::errc() || end != word.data() + word.size()) return std::nullopt;
  return v;
}

// P_ then capitals, digits or '_': a macro name, and a placeholder's ({{P_NAME}}).
bool valid_param_name(std::string_view name) {
  if (name.size() < 3 || name.substr(0, 2) != "P_") return false;
  return std::all_of(name.begin() + 2, name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The words of a `param P_NAME v1 v2 ... default v` line after `param`; an error names what is
// wrong with it, after "line N: ".
Result<DesignParam> parse_param(std::istringstream& words, int number) {
  auto wrong = [number](const std::string& what) -> Result<DesignParam> {
    return invalid_input(fmt::format("line {}: {}", number, what));
  };
  DesignParam p;
  if (!(words >> p.name))
    return wrong("`param` without a name: expected `param P_NAME v1 v2 ... default v`");
  if (!valid_param_name(p.name)) {
    return wrong(fmt::format(
        "parameter name '{}' is not P_ followed by capitals, digits or '_' (as P_ROWS)", p.name));
  }
  std::string w;
  bool have_default = false;
  while (words >> w) {
    if (w == "default") {
      have_default = true;
      break;
    }
    const auto value = whole_int(w);
    if (!value) return wrong(fmt::format("parameter value '{}' is not an integer", w));
    if (std::find(p.values.begin(), p.values.end(), *value) != p.values.end())
      return wrong(fmt::format("parameter {} lists {} twice", p.name, *value));
    p.values.push_back(*value);
  }
  if (p.values.empty()) {
    return wrong(fmt::format(
        "parameter {} lists no values: expected `param {} v1 v2 ... default v`", p.name, p.name));
  }
  if (!have_default || !(words >> w))
    return wrong(fmt::format("parameter {} has no `default v` after its values", p.name));
  const auto default_value = whole_int(w);
  if (!default_value)
    return wrong(fmt::format("parameter {}: default '{}' is not an integer", p.name, w));
  p.default_value = *default_value;
  if (std::find(p.values.begin(), p.values.end(), p.default_value) == p.values.end()) {
    return wrong(fmt::format("parameter {}: default {} is not among its values ({})", p.name,
                             p.default_value, fmt::join(p.values, " ")));
  }
  if (words >> w) return wrong(fmt::format("parameter {}: '{}' after its default", p.name, w));
  return p;
}

// After the header, a comment line that would declare the design or a parameter: its keyword
// ("headway-design:", "param"), else nullopt.
std::optional<std::string_view> header_line_outside(std::string_view line,
                                                    const KernelLanguage& language) {
  const auto body = comment_body(line, language);
  if (!body) return std::nullopt;
  if (body->substr(0, 15) == "headway-design:") return "headway-design:";
  if (body->substr(0, 8) == "param P_") return "param";
  return std::nullopt;
}

}  // namespace

Result<Design> parse_design(std::string_view kernel, std::string_view text,
                            const KernelLanguage& language) {
  Design d;
  d.kernel = kernel;
  d.text = text;
  d.language = language;
  std::map<std::string, int> param_lines;
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  int design_line = 0;
  bool in_header = true;
  while (std::getline(in, line)) {
    ++number;
    // The header is the leading comment block, up to a `headway-file` marker.
    const auto body = comment_body(line, language);
    if (in_header && (!body || marker_value(line, language, "headway-file"))) in_header = false;
    if (!in_header) {
      if (const auto keyword = header_line_outside(line, language)) {
        return invalid_input(fmt::format(
            "line {}: `{}` outside the header: the header is the file's leading comment lines, "
            "with no blank or code line before or among them",
            number, *keyword));
      }
      continue;
    }
    std::istringstream words{std::string(*body)};
    std::string key;
    words >> key;
    if (key == "headway-design:") {
      if (design_line)
        return invalid_input(fmt::format("line {}: a second `headway-design:` line", number));
      design_line = number;
      std::string extra;
      if (!(words >> d.name)) {
        return invalid_input(fmt::format(
            "line {}: `headway-design:` without a name: expected `{} headway-design: NAME`", number,
            language.comment));
      }
      if (words >> extra) {
        return invalid_input(fmt::format("line {}: a design's name is one word: '{}' follows '{}'",
                                         number, extra, d.name));
      }
    } else if (key == "summary:") {
      std::getline(words >> std::ws, d.summary);
    } else if (key == "requires:") {
      if (!d.requires_isa.empty()) {
        return invalid_input(fmt::format("line {}: a second `requires:` line", number));
      }
      std::string ext;
      while (words >> ext) d.requires_isa.push_back(ext);
      if (d.requires_isa.empty()) {
        return invalid_input(fmt::format(
            "line {}: expected `// requires: EXTENSION...` with at least one extension", number));
      }
    } else if (key == "subnormals:") {
      if (!d.subnormals.empty()) {
        return invalid_input(fmt::format("line {}: a second `subnormals:` line", number));
      }
      std::getline(words >> std::ws, d.subnormals);
      if (d.subnormals.empty()) {
        return invalid_input(fmt::format(
            "line {}: expected `{} subnormals: WHERE` saying where the design makes f32 "
            "subnormals",
            number, language.comment));
      }
    } else if (key == "param") {
      auto parsed = parse_param(words, number);
      if (!parsed) return parsed.error();
      DesignParam p = std::move(parsed).value();
      const bool repeated = std::any_of(d.params.begin(), d.params.end(),
                                        [&](const DesignParam& q) { return q.name == p.name; });
      if (repeated) {
        return invalid_input(
            fmt::format("line {}: parameter {} is declared twice", number, p.name));
      }
      param_lines[p.name] = number;
      d.params.push_back(std::move(p));
    } else if (line.find(" requires:") != std::string::npos ||
               line.find(" param P_") != std::string::npos) {
      // A keyword in the middle of a line is a reflowed header (a formatter joined the lines): its
      // requirements or parameters would be lost without a word.
      return invalid_input(fmt::format(
          "line {}: `requires:` or `param` inside another header line; each starts its own "
          "comment line",
          number));
    }
  }
  if (d.name.empty()) {
    return invalid_input(fmt::format(
        "missing `{} headway-design: NAME` in the leading comment block", language.comment));
  }
  if (language.params == KernelLanguage::Params::kPlaceholder) {
    if (auto placed = check_placeholders(d, param_lines); !placed) return placed.error();
  }
  return d;
}

std::pair<int, std::string> design_error_at(const std::string& message) {
  if (message.rfind("line ", 0) == 0 && message.find(": ") != std::string::npos)
    return {std::atoi(message.c_str() + 5), message.substr(message.find(": ") + 2)};
  return {1, message};
}

const std::vector<Design>& designs_for(const Target& target, const KernelContract& kernel) {
  static std::mutex mu;
  static std::map<std::string, std::vector<Design>, std::less<>> cache;
  std::lock_guard lock(mu);
  // Keyed on the toolchain too: two command targets share a name, not a manifest (whose designs
  // and language they are).
  const std::string key = fmt::format("{}/{}/{}", target.name(), target.toolchain(), kernel.name());
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const KernelLanguage language = target.kernel_language();
  std::vector<Design> designs;
  for (const auto& file : target.design_files(kernel)) {
    auto d = parse_design(kernel.name(), file.text, language);
    if (!d) throw std::logic_error(fmt::format("{}: {}", file.path, d.error().message));
    designs.push_back(std::move(d).value());
  }
  std::sort(designs.begin(), designs.end(),
            [](const Design& a, const Design& b) { return a.name < b.name; });
  return cache.emplace(key, std::move(designs)).first->second;
}

}  // namespace headway::targets
