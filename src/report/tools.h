#pragma once
// The programs the report calls: gnuplot (plots), Graphviz dot (Design Trees), both to SVG, and
// diff (diffutils) for a node's change against its parent. Each runs as a subprocess on files in
// a scratch directory; nothing is drawn by hand.
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>

namespace headway::report {

// A program the report needs is not installed: `package` is the Debian package that has it.
struct ToolMissing : std::runtime_error {
  ToolMissing(const std::string& program, const std::string& package);
  std::string program;
  std::string package;
};

// A program ran and failed (its output is in the message).
struct ToolFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws ToolMissing unless `program` is found in PATH.
void require_tool(const std::string& program, const std::string& package);

// A fresh directory under the system temp dir, removed with its contents on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Renders gnuplot plots to SVG in one gnuplot process. Each plot is a script body (everything
// after `set terminal` and `set output`: settings, data blocks, one plot command) that must
// leave the settings it changed to the next plot's `reset`.
class Gnuplot {
 public:
  // `name` keys the result; a second plot of the same name replaces the first.
  void add(const std::string& name, const std::string& body, int width = 560, int height = 260);
  // The SVG of every plot, by name, each starting at "<svg". Throws ToolMissing without gnuplot
  // (package gnuplot-nox) and ToolFailed when gnuplot fails or a plot makes no SVG.
  std::map<std::string, std::string> render() const;
  size_t size() const { return plots_.size(); }

 private:
  struct Plot {
    std::string body;
    int width;
    int height;
  };
  std::map<std::string, Plot> plots_;
};

// The SVG of a Graphviz digraph, starting at "<svg". Throws ToolMissing without dot (package
// graphviz) and ToolFailed when dot rejects the graph.
std::string dot_to_svg(const std::string& dot);

// `diff -u` of two texts with the given labels; empty when they are equal. Throws ToolMissing
// without diff (package diffutils) and ToolFailed when diff fails.
std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& before_label, const std::string& after_label);

// `svg` with every id attribute prefixed by `prefix`, so that several SVGs can share one HTML
// document; with `references`, the in-document references (href='#..', href="#..", url(#..))
// are prefixed too (for ids defined and used inside the SVG).
std::string scope_svg_ids(const std::string& svg, const std::string& prefix, bool references);

// The text from the first "<svg" on (an inline SVG without XML prologue or DOCTYPE); empty when
// there is no "<svg".
std::string svg_element(const std::string& document);

}  // namespace headway::report
