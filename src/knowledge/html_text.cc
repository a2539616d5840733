#include "knowledge/html_text.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/ascii.h"
#include "knowledge/text_lines.h"

namespace headway::knowledge {

namespace {

constexpr auto kBlockElements = std::to_array<std::string_view>(
    {"address", "article", "aside", "blockquote", "body",     "caption",    "dd",     "details",
     "dialog",  "div",     "dl",    "dt",         "fieldset", "figcaption", "figure", "footer",
     "form",    "h1",      "h2",    "h3",         "h4",       "h5",         "h6",     "head",
     "header",  "hgroup",  "hr",    "html",       "legend",   "li",         "main",   "nav",
     "ol",      "option",  "p",     "pre",        "section",  "summary",    "table",  "tbody",
     "tfoot",   "thead",   "title", "tr",         "ul"});

constexpr auto kDroppedElements =
    std::to_array<std::string_view>({"script", "style", "template", "noscript"});

constexpr auto kNamedEntities = std::to_array<std::pair<std::string_view, char32_t>>({
    {"amp", U'&'},         {"lt", U'<'},          {"gt", U'>'},           {"quot", U'"'},
    {"apos", U'\''},       {"nbsp", U' '},        {"ensp", U' '},         {"emsp", U' '},
    {"thinsp", U' '},      {"ndash", U'\u2013'},  {"mdash", U'\u2014'},   {"minus", U'\u2212'},
    {"hellip", U'\u2026'}, {"lsquo", U'\u2018'},  {"rsquo", U'\u2019'},   {"ldquo", U'\u201C'},
    {"rdquo", U'\u201D'},  {"laquo", U'\u00AB'},  {"raquo", U'\u00BB'},   {"bull", U'\u2022'},
    {"middot", U'\u00B7'}, {"copy", U'\u00A9'},   {"reg", U'\u00AE'},     {"trade", U'\u2122'},
    {"deg", U'\u00B0'},    {"plusmn", U'\u00B1'}, {"times", U'\u00D7'},   {"divide", U'\u00F7'},
    {"micro", U'\u00B5'},  {"larr", U'\u2190'},   {"rarr", U'\u2192'},    {"uarr", U'\u2191'},
    {"darr", U'\u2193'},   {"harr", U'\u2194'},   {"rArr", U'\u21D2'},    {"le", U'\u2264'},
    {"ge", U'\u2265'},     {"ne", U'\u2260'},     {"asymp", U'\u2248'},   {"infin", U'\u221E'},
    {"sect", U'\u00A7'},   {"para", U'\u00B6'},   {"alpha", U'\u03B1'},   {"beta", U'\u03B2'},
    {"gamma", U'\u03B3'},  {"delta", U'\u03B4'},  {"epsilon", U'\u03B5'}, {"lambda", U'\u03BB'},
    {"mu", U'\u03BC'},     {"pi", U'\u03C0'},     {"sigma", U'\u03C3'},   {"tau", U'\u03C4'},
    {"sum", U'\u2211'},    {"prod", U'\u220F'},   {"radic", U'\u221A'},   {"check", U'\u2713'},
    {"cross", U'\u2717'},  {"zwj", U'\u200D'},
});

bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_html_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

template <size_t N>
bool contains(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Case-insensitive find of an ASCII needle.
size_t find_ascii_nocase(std::string_view hay, std::string_view needle, size_t from) {
  if (needle.size() > hay.size()) return std::string_view::npos;
  for (size_t i = from; i + needle.size() <= hay.size(); ++i) {
    bool match = true;
    for (size_t k = 0; k < needle.size() && match; ++k) match = lower(hay[i + k]) == needle[k];
    if (match) return i;
  }
  return std::string_view::npos;
}

// The '>' that ends the tag opened at `from`, skipping quoted attribute values; npos if none.
size_t tag_end(std::string_view html, size_t from) {
  char quote = 0;
  for (size_t i = from; i < html.size(); ++i) {
    const char c = html[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      return i;
    }
  }
  return std::string_view::npos;
}

// Decodes the character reference at html[i] == '&'; returns the characters consumed (0 when it
// is not a reference we decode, and the '&' is then literal text).
size_t decode_reference(std::string_view html, size_t i, std::string& out) {
  const size_t semi = html.find(';', i + 1);
  if (semi == std::string_view::npos || semi - i > 32) return 0;
  const std::string_view body = html.substr(i + 1, semi - i - 1);
  if (body.size() >= 2 && body[0] == '#') {
    const bool hex = body[1] == 'x' || body[1] == 'X';
    const std::string_view digits = body.substr(hex ? 2 : 1);
    if (digits.empty() || digits.size() > 8) return 0;
    uint32_t cp = 0;
    for (const char c : digits) {
      uint32_t d = 0;
      if (is_ascii_digit(c)) {
        d = static_cast<uint32_t>(c - '0');
      } else if (hex && lower(c) >= 'a' && lower(c) <= 'f') {
        d = static_cast<uint32_t>(lower(c) - 'a' + 10);
      } else {
        return 0;
      }
      cp = cp * (hex ? 16u : 10u) + d;
    }
    append_utf8(out, cp == 0 ? U'\uFFFD' : static_cast<char32_t>(cp));
    return semi - i + 1;
  }
  for (const auto& [name, cp] : kNamedEntities) {
    if (name == body) {
      append_utf8(out, cp);
      return semi - i + 1;
    }
  }
  return 0;
}

class Reducer {
 public:
  void text(std::string_view chars) {
    for (const char c : chars) {
      if (pre_depth_ > 0) {
        if (c == '\n') {
          hard_break();
        } else if (c != '\r') {
          line_ += c;
        }
      } else if (is_html_space(c)) {
        pending_space_ = !line_.empty();
      } else {
        if (pending_space_) line_ += ' ';
        pending_space_ = false;
        line_ += c;
      }
    }
  }

  void tag(std::string_view name, bool closing) {
    if (name == "br") {
      hard_break();
      return;
    }
    if (name == "td" || name == "th") {
      if (!closing && cells_++ > 0) {
        pending_space_ = false;
        line_ += " | ";
      }
      return;
    }
    if (!contains(kBlockElements, name)) return;
    soft_break();
    if (name == "tr") cells_ = 0;
    if (name == "pre") {
      if (closing) {
        pre_depth_ = pre_depth_ > 0 ? pre_depth_ - 1 : 0;
      } else {
        ++pre_depth_;
        skip_newline_ = true;
      }
    }
  }

  // True when the line so far ends in text (not at its start, not after a space).
  bool after_text() const {
    return !line_.empty() && !pending_space_ && !is_html_space(line_.back());
  }

  // After <pre>, a line break right away is not content (as in browsers).
  bool take_skip_newline() { return std::exchange(skip_newline_, false); }

  std::string finish() {
    soft_break();
    std::string out;
    bool previous_empty = true;
    for (auto& line : lines_) {
      while (!line.empty() && is_html_space(line.back())) line.pop_back();
      if (line.empty() && previous_empty) continue;
      previous_empty = line.empty();
      out += line;
      out += '\n';
    }
    if (out.size() >= 2 && out.substr(out.size() - 2) == "\n\n") out.pop_back();
    return out;
  }

 private:
  void soft_break() {
    if (!line_.empty()) lines_.push_back(std::exchange(line_, {}));
    pending_space_ = false;
  }
  void hard_break() {
    lines_.push_back(std::exchange(line_, {}));
    pending_space_ = false;
  }

  std::vector<std::string> lines_;
  std::string line_;
  bool pending_space_ = false;
  bool skip_newline_ = false;
  int pre_depth_ = 0;
  int cells_ = 0;
};

// Elements that have no content and no end tag.
constexpr auto kVoidElements =
    std::to_array<std::string_view>({"area", "base", "br", "col", "embed", "hr", "img", "input",
                                     "keygen", "link", "meta", "param", "source", "track", "wbr"});

// Elements whose end tag may be left out: an element of the same name opening inside one ends it.
constexpr auto kOptionalEndElements = std::to_array<std::string_view>(
    {"dd", "dt", "li", "option", "p", "tbody", "td", "tfoot", "th", "thead", "tr"});

// Interface elements, dropped with their content wherever they are.
constexpr auto kChromeElements = std::to_array<std::string_view>({
    "aside",
    "button",
    "nav",
    "select",
    // rustdoc's custom elements: the mobile top bar, the settings/help toolbar, the search form.
    "rustdoc-search",
    "rustdoc-toolbar",
    "rustdoc-topbar",
});

// ARIA roles of page chrome: navigation and search landmarks, the page's banner and content
// information (what <header> and <footer> of the page are), menus.
constexpr auto kChromeRoles = std::to_array<std::string_view>(
    {"banner", "contentinfo", "menu", "menubar", "navigation", "search"});

// Sectioning elements: a <header> or <footer> inside one belongs to it, not to the page.
constexpr auto kSectioningElements =
    std::to_array<std::string_view>({"article", "main", "section"});

// Interface chrome of documentation generators, by the id or class they give it (checked on real
// pages: the Rust Reference built by mdBook, the Python 3.11 manual built by Sphinx 5.3, the
// Doxygen 1.9.4 manual, rustdoc's std docs).
struct GeneratorMarker {
  std::string_view attribute;  // "id" (the whole value) or "class" (one of its tokens)
  std::string_view value;
  std::string_view element;  // the element it must be on; empty: any
};
constexpr auto kGeneratorMarkers = std::to_array<GeneratorMarker>({
    // mdBook: the keyboard-shortcut help popup, and the menu bar (sidebar and theme toggles, the
    // theme list, the search toggle, the book's title, print / repository / edit links).
    {"id", "mdbook-help-container", ""},
    {"class", "menu-bar", ""},
    {"class", "theme-popup", ""},
    // mdBook: the lines of a Rust example hidden until "Show hidden lines" (`# ` lines).
    {"class", "boring", "span"},
    // The Rust Reference (mdBook with mdbook-spec): the rules' hidden test popups and their
    // "Tests" toggles.
    {"class", "popup-hidden", ""},
    {"class", "test-link", ""},
    // Sphinx: the pilcrow permalinks after every heading, the page footer, the sidebar collapser.
    {"class", "headerlink", "a"},
    {"class", "footer", ""},
    {"id", "sidebarbutton", ""},
    // Doxygen: the title area of the page header (project name, number and brief), the footer's
    // navigation path ("Generated by doxygen").
    {"id", "titlearea", ""},
    {"class", "navpath", ""},
    // rustdoc: the skip link, "Expand description" toggles, "Source" links.
    {"class", "skip-main-content", "a"},
    {"class", "hideme", "summary"},
    {"class", "src", "a"},
});

struct Attribute {
  std::string name;  // lower-cased
  std::string value;
};

// The attributes of a start tag: `text` runs from after the tag name to before its '>'.
std::vector<Attribute> parse_attributes(std::string_view text) {
  std::vector<Attribute> out;
  size_t i = 0;
  const auto skip_space = [&] {
    while (i < text.size() && (is_html_space(text[i]) || text[i] == '/')) ++i;
  };
  while (true) {
    skip_space();
    if (i >= text.size()) break;
    Attribute a;
    while (i < text.size() && !is_html_space(text[i]) && text[i] != '=' && text[i] != '/') {
      a.name += lower(text[i++]);
    }
    while (i < text.size() && is_html_space(text[i])) ++i;
    if (i < text.size() && text[i] == '=') {
      ++i;
      while (i < text.size() && is_html_space(text[i])) ++i;
      if (i < text.size() && (text[i] == '"' || text[i] == '\'')) {
        const char quote = text[i++];
        const size_t close = text.find(quote, i);
        const size_t stop = close == std::string_view::npos ? text.size() : close;
        a.value = std::string(text.substr(i, stop - i));
        i = stop == text.size() ? stop : stop + 1;
      } else {
        while (i < text.size() && !is_html_space(text[i])) a.value += text[i++];
      }
    }
    if (a.name.empty()) {
      ++i;  // a stray '=' or quote: step over it
      continue;
    }
    out.push_back(std::move(a));
  }
  return out;
}

bool has_token(std::string_view list, std::string_view token, bool ignore_case) {
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && is_html_space(list[i])) ++i;
    const size_t start = i;
    while (i < list.size() && !is_html_space(list[i])) ++i;
    const std::string_view word = list.substr(start, i - start);
    if (word.size() != token.size() || word.empty()) continue;
    bool same = true;
    for (size_t k = 0; k < word.size() && same; ++k) {
      same = ignore_case ? lower(word[k]) == token[k] : word[k] == token[k];
    }
    if (same) return true;
  }
  return false;
}

// True when a style attribute hides the element: display:none or visibility:hidden.
bool style_hides(std::string_view style) {
  std::string compact;
  for (const char c : style) {
    if (!is_html_space(c)) compact += lower(c);
  }
  return compact.find("display:none") != std::string::npos ||
         compact.find("visibility:hidden") != std::string::npos;
}

// True when the start tag opens interface chrome that the reduction drops with its content.
// `in_section`: inside an article, main or section (a header or footer there is content).
bool is_chrome(std::string_view name, const std::vector<Attribute>& attributes, bool in_section) {
  if (contains(kChromeElements, name)) return true;
  if ((name == "header" || name == "footer") && !in_section) return true;
  for (const Attribute& a : attributes) {
    if (a.name == "hidden") return true;
    if (a.name == "aria-hidden" && collapse_whitespace(a.value) == "true") return true;
    if (a.name == "role") {
      for (const std::string_view role : kChromeRoles) {
        if (has_token(a.value, role, true)) return true;
      }
    }
    if (a.name == "style" && style_hides(a.value)) return true;
    for (const GeneratorMarker& m : kGeneratorMarkers) {
      if (a.name != m.attribute || (!m.element.empty() && m.element != name)) continue;
      if (m.attribute == "id" ? a.value == m.value : has_token(a.value, m.value, false)) {
        return true;
      }
    }
  }
  return false;
}

// The tag name starting at html[j] (lower-cased); j is moved past it.
std::string read_tag_name(std::string_view html, size_t& j) {
  std::string name;
  while (j < html.size() &&
         (is_ascii_alpha(html[j]) || is_ascii_digit(html[j]) || html[j] == '-')) {
    name += lower(html[j++]);
  }
  return name;
}

// Where the element `name` whose start tag ended just before `from` ends: just past its end tag,
// or at the end of the text when it is never closed. Same-named elements nested inside are
// counted. An element whose end tag may be left out (kOptionalEndElements) also ends where an
// element of its name opens or an end tag of an element it is inside comes. Comments and the
// content of dropped elements (script, style, ...) are stepped over.
size_t element_end(std::string_view html, size_t from, std::string_view name) {
  const bool optional_end = contains(kOptionalEndElements, name);
  int depth = optional_end ? 0 : 1;
  size_t i = from;
  while (true) {
    i = html.find('<', i);
    if (i == std::string_view::npos) return html.size();
    if (html.substr(i, 4) == "<!--") {
      const size_t end = html.find("-->", i + 4);
      if (end == std::string_view::npos) return html.size();
      i = end + 3;
      continue;
    }
    size_t j = i + 1;
    const bool closing = j < html.size() && html[j] == '/';
    if (closing) ++j;
    if (j >= html.size() || !is_ascii_alpha(html[j])) {
      ++i;
      continue;
    }
    const std::string tag = read_tag_name(html, j);
    const size_t end = tag_end(html, j);
    if (end == std::string_view::npos) return html.size();
    if (!closing && contains(kDroppedElements, tag)) {
      const size_t close = find_ascii_nocase(html, "</" + tag, end + 1);
      const size_t close_end = close == std::string_view::npos ? close : html.find('>', close);
      if (close_end == std::string_view::npos) return html.size();
      i = close_end + 1;
      continue;
    }
    const bool empty = contains(kVoidElements, tag) || html[end - 1] == '/';
    if (optional_end) {
      // Every element inside is counted: an end tag of one not opened inside ends this one.
      if (!closing && tag == name && depth == 0) return i;
      if (closing) {
        if (depth == 0) return tag == name ? end + 1 : i;
        --depth;
      } else if (!empty) {
        ++depth;
      }
    } else if (tag == name) {
      if (closing) {
        if (--depth == 0) return end + 1;
      } else if (!empty) {
        ++depth;
      }
    }
    i = end + 1;
  }
}

}  // namespace

