#include "report/tools.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace headway::report {
namespace {

bool has(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

TEST(ReportTools, SvgElementDropsThePrologue) {
  EXPECT_EQ(svg_element("<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg a=\"1\"/>"),
            "<svg a=\"1\"/>");
  EXPECT_EQ(svg_element("no svg here"), "");
}

TEST(ReportTools, ScopeSvgIdsPrefixesIdsAndTheirReferences) {
  const std::string svg =
      "<svg><g id='a'><use xlink:href='#a'/><rect grid='x' filter='url(#b)'/>"
      "<a xlink:href=\"#node-q-1\"><g id=\"n1\"/></a></g></svg>";
  EXPECT_EQ(scope_svg_ids(svg, "p0-", true),
            "<svg><g id='p0-a'><use xlink:href='#p0-a'/><rect grid='x' filter='url(#p0-b)'/>"
            "<a xlink:href=\"#p0-node-q-1\"><g id=\"p0-n1\"/></a></g></svg>");
  EXPECT_EQ(scope_svg_ids(svg, "t-", false),
            "<svg><g id='t-a'><use xlink:href='#a'/><rect grid='x' filter='url(#b)'/>"
            "<a xlink:href=\"#node-q-1\"><g id=\"t-n1\"/></a></g></svg>");
}

TEST(ReportTools, AMissingProgramNamesItsPackage) {
  try {
    require_tool("headway-no-such-program", "some-package");
    FAIL() << "no exception";
  } catch (const ToolMissing& e) {
    EXPECT_STREQ(e.what(),
                 "headway-no-such-program not found: install the Debian package some-package");
    EXPECT_EQ(e.package, "some-package");
  }
}

TEST(ReportTools, GnuplotRendersEveryPlotInOneRun) {
  if (!has("gnuplot")) GTEST_SKIP() << "gnuplot is not installed (Debian package gnuplot-nox)";
  Gnuplot g;
  g.add("one", "plot x*x title 'square'");
  g.add("two", "$d << EOD\n1 2\n2 3\nEOD\nplot $d using 1:2 with lines title 'data'", 300, 200);
  const auto svgs = g.render();
  ASSERT_EQ(svgs.size(), 2u);
  EXPECT_EQ(svgs.at("one").rfind("<svg", 0), 0u);
  EXPECT_NE(svgs.at("one").find("square"), std::string::npos);
  EXPECT_NE(svgs.at("two").find("viewBox=\"0 0 300 200\""), std::string::npos)
      << svgs.at("two").substr(0, 300);
  EXPECT_NE(svgs.at("one").find("id='gp0-"), std::string::npos) << "ids scoped per plot";
  EXPECT_NE(svgs.at("two").find("id='gp1-"), std::string::npos);
  Gnuplot bad;
  bad.add("bad", "plot this is not gnuplot");
  EXPECT_THROW(bad.render(), ToolFailed);
}

TEST(ReportTools, DotRendersSvgAndRefusesABadGraph) {
  if (!has("dot")) GTEST_SKIP() << "dot is not installed (Debian package graphviz)";
  const std::string svg = dot_to_svg("digraph g { a -> b; a [URL=\"#x\"]; }");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("class=\"node\""), std::string::npos);
  EXPECT_NE(svg.find("xlink:href=\"#x\""), std::string::npos);
  EXPECT_THROW(dot_to_svg("digraph { -> }"), ToolFailed);
}

TEST(ReportTools, UnifiedDiffOfTwoTexts) {
  EXPECT_EQ(unified_diff("a\nb\n", "a\nb\n", "x", "y"), "");
  const std::string d = unified_diff("a\nb\nc\n", "a\nB\nc\n", "#1", "#2");
  EXPECT_EQ(d, "--- #1\n+++ #2\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
}

}  // namespace
}  // namespace headway::report
