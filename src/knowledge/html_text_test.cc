#include "knowledge/html_text.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(reduce_html("<p>unterminated <b"), "unterminated <b\n");
  EXPECT_EQ(reduce_html("<script>never closed"), "");
  EXPECT_EQ(reduce_html(""), "");
  EXPECT_EQ(reduce_html("<p>a</p><br><br><br><p>b</p>"), "a\n\nb\n");
}

TEST(CorpusHtml, SameHtmlSameLines) {
  const char* html = "<div><p>one</p>\n\n<p>two</p></div>";
  EXPECT_EQ(reduce_html(html), reduce_html(html));
  EXPECT_EQ(reduce_html(html), "one\ntwo\n");
}

}  // namespace
}  // namespace headway::knowledge
