#include "knowledge/html_text.h"

#include <gumbo.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "knowledge/text_lines.h"

// The parsing (tokens, character references, the tree with its implied and omitted tags) is
// gumbo's, an HTML5 parser that follows the WHATWG algorithm as a browser does; this file decides
// what of the tree is text.

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

bool is_html_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

template <size_t N>
bool contains(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The no-break space and the en, em and thin spaces (UTF-8), which the reduction writes as plain
// spaces that do not collapse.
constexpr auto kFixedSpaces =
    std::to_array<std::string_view>({"\u00A0", "\u2002", "\u2003", "\u2009"});

// The length of the fixed space at text[i]; 0 when there is none.
size_t fixed_space_at(std::string_view text, size_t i) {
  for (const std::string_view space : kFixedSpaces) {
    if (text.substr(i, space.size()) == space) return space.size();
  }
  return 0;
}

class Reducer {
 public:
  void text(std::string_view chars) {
    for (size_t i = 0; i < chars.size(); ++i) {
      const char c = chars[i];
      if (const size_t n = fixed_space_at(chars, i); n > 0) {
        // A space that never collapses, as a browser shows a no-break space.
        if (pending_space_ && pre_depth_ == 0) line_ += ' ';
        pending_space_ = false;
        line_ += ' ';
        i += n - 1;
      } else if (pre_depth_ > 0) {
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
      }
    }
  }

  // True when the line so far ends in text (not at its start, not after a space).
  bool after_text() const {
    return !line_.empty() && !pending_space_ && !is_html_space(line_.back());
  }

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
  int pre_depth_ = 0;
  int cells_ = 0;
};

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

// True when the element is interface chrome that the reduction drops with its content.
// `attributes`: gumbo's, names lower-cased and values with their references decoded.
// `in_section`: inside an article, main or section (a header or footer there is content).
bool is_chrome(std::string_view name, const GumboVector& attributes, bool in_section) {
  if (contains(kChromeElements, name)) return true;
  if ((name == "header" || name == "footer") && !in_section) return true;
  for (unsigned k = 0; k < attributes.length; ++k) {
    const auto& attribute = *static_cast<const GumboAttribute*>(attributes.data[k]);
    const std::string_view attribute_name = attribute.name;
    const std::string_view value = attribute.value;
    if (attribute_name == "hidden") return true;
    if (attribute_name == "aria-hidden" && collapse_whitespace(value) == "true") return true;
    if (attribute_name == "role") {
      for (const std::string_view role : kChromeRoles) {
        if (has_token(value, role, true)) return true;
      }
    }
    if (attribute_name == "style" && style_hides(value)) return true;
    for (const GeneratorMarker& m : kGeneratorMarkers) {
      if (attribute_name != m.attribute || (!m.element.empty() && m.element != name)) continue;
      if (m.attribute == "id" ? value == m.value : has_token(value, m.value, false)) return true;
    }
  }
  return false;
}

// An element's name, lower-cased: gumbo's for the elements it knows, else as written (custom
// elements such as <rustdoc-toolbar>).
std::string element_name(const GumboElement& element) {
  if (element.tag != GUMBO_TAG_UNKNOWN) return gumbo_normalized_tagname(element.tag);
  GumboStringPiece piece = element.original_tag;
  if (piece.length == 0) return "";
  gumbo_tag_from_original_text(&piece);
  std::string name(piece.data, piece.length);
  for (char& c : name) c = lower(c);
  return name;
}

// Walks the tree in document order, without recursion (a page may nest deeply).
void reduce_tree(const GumboNode& root, Reducer& reducer) {
  struct Open {
    const GumboNode* node;
    std::string name;
    unsigned next = 0;  // the child to visit next
  };
  std::vector<Open> path;
  int sectioning_depth = 0;
  const auto enter = [&](const GumboNode& node) {
    switch (node.type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
      case GUMBO_NODE_WHITESPACE:
        reducer.text(node.v.text.text);
        return;
      case GUMBO_NODE_DOCUMENT:
        path.push_back({&node, ""});
        return;
      case GUMBO_NODE_ELEMENT:
        break;
      default:  // comments; <template>, dropped with its content
        return;
    }
    std::string name = element_name(node.v.element);
    if (contains(kDroppedElements, name) ||
        is_chrome(name, node.v.element.attributes, sectioning_depth > 0)) {
      return;
    }
    if (name == "br") {  // void: a line break, with no end
      reducer.tag(name, false);
      return;
    }
    if (contains(kSectioningElements, name)) ++sectioning_depth;
    if (name == "sup" || name == "sub") {
      if (reducer.after_text()) reducer.text(name == "sup" ? "^" : "_");
    } else {
      reducer.tag(name, false);
    }
    path.push_back({&node, std::move(name)});
  };
  enter(root);
  while (!path.empty()) {
    Open& open = path.back();
    const GumboVector& children = open.node->type == GUMBO_NODE_DOCUMENT
                                      ? open.node->v.document.children
                                      : open.node->v.element.children;
    if (open.next < children.length) {
      enter(*static_cast<const GumboNode*>(children.data[open.next++]));
      continue;
    }
    if (contains(kSectioningElements, open.name)) --sectioning_depth;
    if (open.node->type == GUMBO_NODE_ELEMENT) reducer.tag(open.name, true);
    path.pop_back();
  }
}

}  // namespace

std::string reduce_html(std::string_view html) {
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;  // the parse errors are not used: keep none
  const auto destroy = [&options](GumboOutput* output) { gumbo_destroy_output(&options, output); };
  const std::unique_ptr<GumboOutput, decltype(destroy)> parsed(
      gumbo_parse_with_options(&options, html.empty() ? "" : html.data(), html.size()), destroy);
  Reducer reducer;
  reduce_tree(*parsed->document, reducer);
  return reducer.finish();
}

}  // namespace headway::knowledge
