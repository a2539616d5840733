#include "common/include_layers.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace headway {

namespace {

namespace fs = std::filesystem;

struct Include {
  int line = 0;
  std::string file;  // resolved, relative to the source root ("src/loop/screen.h")
};

struct Source {
  bool test = false;
  std::vector<Include> includes;
};

struct Layers {
  std::map<std::string, int> layer;         // part -> layer (0 at the bottom)
  std::map<std::string, std::string> gate;  // part -> the one part above it that may include it
};

// src/LAYERS: a line of peers, bottom up, optionally ending in `: through GATE`.
Layers read_layers(const fs::path& layers_file) {
  std::ifstream in(layers_file);
  if (!in) throw std::runtime_error("cannot read " + layers_file.string());
  const auto fail = [&](const std::string& why) {
    throw std::runtime_error(layers_file.string() + ": " + why);
  };
  Layers layers;
  int layer = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto colon = line.find(':');
    std::string gate;
    if (colon != std::string::npos) {
      std::istringstream rest(line.substr(colon + 1));
      std::string word, extra;
      if (!(rest >> word >> gate) || word != "through" || (rest >> extra)) {
        fail("a line ends in `: through PART`, not `" + line.substr(colon) + "`");
      }
    }
    std::istringstream parts(line.substr(0, colon));
    std::string part;
    bool any = false;
    while (parts >> part) {
      if (!layers.layer.emplace(part, layer).second) fail("part " + part + " is named twice");
      if (!gate.empty()) layers.gate[part] = gate;
      any = true;
    }
    if (any) ++layer;
  }
  for (const auto& [part, gate] : layers.gate) {
    const auto it = layers.layer.find(gate);
    if (it == layers.layer.end() || it->second <= layers.layer.at(part)) {
      fail("part " + part + " is reached through " + gate + ", which is not a part above it");
    }
  }
  return layers;
}

// A test file: a test, a benchmark or a helper of tests (docs/ARCHITECTURE.md).
bool is_test(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  return name.ends_with("_test.cc") || name.ends_with("_bench.cc") || name.starts_with("test_") ||
         name.find("test_support") != std::string::npos;
}

// The part of a file under src/ ("src/targets/cpu/runner/protocol.h" -> "targets/cpu"): the
// longest declared part that holds it, else its first folder, which is then undeclared.
std::string part_of(const std::string& path, const std::map<std::string, int>& layers) {
  const std::string in_src = path.substr(4);  // past "src/"
  std::string best;
  for (const auto& [part, layer] : layers) {
    if (in_src.starts_with(part + "/") && part.size() > best.size()) best = part;
  }
  if (!best.empty()) return best;
  const auto slash = in_src.find('/');
  return slash == std::string::npos ? "" : in_src.substr(0, slash);
}

// Every `#include "..."` and `#include <...>` of `file` that resolves to a file of the tree, with
// its line.
std::vector<Include> includes_of(const fs::path& root, const std::string& file) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>))re");
  std::vector<Include> out;
  std::ifstream in(root / file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (line.find("include") == std::string::npos || !std::regex_search(line, m, kInclude))
      continue;
    const bool quoted = m[1].matched;
    const std::string name = quoted ? m[1].str() : m[2].str();
    for (const fs::path& candidate :
         {fs::path("src") / name, fs::path(file).parent_path() / name}) {
      // `<...>` is looked up on the include path (src/ is on it), never beside the file.
      if (!quoted && candidate != fs::path("src") / name) continue;
      if (fs::is_regular_file(root / candidate)) {
        out.push_back({n, candidate.lexically_normal().generic_string()});
        break;
      }
    }
  }
  return out;
}

std::map<std::string, Source> read_sources(const fs::path& root, const std::string& folder) {
  std::map<std::string, Source> sources;
  if (!fs::is_directory(root / folder)) return sources;
  for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
    static const std::set<std::string> kSourceExtensions = {
        ".h", ".hh", ".hpp", ".hxx", ".inc", ".ipp", ".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh"};
    if (!entry.is_regular_file() || !kSourceExtensions.contains(entry.path().extension().string()))
      continue;
    const std::string file = fs::relative(entry.path(), root).generic_string();
    sources[file] = {is_test(file), includes_of(root, file)};
  }
  return sources;
}

// One line per include cycle among production files, each cycle reported once.
std::vector<std::string> find_cycles(const std::map<std::string, Source>& sources) {
  std::vector<std::string> cycles;
  std::map<std::string, int> state;  // 1: on the path, 2: done
  std::vector<std::string> path;
  std::function<void(const std::string&)> visit = [&](const std::string& file) {
    state[file] = 1;
    path.push_back(file);
    for (const auto& inc : sources.at(file).includes) {
      const auto it = sources.find(inc.file);
      if (it == sources.end() || it->second.test) continue;
      if (state[inc.file] == 1) {
        std::string line = "include cycle: ";
        for (auto p = std::find(path.begin(), path.end(), inc.file); p != path.end(); ++p)
          line += *p + " -> ";
        cycles.push_back(line + inc.file);
      } else if (state[inc.file] == 0) {
        visit(inc.file);
      }
    }
    path.pop_back();
    state[file] = 2;
  };
  for (const auto& [file, source] : sources) {
    if (!source.test && state[file] == 0) visit(file);
  }
  return cycles;
}

}  // namespace

std::vector<std::string> find_layer_violations(const fs::path& source_root) {
  const Layers read = read_layers(source_root / "src" / "LAYERS");
  const auto& layers = read.layer;
  const auto sources = read_sources(source_root, "src");
  // (file, line number, the violation's line), so that lines sort by number.
  std::vector<std::tuple<std::string, int, std::string>> found;
  const auto add = [&](const std::string& file, int line, const std::string& what) {
    found.emplace_back(file, line,
                       file + (line > 0 ? ":" + std::to_string(line) : "") + ": " + what);
  };
  std::set<std::string> undeclared;
  for (const auto& [file, source] : sources) {
    const std::string from = part_of(file, layers);
    if (!layers.contains(from)) {
      if (undeclared.insert(from).second) {
        add(file, 0,
            from.empty() ? "in no part (a file directly in src/)"
                         : "part " + from + " is not in src/LAYERS");
      }
      continue;
    }
    if (source.test) continue;
    for (const auto& inc : source.includes) {
      if (is_test(inc.file)) {
        add(file, inc.line, "production file includes test file " + inc.file);
        continue;
      }
      if (!inc.file.starts_with("src/")) continue;
      const std::string to = part_of(inc.file, layers);
      if (to == from || !layers.contains(to)) continue;
      const int a = layers.at(from), b = layers.at(to);
      if (b > a) add(file, inc.line, "part " + from + " includes part " + to + " (upward)");
      if (b == a) add(file, inc.line, "part " + from + " includes part " + to + " (a peer)");
      if (const auto gate = read.gate.find(to);
          b < a && gate != read.gate.end() && from != gate->second) {
        add(file, inc.line,
            "part " + from + " includes part " + to + " (reached only through " + gate->second +
                ")");
      }
    }
  }
  for (const auto& [file, source] : read_sources(source_root, "include")) {
    for (const auto& inc : source.includes) {
      if (inc.file.starts_with("src/"))
        add(file, inc.line, "the public headers include " + inc.file);
    }
  }
  for (const auto& cycle : find_cycles(sources)) found.emplace_back(cycle, 0, cycle);
  std::sort(found.begin(), found.end());
  std::vector<std::string> lines;
  for (auto& [file, line, text] : found) lines.push_back(std::move(text));
  return lines;
}

}  // namespace headway
