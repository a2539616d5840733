#include "knowledge/citation_json.h"

#include <string>

namespace headway::knowledge {

nlohmann::json citations_json(const CitationReport& report) {
  nlohmann::json citations = nlohmann::json::array();
  for (const auto& c : report.citations) {
    citations.push_back({{"line", c.line},
                         {"column", c.column},
                         {"cite", c.cite},
                         {"verdict", to_string(c.verdict)},
                         {"why", c.why},
                         {"claim", c.claim}});
  }
  return citations;
}

nlohmann::json totals_json(const CitationReport& report) {
  nlohmann::json totals = nlohmann::json::object();
  for (const auto& [verdict, count] : report.totals())
    totals[std::string(to_string(verdict))] = count;
  return totals;
}

nlohmann::json agent_passes_json(const AgentPasses& passes) {
  if (passes.skipped()) return {{"status", "skipped"}, {"reason", "no agent configured"}};
  nlohmann::json claims = nlohmann::json::array();
  for (const auto& c : passes.claims) {
    nlohmann::json judgements = nlohmann::json::array();
    for (size_t i = 0; i < c.judgements.size(); ++i) {
      judgements.push_back({{"judge", passes.judges[i]},
                            {"support", to_string(c.judgements[i].support)},
                            {"why", c.judgements[i].why}});
    }
    claims.push_back({{"line", c.line},
                      {"claim", c.claim},
                      {"cites", c.cites},
                      {"combined", to_string(c.combined)},
                      {"judgements", judgements}});
  }
  nlohmann::json totals = nlohmann::json::object();
  for (const auto& [support, count] : passes.totals())
    totals[std::string(to_string(support))] = count;
  return {{"status", "ran"},
          {"judges", passes.judges},
          {"claims", claims},
          {"totals", totals},
          {"not_judged", passes.not_judged}};
}

}  // namespace headway::knowledge
