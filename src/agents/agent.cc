#include "agents/agent.h"

namespace headway::agents {

const char* to_string(AgentError::Kind kind) {
  switch (kind) {
    case AgentError::Kind::kAuth: return "auth";
    case AgentError::Kind::kUnknownModel: return "unknown-model";
    case AgentError::Kind::kBadRequest: return "bad-request";
    case AgentError::Kind::kTimeout: return "timeout";
    case AgentError::Kind::kTransient: return "transient";
    case AgentError::Kind::kMalformed: return "malformed";
    case AgentError::Kind::kCommand: return "command";
  }
  return "unknown";
}

}  // namespace headway::agents
