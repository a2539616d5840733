#include "report/html_report.h"

#include <gtest/gtest.h>

#include <regex>

#include "report/plots.h"
#include "report/report_test_support.h"

namespace headway::report {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

Figures fake_figures() {
  Figures f;
  f.plots[bars_name("qkv")] = "<svg id='bars'></svg>";
  f.plots[head_time_name("qkv")] = "<svg id='head'></svg>";
  f.plots[wealth_name("qkv", 1)] = "<svg id='wealth'></svg>";
  f.trees["qkv"] = "<svg id='tree'><g class=\"node\"></g></svg>";
  return f;
}

TEST(HtmlReport, EveryPartHasItsPlace) {
  const std::string html = render_html(sample_report(), fake_figures());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Summary: geomean, ratio to the floor, agents, knowledge, calibration.
  EXPECT_NE(html.find("<b>4x</b><span>geomean speedup"), std::string::npos);
  EXPECT_NE(html.find("<td>2x</td>"), std::string::npos) << "head 2 ms over a 1 ms floor";
  EXPECT_NE(html.find("1 calls, 1000 input and 200 output tokens, $0.25"), std::string::npos);
  EXPECT_NE(
      html.find("citations: 12 supported-by-text, 1 unsupported; rules: 3 (3 verified); facts: 24"),
      std::string::npos);
  EXPECT_NE(html.find("A/A calibration (aa.json): target sim, rule betting, alpha 0.05, 300 "
                      "decisions: FASTER 2.0%"),
            std::string::npos);
  // Each figure inlined once, in its figure element; the tree in its own.
  for (const char* svg :
       {"<svg id='bars'>", "<svg id='head'>", "<svg id='wealth'>", "<svg id='tree'>"})
    EXPECT_EQ(count(html, svg), 1u) << svg;
  EXPECT_EQ(count(html, "<figure class=\"plot"), 3u);
  EXPECT_EQ(count(html, "<figure class=\"tree\""), 1u);
  // A details element per node and per test, with the anchors the tree links to.
  for (const char* id :
       {"id=\"node-qkv-1\"", "id=\"node-qkv-2\"", "id=\"node-qkv-3\"", "id=\"test-qkv-1\""})
    EXPECT_EQ(count(html, id), 1u) << id;
  EXPECT_NE(html.find("<span class=\"add\">+int tiled&lt;64&gt;;</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"del\">-int base;</span>"), std::string::npos);
  EXPECT_NE(html.find("x.cc:1: error: &#39;a&#39; was not declared"), std::string::npos);
  EXPECT_NE(html.find("error: a|b &lt;not declared&gt;"), std::string::npos) << "reasons escaped";
  EXPECT_NE(html.find("openai m, role design, call 1"), std::string::npos);
  EXPECT_NE(html.find("(recorded with the test)"), std::string::npos);
  // The browser test's hooks.
  EXPECT_NE(html.find("id=\"script-status\""), std::string::npos);
  EXPECT_LT(html.find("window.onerror"), html.find("<style>")) << "the error hook comes first";
}

TEST(HtmlReport, EachRunsPoolHasARowPerWorkerAndItsPlot) {
  Report r = sample_report();
  EXPECT_EQ(render_html(r, fake_figures()).find("Device pools"), std::string::npos) << "no pool";
  r.pools = {sample_pool()};
  Figures f = fake_figures();
  f.plots[pool_use_name(7)] = "<svg id='pool'></svg>";
  const std::string html = render_html(r, f);
  EXPECT_NE(html.find("<h2>Device pools</h2><h3>slurm pool of 2 devices (run ended "
                      "2026-11-30T12:00:00.000Z): 10 jobs; busy 65% of the 2.3 device-minutes "
                      "held</h3>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"l\">w1</td><td class=\"l\">dev1</td><td>7</td><td>98.0</td>"
                      "<td>60.0</td><td>61%</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>40.0</td><td>30.0</td><td>75%</td>"), std::string::npos) << "w2";
  EXPECT_EQ(count(html, "<svg id='pool'>"), 1u);
  EXPECT_LT(html.find("id=\"pools\""), html.find("id=\"kernel-qkv\""));
}

TEST(HtmlReport, NothingComesFromElsewhere) {
  const std::string html = render_html(sample_report(), fake_figures());
  EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=\s*["']?(https?:|//))")));
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url(http"), std::string::npos);
}

TEST(HtmlReport, MissingFiguresAreSaidSo) {
  Report r = sample_report();
  const std::string html = render_html(r, Figures{});
  EXPECT_NE(html.find("no tree drawn"), std::string::npos);
  EXPECT_EQ(count(html, "<figure class=\"plot"), 0u);
  r.kernels.clear();
  EXPECT_NE(render_html(r, Figures{}).find("No kernels yet"), std::string::npos);
}

TEST(HtmlReport, EscapesText) {
  EXPECT_EQ(html_escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

}  // namespace
}  // namespace headway::report
