#pragma once
// A Design Tree as text for a terminal and as a Graphviz digraph.
#include <functional>
#include <string>

#include "trees/design_tree.h"

namespace headway::trees {

// An indented tree, one node per line, children by id:
//   qkv (target cpu): head #4 at 0.412 ms, 3 heads, 5 nodes
//   #1 baseline baseline [accepted] (former head) - the baseline
//   ├─ #2 design tiled {"tile":64} [slower] - SLOWER vs #1 in test #1 (...)
//   │  └─ #4 variant tiled {"tile":128} [accepted] <== HEAD 0.412 ms - FASTER vs #1 ...
//   └─ #3 design unrolled [build-failed] - error: ...
// A reason's runs of white space (newlines included) become single spaces. `annotate`, when
// given, returns a note for a node (empty: none), shown in parentheses before the reason.
std::string render_text(const DesignTree& tree,
                        const std::function<std::string(const Node&)>& annotate = {});

// A Graphviz digraph: one box per node filled by its status, an edge from each parent to each
// child, the head drawn bold with a thick border, former heads with a double border. Reasons are
// cut to one short line in the label and kept whole in the tooltip.
std::string render_dot(const DesignTree& tree);

struct DotOptions {
  // A link for a node (Graphviz URL: an SVG rendering makes the node a link to it); empty: none.
  std::function<std::string(const Node&)> link;
  // Draw the edges from the root to the head thick and red.
  bool highlight_head_path = false;
};
// As render_dot(tree), with a link per node and the head's path drawn out as `options` ask.
std::string render_dot(const DesignTree& tree, const DotOptions& options);

// The fill colour render_dot gives a status ("#rrggbb").
std::string status_color(NodeStatus status);

}  // namespace headway::trees
