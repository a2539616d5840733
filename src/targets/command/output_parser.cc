#include "targets/command/output_parser.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>

namespace headway::command {

namespace {

Result<double> to_number(const std::string& text, const std::string& what) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return invalid_input(fmt::format("{} gave '{}', which is not a number", what, text));
}

// The JSON value at `path`, or an error naming the first step that is missing.
Result<nlohmann::json> at_path(const nlohmann::json& root, const std::string& path) {
  const nlohmann::json* node = &root;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos)
        return invalid_input(fmt::format("JSON path '{}' has an unclosed '['", path));
      size_t index = 0;
      const auto r = std::from_chars(path.data() + i + 1, path.data() + close, index);
      if (r.ec != std::errc() || r.ptr != path.data() + close) {
        return invalid_input(fmt::format("JSON path '{}': '{}' is not an index", path,
                                         path.substr(i, close - i + 1)));
      }
      if (!node->is_array() || index >= node->size()) {
        return invalid_input(fmt::format("JSON path '{}': no element [{}]", path, index));
      }
      node = &(*node)[index];
      i = close + 1;
      continue;
    }
    size_t end = path.find_first_of(".[", i);
    if (end == std::string::npos) end = path.size();
    const std::string key = path.substr(i, end - i);
    if (!node->is_object() || !node->contains(key)) {
      return invalid_input(fmt::format("JSON path '{}': no key '{}'", path, key));
    }
    node = &(*node)[key];
    i = end;
  }
  return *node;
}

Result<nlohmann::json> parse_json(std::string_view output) {
  // Tools print lines before their JSON: the document starts at the first '{' or '['.
  const size_t start = output.find_first_of("{[");
  if (start == std::string_view::npos) {
    return invalid_input(fmt::format("no JSON document in: {}", excerpt(output)));
  }
  try {
    return nlohmann::json::parse(output.substr(start));
  } catch (const nlohmann::json::exception& e) {
    return invalid_input(
        fmt::format("the JSON does not parse ({}): {}", e.what(), excerpt(output)));
  }
}

}  // namespace

std::string excerpt(std::string_view output, size_t max_chars) {
  std::string out;
  for (char c : output) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    if (c == '\n') {
      out += " | ";
    } else if (c != '\r') {
      out += c;
    }
  }
  while (out.size() >= 3 && out.compare(out.size() - 3, 3, " | ") == 0) out.resize(out.size() - 3);
  return out.empty() ? "(no output)" : out;
}

std::string OutputParser::describe() const {
  return fmt::format("{} '{}'", kind == Kind::kRegex ? "regex" : "JSON path", pattern);
}

Result<double> OutputParser::number(std::string_view output) const {
  if (kind == Kind::kRegex) {
    const std::regex re(pattern);
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_search(output.begin(), output.end(), m, re)) {
      return invalid_input(fmt::format("{} matches nothing in: {}", describe(), excerpt(output)));
    }
    return to_number(m.size() > 1 ? m[1].str() : m[0].str(), describe());
  }
  auto doc = parse_json(output);
  if (!doc) return doc.error();
  auto v = at_path(doc.value(), pattern);
  if (!v) return v.error();
  if (!v.value().is_number()) {
    return invalid_input(fmt::format("{} holds {}, not a number", describe(), v.value().dump()));
  }
  return v.value().get<double>();
}

Result<std::vector<std::optional<double>>> OutputParser::arm_readings(std::string_view output,
                                                                      int arms) const {
  std::vector<std::optional<double>> got(static_cast<size_t>(arms));
  if (kind == Kind::kRegex) {
    const std::regex re(pattern);
    int next = 0;
    for (auto it = std::regex_iterator<std::string_view::const_iterator>(output.begin(),
                                                                         output.end(), re);
         it != std::regex_iterator<std::string_view::const_iterator>(); ++it) {
      const auto& m = *it;
      int arm = next++;
      std::string value = m.size() > 1 ? m[1].str() : m[0].str();
      if (m.size() > 2) {
        const std::string index = m[1].str();
        const auto r = std::from_chars(index.data(), index.data() + index.size(), arm);
        if (r.ec != std::errc())
          return invalid_input(fmt::format("{}: arm '{}' is not an index", describe(), index));
        value = m[2].str();
      }
      if (arm < 0 || arm >= arms) {
        return invalid_input(
            fmt::format("{}: a reading for arm {} of a job of {}", describe(), arm, arms));
      }
      auto v = to_number(value, describe());
      if (!v) return v.error();
      got[static_cast<size_t>(arm)] = v.value();
    }
  } else {
    auto doc = parse_json(output);
    if (!doc) return doc.error();
    auto v = at_path(doc.value(), pattern);
    if (!v) return v.error();
    if (!v.value().is_array())
      return invalid_input(
          fmt::format("{} holds {}, not an array", describe(), excerpt(v.value().dump())));
    for (size_t i = 0; i < v.value().size() && i < got.size(); ++i) {
      if (!v.value()[i].is_number()) {
        return invalid_input(
            fmt::format("{}: element {} is {}, not a number", describe(), i, v.value()[i].dump()));
      }
      got[i] = v.value()[i].get<double>();
    }
  }
  return got;
}

Result<std::vector<double>> OutputParser::per_arm(std::string_view output, int arms) const {
  auto got = arm_readings(output, arms);
  if (!got) return got.error();
  std::vector<double> out;
  for (size_t i = 0; i < got.value().size(); ++i) {
    if (!got.value()[i]) {
      return invalid_input(fmt::format("{} gives no reading for arm {} of {} in: {}", describe(), i,
                                       arms, excerpt(output)));
    }
    out.push_back(*got.value()[i]);
  }
  return out;
}

Result<OutputParser> make_parser(OutputParser::Kind kind, std::string pattern) {
  OutputParser p;
  p.kind = kind;
  p.pattern = std::move(pattern);
  if (p.pattern.empty()) return invalid_input("the parser's pattern is empty");
  if (kind == OutputParser::Kind::kRegex) {
    try {
      const std::regex re(p.pattern);
    } catch (const std::regex_error& e) {
      return invalid_input(fmt::format("regex '{}' does not compile: {}", p.pattern, e.what()));
    }
  } else if (p.pattern.find("..") != std::string::npos || p.pattern.front() == '.' ||
             p.pattern.back() == '.') {
    return invalid_input(fmt::format("JSON path '{}' has an empty key", p.pattern));
  }
  return p;
}

}  // namespace headway::command
