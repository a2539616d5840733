#include "agents/kernel_prompt.h"

#include <fmt/format.h>

namespace headway::agents {

std::string cut_to(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  // The marker's digits depend on how much is cut; size it for the largest count first.
  const auto marker = [](size_t n) { return fmt::format("\n[... {} characters cut ...]\n", n); };
  const size_t room = limit > marker(text.size()).size() ? limit - marker(text.size()).size() : 0;
  return std::string(text.substr(0, room)) + marker(text.size() - room);
}

nlohmann::json headers_data(const targets::Target& target, size_t limit) {
  nlohmann::json headers = nlohmann::json::array();
  size_t left = limit;
  for (const auto& h : target.candidate_headers()) {
    const std::string text = cut_to(h.text, left);
    left -= std::min(left, text.size());
    headers.push_back({{"path", h.path}, {"text", text}});
    if (left == 0) break;
  }
  return headers;
}

nlohmann::json kernel_prompt_data(const loop::ProposalContext& ctx, const targets::Target& target,
                                  std::string_view cheat_sheet, const ContextLimits& limits) {
  nlohmann::json data = {
      {"target", target.name()},
      {"toolchain",
       target.identity().version.empty() ? target.toolchain() : target.identity().version},
      {"kernel", ctx.kernel ? std::string(ctx.kernel->name()) : std::string()},
      {"head_design", ctx.head_design},
      {"head_source", cut_to(ctx.head_source, limits.head_source)},
      {"cheat_sheet", cut_to(cheat_sheet, limits.cheat_sheet)}};
  if (ctx.head_ms) data["head_ms"] = fmt::format("{:.3f}", *ctx.head_ms);
  if (ctx.floor_ms) data["floor_ms"] = fmt::format("{:.3f}", *ctx.floor_ms);

  data["headers"] = headers_data(target, limits.headers);

  nlohmann::json tried = nlohmann::json::array();
  size_t left = limits.tried;
  for (const auto& t : ctx.tried) {
    // An entry as the template writes it: "- design (proposer): status: reason\n".
    const std::string reason = cut_to(t.reason, 300);
    const size_t size = t.design.size() + t.proposer.size() + t.status.size() + reason.size() + 12;
    if (size > left) break;
    left -= size;
    tried.push_back(
        {{"design", t.design}, {"proposer", t.proposer}, {"status", t.status}, {"reason", reason}});
  }
  data["has_tried"] = !tried.empty();
  data["tried"] = tried;
  return data;
}

}  // namespace headway::agents
