#include "common/toml_fields.h"

#include <fmt/format.h>

namespace headway::toml_fields {

namespace fs = std::filesystem;

std::string one_line(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

void fail(int line, std::string message) { throw FieldError{line, std::move(message)}; }

void only_keys(const toml::table& table, std::string_view where,
               std::initializer_list<std::string_view> allowed) {
  for (auto&& [key, node] : table) {
    bool known = false;
    for (auto a : allowed) known |= key.str() == a;
    if (!known) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail(static_cast<int>(key.source().begin.line),
           fmt::format("unknown key '{}' in {} (known: {})", key.str(), where, list));
    }
  }
}

std::string string_at(const toml::table& t, std::string_view key, int table_line, bool required,
                      std::string def) {
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) fail(table_line, fmt::format("missing key '{}'", key));
    return def;
  }
  const auto* s = n->as_string();
  if (!s) fail(line_of(*n), fmt::format("'{}' must be a string", key));
  if (required && s->get().empty()) fail(line_of(*n), fmt::format("'{}' is empty", key));
  return s->get();
}

std::optional<double> number_at(const toml::table& t, std::string_view key) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (auto v = n->value<double>(); v && (n->is_integer() || n->is_floating_point())) return *v;
  fail(line_of(*n), fmt::format("'{}' must be a number", key));
}

std::vector<std::string> strings_at(const toml::table& t, std::string_view key) {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (!n) return out;
  const auto* a = n->as_array();
  if (!a) fail(line_of(*n), fmt::format("'{}' must be an array of strings", key));
  for (const auto& e : *a) {
    const auto* s = e.as_string();
    if (!s || s->get().empty())
      fail(line_of(e), fmt::format("'{}' must hold non-empty strings", key));
    out.push_back(s->get());
  }
  return out;
}

std::optional<int64_t> integer_at(const toml::table& t, std::string_view key) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (const auto* i = n->as_integer()) return i->get();
  fail(line_of(*n), fmt::format("'{}' must be an integer", key));
}

const toml::table* table_at(const toml::table& t, std::string_view key) {
  const toml::node* n = t.get(key);
  if (!n) return nullptr;
  const auto* tt = n->as_table();
  if (!tt) fail(line_of(*n), fmt::format("'{}' must be a table", key));
  return tt;
}

fs::path existing_path(const fs::path& base, const toml::table& t, std::string_view key, int line,
                       bool required, bool must_exist) {
  const std::string text = string_at(t, key, line, required);
  if (text.empty()) return {};
  const fs::path p = fs::absolute(base / text).lexically_normal();
  const toml::node* n = t.get(key);
  if (must_exist && !fs::exists(p))
    fail(line_of(*n), fmt::format("'{}': {} does not exist", key, p.string()));
  return p;
}

namespace {

// The line of the first byte >= 0x80 outside a string or a comment, if any.
std::optional<int64_t> non_ascii_outside_strings(std::string_view text) {
  int64_t line = 1;
  size_t i = 0;
  const auto at = [&](std::string_view s) { return text.substr(i, s.size()) == s; };
  // Skips a string that starts at i (after its opening quote(s)) up to its closing delimiter.
  const auto skip_string = [&](std::string_view close, bool escapes, bool multiline) {
    while (i < text.size()) {
      if (text[i] == '\n') {
        if (!multiline) return;  // an unterminated one-line string: toml++ reports it
        ++line;
      }
      if (escapes && text[i] == '\\') {
        if (i + 1 < text.size() && text[i + 1] == '\n') ++line;  // a line-ending backslash
        i += 2;
        continue;
      }
      if (at(close)) {
        i += close.size();
        return;
      }
      ++i;
    }
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (at("\"\"\"")) {
      i += 3;
      skip_string("\"\"\"", true, true);
    } else if (at("'''")) {
      i += 3;
      skip_string("'''", false, true);
    } else if (c == '"') {
      ++i;
      skip_string("\"", true, false);
    } else if (c == '\'') {
      ++i;
      skip_string("'", false, false);
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      return line;
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

}  // namespace

toml::table parse(std::string_view text, const fs::path& path) {
  if (const auto line = non_ascii_outside_strings(text))
    fail(static_cast<int>(*line), "a non-ASCII character outside a string or comment");
  return toml::parse(text, path.string());
}

}  // namespace headway::toml_fields
