#pragma once
// The JSON forms of a citation check, shared by `headway check-citations --json` and the
// citations.json that onboarding keeps:
//   citations: [{"line", "column", "cite", "verdict", "why", "claim"}]
//   totals:    {VERDICT: COUNT} (verdicts with no citation absent)
//   agent passes: {"status": "skipped", "reason"} or
//                 {"status": "ran", "judges", "claims": [...], "totals", "not_judged"}
#include <nlohmann/json.hpp>

#include "knowledge/citations.h"
#include "knowledge/claim_judge.h"

namespace headway::knowledge {

nlohmann::json citations_json(const CitationReport& report);
nlohmann::json totals_json(const CitationReport& report);
nlohmann::json agent_passes_json(const AgentPasses& passes);

}  // namespace headway::knowledge
