#pragma once
// What an agent is shown about a kernel, assembled for the designer and variant templates
// (prompts/designer.mustache, prompts/variant.mustache): the head's source and figures, the
// headers candidates may include, the cheat sheet (chip facts, instruction sets, legality rules,
// the cited summary of the docs) and what was already tried on the kernel and why it failed.
//
// Its size is bounded section by section (ContextLimits, in characters): a section over its
// limit is cut with a marker that says how much was left out, and the tried list keeps whole
// entries, most recent first, up to its limit. The rendered prompt is at most the template's own
// text plus the sum of the limits.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "loop/proposer.h"
#include "targets/target.h"

namespace headway::agents {

struct ContextLimits {
  size_t head_source = 32000;
  size_t headers = 80000;  // all headers together (the cpu target's five: about 75,300)
  size_t cheat_sheet = 12000;
  size_t tried = 6000;
};

// text, or its first part with "\n[... N characters cut ...]\n" so that the result has at most
// `limit` characters (and at least the marker's own length when limit is smaller than it).
std::string cut_to(std::string_view text, size_t limit);

// The headers candidates may include, as template data [{path, text}]: each header's text cut
// (cut_to) to what is left of `limit` characters for all of them together, and none after the
// one that used the last of it.
nlohmann::json headers_data(const targets::Target& target, size_t limit);

// The template data: target, toolchain, kernel, head_design, head_ms, floor_ms (as "%.3f"
// text, absent when unknown), head_source, headers [{path, text}], cheat_sheet, has_tried and
// tried [{design, proposer, status, reason}].
nlohmann::json kernel_prompt_data(const loop::ProposalContext& ctx, const targets::Target& target,
                                  std::string_view cheat_sheet, const ContextLimits& limits = {});

}  // namespace headway::agents
