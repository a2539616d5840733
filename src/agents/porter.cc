#include "agents/porter.h"

#include <fmt/format.h>

#include "agents/kernel_prompt.h"
#include "agents/prompt_template.h"
#include "agents/response_parse.h"

namespace headway::agents {

knowledge::Porter agent_porter(AgentLedger& ledger, const targets::Target& target,
                               std::filesystem::path prompts_dir, loop::ProposerLog log) {
  return [&ledger, &target, prompts_dir, log](
             const std::string& kernel, const std::string& source,
             const std::string& why) -> std::optional<knowledge::Port> {
    const auto say = [&](const std::string& line) {
      if (log) log(fmt::format("porter ({}): {}", kernel, line));
    };
    const nlohmann::json data = {{"target", target.name()},
                                 {"toolchain", target.identity().version},
                                 {"kernel", kernel},
                                 {"why", why},
                                 {"head_source", cut_to(source, ContextLimits{}.head_source)},
                                 {"headers", headers_data(target, ContextLimits{}.headers)}};
    AgentRequest request;
    request.role = "porter";
    request.system = render_template(load_template(prompts_dir, "system"), data, prompts_dir);
    request.prompt = render_template(load_template(prompts_dir, "porter"), data, prompts_dir);
    request.files["kernel.cc"] = source;
    CallRecord call;
    try {
      call = ledger.call(request, kernel);
    } catch (const BudgetSpent& e) {
      say(e.what());
      return std::nullopt;
    }
    if (call.error) {
      say(fmt::format("{}: {}", to_string(call.error->kind()), call.error->what()));
      return std::nullopt;
    }
    std::string code;
    if (auto edited = call.reply->files.find("kernel.cc"); edited != call.reply->files.end()) {
      code = edited->second;
    } else {
      const ParsedCode parsed = extract_code(call.reply->text);
      if (!parsed.ok()) {
        ledger.set_outcome(call.id, "malformed", parsed.malformed);
        say("malformed: " + parsed.malformed);
        return std::nullopt;
      }
      code = parsed.code;
    }
    const std::string model =
        call.reply->model.empty() ? ledger.agent().model() : call.reply->model;
    return knowledge::Port{code, fmt::format("{}:{} porter", ledger.agent().provider(), model),
                           call.id};
  };
}

std::function<void(int64_t, int64_t, bool)> record_port(AgentLedger& ledger) {
  return [&ledger](int64_t node, int64_t call, bool duplicate) {
    ledger.record_proposal(node, call, duplicate);
  };
}

}  // namespace headway::agents
