#include "report/tools.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <sstream>
#include <system_error>
#include <vector>

#include "common/file_io.h"
#include "common/subprocess.h"

namespace headway::report {

namespace fs = std::filesystem;

namespace {

constexpr double kToolSeconds = 120.0;

bool in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / program;
    if (access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate)) return true;
  }
  return false;
}

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

// gnuplot's single-quoted string: a quote is doubled.
std::string gnuplot_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

ToolMissing::ToolMissing(const std::string& program_name, const std::string& package_name)
    : std::runtime_error(
          fmt::format("{} not found: install the Debian package {}", program_name, package_name)),
      program(program_name),
      package(package_name) {}

void require_tool(const std::string& program, const std::string& package) {
  if (!in_path(program)) throw ToolMissing(program, package);
}

ScratchDir::ScratchDir() {
  std::string pattern = (fs::temp_directory_path() / "headway-report-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot make a scratch directory");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void Gnuplot::add(const std::string& name, const std::string& body, int width, int height) {
  plots_[name] = Plot{body, width, height};
}

std::map<std::string, std::string> Gnuplot::render() const {
  require_tool("gnuplot", "gnuplot-nox");
  std::map<std::string, std::string> svgs;
  if (plots_.empty()) return svgs;
  ScratchDir dir;
  std::string script;
  std::vector<std::pair<std::string, fs::path>> outputs;
  for (const auto& [name, plot] : plots_) {
    const fs::path out = dir.path() / fmt::format("plot{}.svg", outputs.size());
    outputs.emplace_back(name, out);
    script += fmt::format(
        "reset\nset terminal svg size {},{} dynamic noenhanced font 'Helvetica,11' background "
        "rgb 'white'\nset output {}\n{}\nunset output\n",
        plot.width, plot.height, gnuplot_quoted(out.string()), plot.body);
  }
  const fs::path script_path = dir.path() / "plots.gp";
  write_file(script_path, script);
  const ProcessResult r = run_process({"gnuplot", script_path.string()}, kToolSeconds);
  if (!r.ok()) {
    throw ToolFailed(fmt::format("gnuplot failed: {}", r.started ? first_line(r.output) : r.error));
  }
  for (const auto& [name, path] : outputs) {
    const std::string svg = svg_element(read_file(path).value_or(""));
    if (svg.empty()) throw ToolFailed(fmt::format("gnuplot made no SVG for plot {}", name));
    svgs[name] = scope_svg_ids(svg, fmt::format("gp{}-", svgs.size()), true);
  }
  return svgs;
}

std::string dot_to_svg(const std::string& dot) {
  require_tool("dot", "graphviz");
  ScratchDir dir;
  write_file(dir.path() / "tree.dot", dot);
  const fs::path out = dir.path() / "tree.svg";
  const ProcessResult r = run_process(
      {"dot", "-Tsvg", "-o", out.string(), (dir.path() / "tree.dot").string()}, kToolSeconds);
  if (!r.ok()) {
    throw ToolFailed(fmt::format("dot failed: {}", r.started ? first_line(r.output) : r.error));
  }
  std::string svg = svg_element(read_file(out).value_or(""));
  if (svg.empty()) throw ToolFailed("dot made no SVG");
  return svg;
}

std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& before_label, const std::string& after_label) {
  if (before == after) return "";
  require_tool("diff", "diffutils");
  ScratchDir dir;
  write_file(dir.path() / "a", before);
  write_file(dir.path() / "b", after);
  const ProcessResult r =
      run_process({"diff", "-u", "--label", before_label, "--label", after_label,
                   (dir.path() / "a").string(), (dir.path() / "b").string()},
                  kToolSeconds);
  // diff exits 1 when the files differ, 0 when they are equal, 2 on trouble.
  if (!r.started || r.timed_out || r.signal != 0 || r.exit_code > 1) {
    throw ToolFailed(fmt::format("diff failed: {}", r.started ? first_line(r.output) : r.error));
  }
  return r.output;
}

std::string scope_svg_ids(const std::string& svg, const std::string& prefix, bool references) {
  std::vector<std::string> marks = {"id='", "id=\""};
  if (references) {
    for (const char* m : {"href='#", "href=\"#", "url(#"}) marks.emplace_back(m);
  }
  std::string out;
  out.reserve(svg.size() + svg.size() / 16);
  size_t i = 0;
  while (i < svg.size()) {
    size_t best = std::string::npos, best_len = 0;
    for (const auto& m : marks) {
      size_t at = svg.find(m, i);
      // An id attribute follows white space: not the tail of another name (e.g. "grid=").
      while (at != std::string::npos && m[0] == 'i' &&
             (at == 0 || !std::isspace(static_cast<unsigned char>(svg[at - 1])))) {
        at = svg.find(m, at + 1);
      }
      if (at < best) {
        best = at;
        best_len = m.size();
      }
    }
    if (best == std::string::npos) {
      out.append(svg, i, std::string::npos);
      break;
    }
    out.append(svg, i, best + best_len - i);
    out += prefix;
    i = best + best_len;
  }
  return out;
}

std::string svg_element(const std::string& document) {
  const auto at = document.find("<svg");
  return at == std::string::npos ? std::string() : document.substr(at);
}

}  // namespace headway::report
