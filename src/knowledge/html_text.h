#pragma once
// HTML reduced to text, so that HTML documentation can be cited by line like Markdown.
//
// The HTML is parsed as a browser parses it (the HTML5 parsing algorithm, by gumbo): tags,
// comments, character references, the content of <script>, <style> and <title>, and where an
// element ends (an end tag left out, a tag the context ignores, a tag cut off by the end of the
// input) are HTML's. The reduction, applied to the parsed document:
// - <script>, <style>, <template> and <noscript> elements are dropped with their content;
//   comments, <!DOCTYPE ...>, <?...?> and tags themselves are dropped;
// - interface chrome is dropped with its content, by structure: <nav>, <aside>, <button>,
//   <select>; <header> and <footer> of the page (not inside an article, main or section);
//   elements hidden from readers (the `hidden` attribute, aria-hidden="true", a style with
//   display:none or visibility:hidden); the ARIA roles navigation, search, banner, contentinfo,
//   menu and menubar; and the chrome that documentation generators mark by id or class (mdBook's
//   help popup, menu bar and theme list, Sphinx's permalinks and footer, the Rust Reference's
//   rule-test popups, Doxygen's title area and navigation path, rustdoc's toolbars, skip link,
//   "Expand description" and "Source"; the list is kGeneratorMarkers in html_text.cc);
// - <sup>x</sup> right after text becomes ^x and <sub>x</sub> becomes _x (2<sup>8</sup>-1 is
//   2^8-1, x<sub>i</sub> is x_i); at the start of a line or after a space, where it is attached to
//   nothing, it is x;
// - a block element (p, div, h1-h6, li, tr, pre, table, section, ...) starts and ends a line,
//   <br> ends one, <td>/<th> after the first in a row add " | ";
// - outside <pre>, whitespace (including the source's line breaks) collapses to one space, as a
//   browser shows it; inside <pre> the text keeps its line breaks and spacing;
// - character references are decoded, every one HTML defines (&amp; &lt; &#60; &#x3C; ...);
//   an unknown name is kept as written;
// - a no-break space (U+00A0, however written: &nbsp;, &#160; or the character) and the en, em
//   and thin spaces become plain spaces that do not collapse;
// - lines are trimmed at the end and runs of empty lines collapse to one; there is no empty line
//   at the start or the end.
// A citation of an HTML file counts the lines of this reduced text (which `headway docs index`
// stores as the file's artifact), not the lines of the HTML source.
#include <string>
#include <string_view>

namespace headway::knowledge {

// The reduced text of an HTML document: lines each ending in '\n' (empty when there is no text).
// Never fails: a '<' that opens no tag is text, as HTML has it. Its time grows with the square of
// the nesting depth (20,000 nested elements take about a second).
std::string reduce_html(std::string_view html);

}  // namespace headway::knowledge
