#include "trees/tree_render.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace headway::trees {

namespace {

std::string one_line(std::string_view text) {
  std::string out;
  bool gap = false;
  for (const char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      gap = true;
      continue;
    }
    if (gap && !out.empty()) out += ' ';
    gap = false;
    out += c;
  }
  return out;
}

std::string shorten(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t cut = limit - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

struct TreeView {
  std::vector<Node> nodes;
  std::map<int64_t, std::vector<size_t>> children;  // parent id -> indexes into nodes
  std::vector<HeadRecord> history;
  std::set<int64_t> former_heads;
  HeadRecord head;
};

TreeView view_of(const DesignTree& tree) {
  TreeView v;
  v.nodes = tree.nodes();
  for (size_t i = 0; i < v.nodes.size(); ++i) {
    if (v.nodes[i].parent_id) v.children[*v.nodes[i].parent_id].push_back(i);
  }
  v.history = tree.head_history();
  v.head = v.history.back();
  for (const auto& h : v.history) {
    if (h.node_id != v.head.node_id) v.former_heads.insert(h.node_id);
  }
  return v;
}

std::string params_text(const nlohmann::json& params) {
  if (params.is_null() || (params.is_object() && params.empty())) return "";
  return params.dump();
}

std::string node_line(const Node& n, const TreeView& v,
                      const std::function<std::string(const Node&)>& annotate) {
  std::string line = fmt::format("#{} {}", n.id, to_string(n.kind));
  if (!n.design.empty()) line += " " + n.design;
  if (const std::string p = params_text(n.params); !p.empty()) line += " " + p;
  line += fmt::format(" [{}]", to_string(n.status));
  if (n.id == v.head.node_id) {
    line += " <== HEAD";
    if (v.head.median_ms) line += fmt::format(" {:.4g} ms", *v.head.median_ms);
  } else if (v.former_heads.count(n.id) > 0) {
    line += " (former head)";
  }
  if (annotate) {
    if (const std::string note = annotate(n); !note.empty()) line += " (" + one_line(note) + ")";
  }
  if (!n.reason.empty()) line += " - " + one_line(n.reason);
  return line;
}

void render_children(const TreeView& v, int64_t parent, const std::string& prefix,
                     const std::function<std::string(const Node&)>& annotate, std::string& out) {
  const auto it = v.children.find(parent);
  if (it == v.children.end()) return;
  const auto& kids = it->second;
  for (size_t k = 0; k < kids.size(); ++k) {
    const bool last = k + 1 == kids.size();
    const Node& n = v.nodes[kids[k]];
    out += prefix + (last ? "└─ " : "├─ ") + node_line(n, v, annotate) + "\n";
    render_children(v, n.id, prefix + (last ? "   " : "│  "), annotate, out);
  }
}

std::string dot_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string status_color(NodeStatus status) {
  switch (status) {
    case NodeStatus::kProposed:
      return "#ffffff";
    case NodeStatus::kLintRejected:
      return "#fdd49e";
    case NodeStatus::kBuildFailed:
      return "#fc8d59";
    case NodeStatus::kIncorrect:
      return "#ef6548";
    case NodeStatus::kCrashed:
      return "#d7301f";
    case NodeStatus::kTimedOut:
      return "#fdbb84";
    case NodeStatus::kRacedOut:
      return "#d9d9d9";
    case NodeStatus::kSlower:
      return "#fee391";
    case NodeStatus::kSame:
      return "#fff7bc";
    case NodeStatus::kInconclusive:
      return "#c6dbef";
    case NodeStatus::kAccepted:
      return "#a1d99b";
    case NodeStatus::kCheated:
      return "#67000d";
  }
  return "#ffffff";
}

std::string render_text(const DesignTree& tree,
                        const std::function<std::string(const Node&)>& annotate) {
  const TreeView v = view_of(tree);
  const KernelRecord k = tree.record();
  std::string out = fmt::format("{} (target {}): head #{}", k.name, k.target, v.head.node_id);
  if (v.head.median_ms) out += fmt::format(" at {:.4g} ms", *v.head.median_ms);
  out += fmt::format(", {} head{}, {} node{}\n", v.history.size(), v.history.size() == 1 ? "" : "s",
                     v.nodes.size(), v.nodes.size() == 1 ? "" : "s");
  for (const Node& n : v.nodes) {
    if (n.parent_id) continue;
    out += node_line(n, v, annotate) + "\n";
    render_children(v, n.id, "", annotate, out);
  }
  return out;
}

std::string render_dot(const DesignTree& tree) { return render_dot(tree, DotOptions{}); }

std::string render_dot(const DesignTree& tree, const DotOptions& options) {
  const TreeView v = view_of(tree);
  std::set<int64_t> head_path;
  if (options.highlight_head_path) {
    for (const Node& n : tree.path_to_root(v.head.node_id)) head_path.insert(n.id);
  }
  std::string out = fmt::format("digraph \"{}\" {{\n", dot_escape(tree.kernel()));
  out += "  rankdir=TB;\n";
  out += "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n";
  for (const Node& n : v.nodes) {
    std::string label = fmt::format("#{} {}", n.id, to_string(n.kind));
    if (!n.design.empty()) label += " " + n.design;
    if (const std::string p = params_text(n.params); !p.empty()) label += "\n" + shorten(p, 60);
    label += fmt::format("\n[{}]", to_string(n.status));
    std::string attrs = fmt::format("fillcolor=\"{}\"", status_color(n.status));
    if (n.id == v.head.node_id) {
      label += "\nHEAD";
      if (v.head.median_ms) label += fmt::format(" {:.4g} ms", *v.head.median_ms);
      attrs += ", style=\"rounded,filled,bold\", penwidth=3";
    } else if (v.former_heads.count(n.id) > 0) {
      label += "\nformer head";
      attrs += ", peripheries=2";
    }
    const std::string reason = one_line(n.reason);
    if (!reason.empty()) {
      label += "\n" + shorten(reason, 60);
      attrs += fmt::format(", tooltip=\"{}\"", dot_escape(reason));
    }
    if (options.link) {
      if (const std::string url = options.link(n); !url.empty())
        attrs += fmt::format(", URL=\"{}\", target=\"_self\"", dot_escape(url));
    }
    out += fmt::format("  n{} [label=\"{}\", {}];\n", n.id, dot_escape(label), attrs);
  }
  for (const Node& n : v.nodes) {
    if (!n.parent_id) continue;
    if (head_path.count(n.id) > 0) {
      out += fmt::format("  n{} -> n{} [color=\"#c0392b\", penwidth=3];\n", *n.parent_id, n.id);
    } else {
      out += fmt::format("  n{} -> n{};\n", *n.parent_id, n.id);
    }
  }
  out += "}\n";
  return out;
}

}  // namespace headway::trees
