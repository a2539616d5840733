#pragma once
// The porter role of `headway migrate --agent`: a head that fails under a new toolchain, with
// the reason, to a port (prompts/porter.mustache; the answer parsed by extract_code). The
// migration builds and checks the port and leaves it proposed for the next optimize run's
// acceptance test (knowledge/migration.h).
#include <filesystem>

#include "agents/agent_ledger.h"
#include "knowledge/migration.h"
#include "loop/library_proposer.h"
#include "targets/target.h"

namespace headway::agents {

// A porter that asks through `ledger`. A malformed answer (stored so), a failed call or a spent
// budget gives no port and a log line; an AgentError fatal for the run is rethrown. target and
// ledger must outlive it.
knowledge::Porter agent_porter(AgentLedger& ledger, const targets::Target& target,
                               std::filesystem::path prompts_dir, loop::ProposerLog log = {});

// Records what became of the call that wrote a port (MigrateOptions::on_ported):
// AgentLedger::record_proposal.
std::function<void(int64_t, int64_t, bool)> record_port(AgentLedger& ledger);

}  // namespace headway::agents
