#include "knowledge/html_text.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "knowledge/test_files.h"
#include "knowledge/text_lines.h"

namespace headway::knowledge {
namespace {

TEST(CorpusHtml, BlocksBecomeLinesAndInlineMarkupDisappears) {
  const char* html =
      "<!DOCTYPE html>\n<html><head><title>Tiles</title>\n"
      "<style>p { color: red; }</style><script>var x = \"<p>not text</p>\";</script></head>\n"
      "<body><h1>Memory   model</h1>\n<p>A tile holds\n  <b>448</b> bytes.</p><!-- hidden 999 -->\n"
      "<ul><li>first</li><li>second <code>dma_copy</code></li></ul>line<br>break</body></html>\n";
  EXPECT_EQ(reduce_html(html),
            "Tiles\nMemory model\nA tile holds 448 bytes.\nfirst\nsecond dma_copy\nline\nbreak\n");
}

TEST(CorpusHtml, EntitiesAreDecoded) {
  EXPECT_EQ(
      reduce_html("<p>a &lt; b &amp;&amp; c&nbsp;&gt; d &#65;&#x42; &mdash; &unknown; & x</p>"),
      "a < b && c > d AB \xE2\x80\x94 &unknown; & x\n");
  EXPECT_EQ(reduce_html("<p>&#0;</p>"), "\xEF\xBF\xBD\n");
}

TEST(CorpusHtml, PreKeepsItsLines) {
  EXPECT_EQ(reduce_html("<p>Example:</p><pre>\nfn main() {\n    let x = 1;\n}\n</pre><p>after</p>"),
            "Example:\nfn main() {\n    let x = 1;\n}\nafter\n");
}

TEST(CorpusHtml, TablesAndOddMarkup) {
  EXPECT_EQ(
      reduce_html(
          "<table><tr><th>name</th><th>bytes</th></tr><tr><td>tile</td><td>448</td></tr></table>"),
      "name | bytes\ntile | 448\n");
  EXPECT_EQ(reduce_html("<p>1 < 2 and <a href=\"x>y\">link</a></p>"), "1 < 2 and link\n");
  // A tag cut off by the end of the file is dropped (the HTML tokenizer's "eof in tag").
  EXPECT_EQ(reduce_html("<p>unterminated <b"), "unterminated\n");
  EXPECT_EQ(reduce_html("<script>never closed"), "");
  EXPECT_EQ(reduce_html(""), "");
  EXPECT_EQ(reduce_html("<p>a</p><br><br><br><p>b</p>"), "a\n\nb\n");
}

TEST(CorpusHtml, BlankLinesBetweenBlocksAreNotText) {
  EXPECT_EQ(reduce_html("<div><p>one</p>\n\n<p>two</p></div>"), "one\ntwo\n");
}

TEST(CorpusHtml, PageChromeIsDroppedByStructure) {
  const char* html =
      "<body><header><a href=/>Site</a> <form>Search</form></header>"
      "<nav><ul><li>Chapter 1</li></ul></nav>"
      "<main><article><header><h1>Tiles</h1></header><p>A tile holds 448 bytes.</p>"
      "<footer>Section note</footer></article>"
      "<aside>Related pages</aside>"
      "<div hidden>hidden text</div><p aria-hidden=\"true\">aria text</p>"
      "<p aria-hidden=\"false\">shown</p>"
      "<div role=\"navigation\">prev | next</div><div role=\"search\">Quick search</div>"
      "<div class=x role=\"contentinfo\">site info</div><ul role=menu><li>Light</li></ul>"
      "<div style=\"margin: 0; DISPLAY : none\">styled away</div>"
      "<p>Copy <button>Copy to clipboard</button>done; pick <select><option>Auto</option>"
      "</select>a theme.</p></main>"
      "<footer>&copy; 2026 Someone</footer></body>";
  EXPECT_EQ(reduce_html(html),
            "Tiles\nA tile holds 448 bytes.\nSection note\nshown\nCopy done; pick a theme.\n");
}

TEST(CorpusHtml, DroppedElementsEndWhereHtmlEndsThem) {
  // Nested elements of the same name are counted.
  EXPECT_EQ(reduce_html("<nav><nav>a</nav>b</nav><p>after</p>"), "after\n");
  // A <p> or <li> without its end tag ends at the next one or at its parent's end tag.
  EXPECT_EQ(reduce_html("<p hidden>gone<p>kept</p>"), "kept\n");
  EXPECT_EQ(reduce_html("<ul><li hidden>gone</ul><p>kept</p>"), "kept\n");
  EXPECT_EQ(reduce_html("<ul><li hidden>gone<li>kept</ul>"), "kept\n");
  // Void elements have no content to drop.
  EXPECT_EQ(reduce_html("<p>a<input hidden>b<img hidden/>c</p>"), "abc\n");
  // Markup inside comments and scripts of a dropped element does not close it.
  EXPECT_EQ(reduce_html("<nav><!-- </nav> --><script>\"</nav>\"</script>x</nav><p>y</p>"), "y\n");
  // Never closed: it runs to the end, as a browser would have it.
  EXPECT_EQ(reduce_html("<p>a</p><aside>b<p>c</p>"), "a\n");
  // Attributes: unquoted, single-quoted, without values, with '>' in a quoted value.
  EXPECT_EQ(reduce_html("<div title='a>b' hidden class=x>gone</div><div data-x>kept</div>"),
            "kept\n");
}

TEST(CorpusHtml, SuperscriptsAndSubscriptsKeepTheirMeaning) {
  EXPECT_EQ(
      reduce_html("<table><tr><td>2<sup>8</sup>-1</td><td>-(2<sup>63</sup>)</td></tr></table>"),
      "2^8-1 | -(2^63)\n");
  EXPECT_EQ(reduce_html("<p>x<sub>i</sub> + H<sub>2</sub>O, 10<sup>-6</sup></p>"),
            "x_i + H_2O, 10^-6\n");
  // Attached to nothing (a line's start, after a space), it stays plain text.
  EXPECT_EQ(reduce_html("<p><strong><sup>Syntax</sup></strong><br>Item</p><p>see <sup>1</sup></p>"),
            "Syntax\nItem\nsee 1\n");
}

// Markup that HTML parses otherwise than a tokenizer that reads tags and references one by one
// would: each expected text is what a browser shows.
TEST(CorpusHtml, CommentsEndWhereHtmlEndsThem) {
  EXPECT_EQ(reduce_html("<p>a<!-->b</p>"), "ab\n");  // `<!-->` is a whole, empty comment
  EXPECT_EQ(reduce_html("<p>c<!-- x --!>d</p>"), "cd\n");
  EXPECT_EQ(reduce_html("<p>e<!-- a > b -->f</p>"), "ef\n");
  EXPECT_EQ(reduce_html("<p>a</ p>b</p>"), "ab\n");  // `</ ` opens a comment up to the '>'
}

TEST(CorpusHtml, EveryCharacterReferenceOfHtmlIsDecoded) {
  EXPECT_EQ(reduce_html("<p>&lang;x&rang; &frac12; &hearts; &Alpha; &notin;</p>"),
            "\u27E8x\u27E9 \u00BD \u2665 \u0391 \u2209\n");
  // The legacy names that may go without their ';'; an '&' that starts no name stays.
  EXPECT_EQ(reduce_html("<p>&copy 2026 AT&T &amp x</p>"), "\u00A9 2026 AT&T & x\n");
  // Numbers 128 to 159 are read as windows-1252, as browsers read them.
  EXPECT_EQ(reduce_html("<p>&#150; &#x80; &#153;</p>"), "\u2013 \u20AC \u2122\n");
  // In attribute values too: this class is mdBook's menu bar.
  EXPECT_EQ(reduce_html("<div class=\"menu&#45;bar\">gone</div><p>kept</p>"), "kept\n");
}

TEST(CorpusHtml, ScriptStyleAndTitleHoldNoMarkup) {
  // Inside `<!--` in a script, a `<script>` ... `</script>` pair does not end the script.
  EXPECT_EQ(
      reduce_html("<script><!-- document.write(\"<script></script>\"); --></script><p>after</p>"),
      "after\n");
  EXPECT_EQ(reduce_html("<style>p::after { content: \"</p>\" }</style><p>x</p>"), "x\n");
  EXPECT_EQ(reduce_html("<title>Vec<T> in std</title><p>x</p>"), "Vec<T> in std\nx\n");
}

TEST(CorpusHtml, ImpliedEndsAndIgnoredTagsFollowHtml) {
  // A block element closes an open <p>, so a hidden paragraph ends there.
  EXPECT_EQ(reduce_html("<p hidden>gone<div>kept</div>"), "kept\n");
  // `/>` closes only void elements: this div holds "c", and is hidden.
  EXPECT_EQ(reduce_html("<p>a<input hidden>b<div hidden/>c</p>"), "ab\n");
  // A cell outside a table is no cell: its tags are ignored.
  EXPECT_EQ(reduce_html("<td>2<sup>8</sup>-1</td><td>-(2<sup>63</sup>)</td>"), "2^8-1-(2^63)\n");
}

TEST(CorpusHtml, NoBreakSpacesArePlainSpacesThatDoNotCollapse) {
  // U+00A0 written as a character, as a number and by name; a thin space (U+2009).
  EXPECT_EQ(reduce_html("<p>a\u00A0\u00A0b &#160;c&nbsp;d\u2009e</p>"), "a  b  c d e\n");
  // A line of them alone is an empty line.
  EXPECT_EQ(reduce_html("<p>a</p><p>&#160;&#160;</p><p>b</p><br><p>c</p>"), "a\n\nb\n\nc\n");
}

TEST(CorpusHtml, CarriageReturnsEndLinesInPre) {
  EXPECT_EQ(reduce_html("<pre>a\rb\r\nc</pre>"), "a\nb\nc\n");
}

// The markers of each generator's chrome, on the structure the generator writes (the real pages
// are in RealDocumentationPages below; Doxygen's manual is GPL-2, so its structure is written
// out here: doxygen-doc 1.9.4's lists.html, with its text shortened).
TEST(CorpusHtml, GeneratorPopupsAndBars) {
  EXPECT_EQ(reduce_html("<div id=\"mdbook-help-container\"><div id=\"mdbook-help-popup\">"
                        "<h2>Keyboard shortcuts</h2><p>Press <kbd>?</kbd> to show this help</p>"
                        "</div></div><div id=\"mdbook-menu-bar\" class=\"menu-bar sticky\">"
                        "<h1 class=\"menu-title\">The Book</h1></div>"
                        "<ul id=theme-list class=theme-popup><li>Ayu</li></ul>"
                        "<main><h1>Types</h1><pre><code><span class=\"boring\">fn main() {\n"
                        "</span>let b = true;\n<span class=\"boring\">}</span></code></pre>"
                        "<div class=\"test-link\"><a>Tests</a></div>"
                        "<div id=\"tests-x\" class=\"tests-popup popup-hidden\">Tests with this "
                        "rule:</div></main>"),
            "Types\nlet b = true;\n");
  EXPECT_EQ(
      reduce_html("<div class=\"body\" role=\"main\"><section><h1>keyword<a "
                  "class=\"headerlink\" href=\"#k\">\xC2\xB6</a></h1><p>Text.</p></section></div>"
                  "<div id=\"sidebarbutton\"><span>\xC2\xAB</span></div>"
                  "<div class=\"footer\">&copy; Copyright. Created using Sphinx.</div>"),
      "keyword\nText.\n");
  EXPECT_EQ(reduce_html("<body><div id=\"top\"><div id=\"titlearea\"><table><tbody><tr "
                        "id=\"projectrow\"><td id=\"projectalign\"><div "
                        "id=\"projectname\">Doxygen</div></td></tr></tbody></table></div></div>"
                        "<div id=\"side-nav\" class=\"ui-resizable side-nav-resizable\"></div>"
                        "<div id=\"doc-content\"><div class=\"header\"><div class=\"headertitle\">"
                        "<div class=\"title\">Lists </div></div></div><div class=\"contents\">"
                        "<p>Doxygen provides lists.</p></div></div>"
                        "<div id=\"nav-path\" class=\"navpath\"><ul><li class=\"footer\">Generated "
                        "by <a href=\"https://www.doxygen.org/index.html\"><img class=\"footer\" "
                        "src=\"doxygen.svg\" alt=\"doxygen\"/></a> 1.9.4 </li></ul></div></body>"),
            "Lists\nDoxygen provides lists.\n");
  EXPECT_EQ(
      reduce_html("<a class=\"skip-main-content\" href=\"#main-content\">Skip to main "
                  "content</a><rustdoc-topbar><h2>false</h2></rustdoc-topbar><main><div "
                  "class=\"main-heading\"><h1>Keyword false <button id=\"copy-path\">Copy item "
                  "path</button></h1><rustdoc-toolbar></rustdoc-toolbar><span "
                  "class=\"sub-heading\"><a class=\"src\" href=\"x\">Source</a></span></div>"
                  "<details class=\"toggle top-doc\" open><summary class=\"hideme\"><span>"
                  "Expand description</span></summary><p>A value.</p></details></main>"),
      "Keyword false\nA value.\n");
}

// Real pages as their generators shipped them (testdata/real-docs/README.md says where from and
// under which licence): the reduced page is exactly the reduced title and content, so nothing of
// the page's interface is left, and the content is all there.
struct RealPage {
  std::string path;                // under testdata/real-docs
  std::string content_start;       // where the page's content starts in the HTML
  std::string content_end;         // where it ends (not included)
  std::vector<std::string> lines;  // lines the reduced page must hold, in order
};

std::vector<std::string> lines_of(const std::string& text) { return split_lines(text); }

TEST(CorpusHtml, RealDocumentationPagesKeepTheirContentAndNoChrome) {
  const std::filesystem::path root =
      std::filesystem::path(HEADWAY_SOURCE_DIR) / "src/knowledge/testdata/real-docs";
  const std::vector<RealPage> pages = {
      {"rust-reference/types/numeric.html",
       "<main>",
       "</main>",
       {"Numeric types - The Rust Reference", "[type.numeric]", "Numeric types", "u8 | 0 | 2^8-1",
        "i64 | -(2^63) | 2^63-1", "usize and isize are at least 16-bits wide."}},
      {"rust-reference/types/boolean.html",
       "<main>",
       "</main>",
       {"Boolean type - The Rust Reference", "[type.bool]", "Boolean type", "let b: bool = true;",
        "An object with the boolean type has a size and alignment of 1 each."}},
      {"python-3.11/library/keyword.html",
       "<div class=\"body\" role=\"main\">",
       "<div class=\"sphinxsidebar\"",
       {"keyword \xE2\x80\x94 Testing for Python keywords \xE2\x80\x94 Python 3.11.2 documentation",
        "keyword \xE2\x80\x94 Testing for Python keywords", "Source code: Lib/keyword.py",
        "keyword.iskeyword(s)", "Return True if s is a Python keyword.", "New in version 3.9."}},
      {"rustdoc-std/keyword.false.html",
       "<main>",
       "</main>",
       {"false - Rust", "Keyword false", "A value of type bool representing logical false."}},
  };
  // Words of the interface of these generators; none may be left on a line of its own or in a
  // line at all (the distinctive ones).
  const std::vector<std::string> chrome_lines = {"Auto",
                                                 "Light",
                                                 "Rust",
                                                 "Coal",
                                                 "Navy",
                                                 "Ayu",
                                                 "The Rust Reference",
                                                 "Note:",
                                                 "Tests",
                                                 "Navigation",
                                                 "index",
                                                 "modules",
                                                 "next",
                                                 "previous",
                                                 "Table of Contents",
                                                 "Previous topic",
                                                 "Next topic",
                                                 "This Page",
                                                 "Source",
                                                 "Copy item path",
                                                 "Expand description",
                                                 "std"};
  const std::vector<std::string> chrome_phrases = {"Keyboard shortcuts",
                                                   "Press ",
                                                   "to navigate between chapters",
                                                   "Tests with this rule",
                                                   "Quick search",
                                                   "Show Source",
                                                   "Report a Bug",
                                                   "\xC2\xB6",
                                                   "\xC2\xAB",
                                                   "Copyright",
                                                   "Created using",
                                                   "Please donate",
                                                   "Skip to main content",
                                                   "fn main() {",
                                                   "#![allow"};
  for (const RealPage& page : pages) {
    SCOPED_TRACE(page.path);
    const std::string html = read_test_file(root / page.path);
    ASSERT_FALSE(html.empty());
    const size_t title = html.find("<title>");
    const size_t title_end = html.find("</title>");
    const size_t start = html.find(page.content_start);
    const size_t end = html.find(page.content_end, start);
    ASSERT_NE(title, std::string::npos);
    ASSERT_NE(start, std::string::npos);
    ASSERT_NE(end, std::string::npos);
    const std::string reduced = reduce_html(html);
    EXPECT_EQ(reduced, reduce_html(html.substr(title, title_end + 8 - title) +
                                   html.substr(start, end - start)));
    const std::vector<std::string> lines = lines_of(reduced);
    size_t at = 0;
    for (const std::string& expected : page.lines) {
      const auto it =
          std::find(lines.begin() + static_cast<std::ptrdiff_t>(at), lines.end(), expected);
      EXPECT_NE(it, lines.end()) << "missing or out of order: " << expected;
      if (it != lines.end()) at = static_cast<size_t>(it - lines.begin());
    }
    EXPECT_EQ(lines.front(), page.lines.front());
    for (const std::string& line : lines) {
      for (const std::string& word : chrome_lines) EXPECT_NE(line, word);
      for (const std::string& phrase : chrome_phrases) {
        EXPECT_EQ(line.find(phrase), std::string::npos) << line;
      }
    }
  }
}

}  // namespace
}  // namespace headway::knowledge
