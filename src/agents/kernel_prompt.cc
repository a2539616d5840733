#include "agents/kernel_prompt.h"

#include <fmt/format.h>

#include "common/file_io.h"
#include "kernels/kernel_spec.h"

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

namespace {

// A spec kernel's contract as the prompt states it (prompts/context.mustache).
nlohmann::json spec_data(const KernelSpec& spec, const ContextLimits& limits) {
  nlohmann::json arguments = nlohmann::json::array();
  for (const auto& a : spec.arguments) {
    arguments.push_back({{"name", a.name},
                         {"role", argument_role_name(a.role)},
                         {"type", element_type_name(a.type)},
                         {"shape", "[" + shape_text(a) + "]"}});
  }
  std::string shapes;
  for (const auto& s : spec.shapes) {
    std::string dims;
    for (size_t d = 0; d < spec.dims.size(); ++d)
      dims += fmt::format("{}{} = {}", d ? ", " : "", spec.dims[d], s.dims[d]);
    shapes += fmt::format("{}{} ({}{})", shapes.empty() ? "" : "; ", s.name, dims,
                          s.check_only ? "; checked for correctness, never timed" : "");
  }
  return {{"summary", spec.summary},
          {"arguments", arguments},
          {"shapes", shapes},
          {"atol", fmt::format("{:g}", spec.tolerance.atol)},
          {"rtol", fmt::format("{:g}", spec.tolerance.rtol)},
          {"reference", cut_to(read_file(spec.reference).value_or(""), limits.head_source)}};
}

}  // namespace

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
  const targets::KernelLanguage language = target.kernel_language();
  data["comment"] = language.comment;
  data["no_preprocessor"] = language.params == targets::KernelLanguage::Params::kPlaceholder;
  // A built-in kernel's contract is headway_kernel.h's, which the prompt carries already.
  if (ctx.kernel && ctx.kernel->spec() && !is_builtin_kernel(ctx.kernel->name()))
    data["spec"] = spec_data(*ctx.kernel->spec(), limits);

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