std::string reduce_html(std::string_view html) {
  Reducer reducer;
  size_t i = 0;
  int sectioning_depth = 0;
  std::string decoded;
  while (i < html.size()) {
    const char c = html[i];
    if (c == '&') {
      decoded.clear();
      reducer.take_skip_newline();
      if (const size_t used = decode_reference(html, i, decoded); used > 0) {
        reducer.text(decoded);
        i += used;
      } else {
        reducer.text("&");
        ++i;
      }
      continue;
    }
    if (c != '<') {
      const size_t next = html.find_first_of("<&", i);
      std::string_view chunk =
          html.substr(i, next == std::string_view::npos ? html.size() - i : next - i);
      i += chunk.size();
      if (reducer.take_skip_newline()) {
        if (chunk.substr(0, 2) == "\r\n") {
          chunk.remove_prefix(2);
        } else if (!chunk.empty() && chunk[0] == '\n') {
          chunk.remove_prefix(1);
        }
      }
      reducer.text(chunk);
      continue;
    }
    if (html.substr(i, 4) == "<!--") {
      const size_t end = html.find("-->", i + 4);
      i = end == std::string_view::npos ? html.size() : end + 3;
      continue;
    }
    if (i + 1 < html.size() && (html[i + 1] == '!' || html[i + 1] == '?')) {
      const size_t end = html.find('>', i + 2);
      i = end == std::string_view::npos ? html.size() : end + 1;
      continue;
    }
    size_t j = i + 1;
    const bool closing = j < html.size() && html[j] == '/';
    if (closing) ++j;
    if (j >= html.size() || !is_ascii_alpha(html[j])) {
      reducer.text("<");
      ++i;
      continue;
    }
    const std::string name = read_tag_name(html, j);
    const size_t end = tag_end(html, j);
    if (end == std::string_view::npos) {
      reducer.text("<");
      ++i;
      continue;
    }
    i = end + 1;
    if (!closing && contains(kDroppedElements, name)) {
      const size_t close = find_ascii_nocase(html, "</" + name, i);
      const size_t close_end = close == std::string_view::npos ? close : html.find('>', close);
      i = close_end == std::string_view::npos ? html.size() : close_end + 1;
      continue;
    }
    if (!closing &&
        is_chrome(name, parse_attributes(html.substr(j, end - j)), sectioning_depth > 0)) {
      const bool empty = contains(kVoidElements, name) || html[end - 1] == '/';
      if (!empty) i = element_end(html, i, name);
      continue;
    }
    if (contains(kSectioningElements, name)) {
      sectioning_depth = closing ? std::max(0, sectioning_depth - 1) : sectioning_depth + 1;
    }
    reducer.take_skip_newline();
    if (!closing && (name == "sup" || name == "sub")) {
      if (reducer.after_text()) reducer.text(name == "sup" ? "^" : "_");
      continue;
    }
    reducer.tag(name, closing);
  }
  return reducer.finish();
}

}  // namespace headway::knowledge
