#include "agents/rule_miner.h"

#include <fmt/format.h>

#include "agents/kernel_prompt.h"
#include "agents/prompt_template.h"
#include "agents/response_parse.h"
#include "knowledge/rules.h"

namespace headway::agents {

int AgentRuleMiner::mine() {
  int detectors = 0;
  for (const knowledge::Rule& rule : knowledge::list_rules(ws_)) {
    if (rule.detector || !rule.repro_hash || !asked_.insert(rule.id).second) continue;
    const auto repro = ws_.artifacts().get(*rule.repro_hash);
    if (!repro) continue;
    const auto say = [&](const std::string& line) {
      if (log_) log_(fmt::format("rule miner (rule {}): {}", rule.id, line));
    };
    const nlohmann::json data = {{"target", target_.name()},
                                 {"toolchain", target_.identity().version},
                                 {"diagnostic", rule.text},
                                 {"repro", cut_to(*repro, ContextLimits{}.head_source)}};
    AgentRequest request;
    request.role = "rule-miner";
    request.prompt = render_template(load_template(prompts_dir_, "rule-miner"), data, prompts_dir_);
    request.max_tokens = 4096;
    CallRecord call;
    try {
      call = ledger_.call(request);
    } catch (const BudgetSpent& e) {
      say(e.what());
      break;
    }
    if (call.error) {
      say(fmt::format("{}: {}", to_string(call.error->kind()), call.error->what()));
      break;
    }
    const ParsedRule parsed = parse_rule(call.reply->text);
    if (!parsed.ok()) {
      ledger_.set_outcome(call.id, "malformed", parsed.malformed);
      say("malformed: " + parsed.malformed);
      continue;
    }
    const auto set = knowledge::set_rule_detector(ws_, rule.id, parsed.detector);
    if (!set) {
      ledger_.set_outcome(call.id, "rejected", set.error().message);
      say("detector rejected: " + set.error().message);
      continue;
    }
    ledger_.set_outcome(call.id, "detector", fmt::format("rule {}: {}", rule.id, parsed.detector));
    say(fmt::format("detector /{}/ ({})", parsed.detector, parsed.text));
    ++detectors;
  }
  return detectors;
}

}  // namespace headway::agents
